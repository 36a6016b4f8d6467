package viewer_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/viewer"
)

// demoStore returns a store in a temporary directory holding one session.
func demoStore() (store *session.Store, id string, cleanup func()) {
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	store = &session.Store{Dir: dir}
	s, err := store.Create(ctx, session.Header{Purpose: "say hello"})
	if err != nil {
		panic(err)
	}
	s.Begin(ctx, "Say hello.")
	s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "**Hello!**"}, Model: "demo"})
	s.Commit(ctx)
	s.Close()
	return store, s.ID(), func() { os.RemoveAll(dir) }
}

// A Handler serves a store's sessions; with a token, only URLs that start
// with it are answered.
func ExampleNew() {
	store, id, cleanup := demoStore()
	defer cleanup()

	srv := httptest.NewServer(viewer.New(store, &viewer.Options{Token: "secret"}))
	defer srv.Close()
	for _, path := range []string{"/secret/", "/secret/api/session?id=" + id, "/", "/api/session?id=" + id} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(strings.Replace(path, id, "ID", 1), resp.StatusCode)
	}
	// Output:
	// /secret/ 200
	// /secret/api/session?id=ID 200
	// / 403
	// /api/session?id=ID 403
}

// Export writes one session as a page that needs nothing else.
func ExampleExport() {
	store, id, cleanup := demoStore()
	defer cleanup()

	var b bytes.Buffer
	if err := viewer.Export(context.Background(), &b, store, id); err != nil {
		panic(err)
	}
	page := b.String()
	fmt.Println(strings.HasPrefix(page, "<!doctype html>"))
	fmt.Println(strings.Contains(page, `<strong>Hello!<\/strong>`)) // the round, rendered, inside the page's data
	// Output:
	// true
	// true
}
