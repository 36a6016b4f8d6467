package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
)

// A worker opens a session kept in PostgreSQL, carries on with it and
// closes it; the next worker, on any machine, opens it after.
func Example() {
	ctx := context.Background()
	be, err := pgstore.New(ctx, os.Getenv("WIELD_POSTGRES_URL"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()
	store := &session.Store{Backend: be}
	s, err := store.Open(ctx, "nightly-report")
	if err != nil {
		log.Fatal(err) // a *session.BusyError names the worker that has it
	}
	defer s.Close()
	if err := s.Begin(ctx, "collect the numbers"); err != nil {
		log.Fatal(err)
	}
	// … the run records its turns …
	if err := s.Commit(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.State().Turns))
}
