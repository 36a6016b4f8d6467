package pgtest_test

import (
	"context"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/session/pgstore/pgtest"
)

// A test keeps its sessions in a schema of its own on the test server.
// The backend is closed before the schema is dropped, its cleanup being
// registered after Schema's.
func Example() {
	testSessions := func(t *testing.T) {
		url := pgtest.URL(t)
		be, err := pgstore.New(context.Background(), url, &pgstore.Options{Schema: pgtest.Schema(t, url)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(be.Close)
		st := &session.Store{Backend: be}
		sess, err := st.Create(t.Context(), session.Header{ID: "first"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	_ = testSessions // func TestSessions(t *testing.T) in a _test.go file
}
