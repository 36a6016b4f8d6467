package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/web"
)

// ExampleNew builds the web tools and fetches a page from a server on
// loopback, which the guard refuses unless Config.AllowAddrs allows it.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Notes</title></head><body><nav>menu</nav><main><h1>Notes</h1><p>Go is <b>simple</b>.</p></main></body></html>`)
	}))
	defer srv.Close()

	for _, allow := range [][]netip.Prefix{nil, {netip.MustParsePrefix("127.0.0.0/8")}} {
		tools, err := web.New(web.Config{AllowAddrs: allow})
		if err != nil {
			panic(err)
		}
		reg, _ := tool.NewRegistry(tools...)
		args, _ := json.Marshal(map[string]string{"url": srv.URL})
		res, err := tool.NewRunner(reg, nil).Call(context.Background(), tool.Call{}, tool.Request{Name: "web_fetch", Arguments: args})
		if err != nil {
			panic(err)
		}
		if !res.Success {
			fmt.Println("error:", strings.SplitN(res.Error, ";", 2)[0])
			continue
		}
		body := res.Output[strings.Index(res.Output, "Title:"):strings.Index(res.Output, "</untrusted")]
		fmt.Print(strings.ReplaceAll(body, srv.URL, "http://127.0.0.1:PORT"))
	}
	// Output:
	// error: 127.0.0.1 is a loopback address, which web_fetch does not reach
	// Title: Notes
	// URL: http://127.0.0.1:PORT
	//
	// # Notes
	//
	// Go is **simple**.
}

// ExampleSearXNG points web_search at a self-hosted SearXNG instance.
func ExampleSearXNG() {
	tools, err := web.New(web.Config{Searcher: &web.SearXNG{BaseURL: "http://localhost:8888"}, SearchCap: 50})
	if err != nil {
		panic(err)
	}
	for _, t := range tools {
		fmt.Println(t.Name(), t.Spec().Annotations.ReadOnly, t.Spec().Annotations.OpenWorld)
	}
	// Output:
	// web_search false true
	// web_fetch false true
}
