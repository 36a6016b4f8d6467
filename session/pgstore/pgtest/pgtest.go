// Package pgtest is for tests: it gives a test the PostgreSQL server the
// tests use and a schema of its own on it, so that the tests of
// [github.com/wieldhq/wield/session/pgstore] and of the packages that keep
// sessions there run in parallel on one server and leave nothing behind.
//
// The server is the one WIELD_POSTGRES_URL names; scripts/postgres.sh
// starts a throwaway one and sets the variable:
//
//	scripts/postgres.sh --exec go test -race ./session/pgstore/...
//
// Programs have no use for this package.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL returns the URL of the server the tests use, from
// WIELD_POSTGRES_URL. Without the variable the test fails (t.Fatal),
// unless WIELD_ALLOW_SKIP=1 on a machine where CI is unset: then it is
// skipped (t.Skip). Either way the message says how to run the tests
// with a server.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("WIELD_POSTGRES_URL")
	if url == "" {
		if os.Getenv("WIELD_ALLOW_SKIP") == "1" && os.Getenv("CI") == "" {
			t.Skip("WIELD_POSTGRES_URL is not set (run the tests under scripts/postgres.sh --exec)")
		}
		t.Fatal("WIELD_POSTGRES_URL is not set: run the tests under scripts/postgres.sh --exec go test …, which starts a server")
	}
	return url
}

// Schema returns the name of a new schema of the test's own on the
// server at url, "t_" and 12 random hexadecimal digits, and drops the
// schema, with all it holds, when the test ends. It creates nothing:
// the schema's first user does (pgstore creates its schema).
//
// The drop is a cleanup registered by Schema, so it runs after the
// cleanups registered later, such as the Close of a backend opened on
// the schema. A failed drop is reported with t.Errorf.
func Schema(t testing.TB, url string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}
