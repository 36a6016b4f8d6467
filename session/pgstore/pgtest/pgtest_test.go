package pgtest_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/wieldhq/wield/session/pgstore/pgtest"
)

// stopped is what recorder's Skip and Fatal panic with, standing in for
// the runtime.Goexit of testing's.
type stopped struct{}

// recorder is a testing.TB that records a Skip or a Fatal and stops the
// function that called it.
type recorder struct {
	testing.TB
	skip, fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	panic(stopped{})
}

func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(stopped{})
}

// url calls pgtest.URL with r, returning what it returned.
func (r *recorder) url() (url string) {
	defer func() {
		if v := recover(); v != nil && v != (stopped{}) {
			panic(v)
		}
	}()
	return pgtest.URL(r)
}

// TestURL checks URL against each setting of its three variables: the
// URL when it is set, else a failure, or a skip where it is allowed;
// both say how to run the tests with a server.
func TestURL(t *testing.T) {
	const server = "postgres://wield@127.0.0.1:5432/postgres?sslmode=disable"
	for _, tc := range []struct {
		name, url, allow, ci string
		want                 string // "skip", "fatal" or the URL
	}{
		{name: "set", url: server, want: server},
		{name: "set in CI", url: server, ci: "true", want: server},
		{name: "set, skipping allowed", url: server, allow: "1", want: server},
		{name: "unset", want: "fatal"},
		{name: "unset, skipping allowed", allow: "1", want: "skip"},
		{name: "unset, skipping allowed, in CI", allow: "1", ci: "true", want: "fatal"},
		{name: "unset, skipping asked with another value", allow: "yes", want: "fatal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WIELD_POSTGRES_URL", tc.url)
			t.Setenv("WIELD_ALLOW_SKIP", tc.allow)
			t.Setenv("CI", tc.ci)
			r := &recorder{TB: t}
			got := r.url()
			switch {
			case r.skip != "" && r.fatal != "":
				t.Fatalf("both skipped (%q) and failed (%q)", r.skip, r.fatal)
			case r.skip != "":
				got = "skip"
			case r.fatal != "":
				got = "fatal"
			}
			if got != tc.want {
				t.Fatalf("URL: %s (skip %q, fatal %q), want %s", got, r.skip, r.fatal, tc.want)
			}
			if msg := r.skip + r.fatal; msg != "" && !strings.Contains(msg, "scripts/postgres.sh --exec") {
				t.Errorf("the message %q does not say to run under scripts/postgres.sh --exec", msg)
			}
		})
	}
}

// TestSchema gives two subtests a schema each, which they fill: the
// names differ and are plain identifiers, and each schema is gone, with
// its table, once its subtest has ended.
func TestSchema(t *testing.T) {
	url := pgtest.URL(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	exists := func(schema string) bool {
		var n int
		err := conn.QueryRow(t.Context(), "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", schema).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	plain := regexp.MustCompile(`^t_[0-9a-f]{12}$`)
	var names []string
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			schema := pgtest.Schema(t, url)
			if !plain.MatchString(schema) {
				t.Errorf("schema name %q, want t_ and 12 hexadecimal digits", schema)
			}
			if exists(schema) {
				t.Fatalf("schema %s exists before its first use", schema)
			}
			if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+schema+"; CREATE TABLE "+schema+".kept (v int); INSERT INTO "+schema+".kept VALUES (1)"); err != nil {
				t.Fatal(err)
			}
			names = append(names, schema)
		})
	}
	if len(names) != 2 || names[0] == names[1] {
		t.Fatalf("schemas %v, want two different ones", names)
	}
	for _, schema := range names {
		if exists(schema) {
			t.Errorf("schema %s outlived its test", schema)
		}
	}
}
