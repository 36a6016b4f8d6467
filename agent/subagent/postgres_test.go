package subagent_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/session/pgstore/pgtest"
)

// postgresStores returns two stores of one PostgreSQL schema of the
// test's own, dropped when it ends, each with a backend (a pool) of its
// own, as two processes have: the server is WIELD_POSTGRES_URL's
// (scripts/postgres.sh sets it). Without the variable the test fails,
// unless WIELD_ALLOW_SKIP=1 on a machine where CI is unset.
func postgresStores(t *testing.T) (a, b *session.Store) {
	t.Helper()
	url := pgtest.URL(t)
	schema := pgtest.Schema(t, url) // dropped after the backends' Close, registered below
	store := func() *session.Store {
		be, err := pgstore.New(context.Background(), url, &pgstore.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(be.Close)
		return &session.Store{Backend: be, Logger: slog.New(slog.DiscardHandler)}
	}
	return store(), store()
}

// TestChildSessionsInPostgreSQL runs a parent whose store keeps its
// sessions in PostgreSQL, where an earlier process left a child of it:
// the two children it starts get the next free ids, their sessions link
// to the parent's calls and are read whole by another process, and the
// reports name no transcript file, there being none.
func TestChildSessionsInPostgreSQL(t *testing.T) {
	st, other := postgresStores(t)
	f := newFixture(t, fixtureOptions{store: st, script: []string{
		`{"turn":1,"round":1,"tool_calls":[` +
			`{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Count task: count the files"}},` +
			`{"id":"c2","name":"agent","arguments":{"type":"looper","prompt":"Loop task: look at a and b"}}]}`,
		`{"turn":1,"round":2,"text":"both reported"}`,

		`{"when":"Count task","turn":1,"round":1,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"three files"}}]}`,

		`{"when":"Loop task","turn":1,"round":1,"text":"looked at a","tool_calls":[{"name":"echo","arguments":{"text":"a"}}]}`,
		`{"when":"Loop task","turn":1,"round":2,"text":"looked at b","tool_calls":[{"name":"echo","arguments":{"text":"b"}}]}`,
		`{"when":"Loop task","turn":2,"round":1,"text":"I think I am done"}`,
	}})
	earlier, err := other.Create(t.Context(), session.Header{ID: "parent.1", Agent: "general",
		Child: &session.ChildOf{Session: "parent", Call: "c0", Depth: 1, Agent: "general"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := earlier.Close(); err != nil {
		t.Fatal(err)
	}

	out, err := f.parent.Run(t.Context(), f.sess, "delegate two tasks")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "both reported" {
		t.Errorf("parent's answer = %q", out.Text)
	}
	if un := f.provider.Unmatched(); len(un) > 0 {
		t.Fatalf("%d requests matched no script entry; the first: %+v", len(un), un[0].Messages)
	}

	res := results(t, f.sess)
	if len(res) != 2 {
		t.Fatalf("parent has %d agent results, want 2", len(res))
	}
	var children, want []string
	for i, w := range []struct{ call, agent, status, text string }{
		{"c1", "general", "done", "three files"},
		{"c2", "looper", "partial", "looked at a\n\nlooked at b\n\nI think I am done"},
	} {
		var rep subagent.Report
		if err := json.Unmarshal(res[i].Data, &rep); err != nil {
			t.Fatalf("result data of %s: %v", w.call, err)
		}
		if res[i].CallID != w.call || rep.Agent != w.agent || string(rep.Status) != w.status || !strings.Contains(res[i].Output, w.text) {
			t.Errorf("result %d: call %s, report %+v, output %q; want call %s, agent %s %s with %q",
				i, res[i].CallID, rep, res[i].Output, w.call, w.agent, w.status, w.text)
		}
		if rep.Transcript != "" || strings.Contains(res[i].Output, "transcript") {
			t.Errorf("result of %s names a transcript file (%q) in a store that keeps none:\n%s", w.call, rep.Transcript, res[i].Output)
		}
		// Another process reads the child whole.
		checkChild(t, other, rep.Session, session.ChildOf{Session: "parent", Call: w.call, Depth: 1, Agent: w.agent})
		children = append(children, rep.Session)
		want = append(want, w.call+":"+rep.Session+":"+w.status)
	}
	slices.Sort(children)
	if !slices.Equal(children, []string{"parent.2", "parent.3"}) {
		t.Errorf("children %v, want parent.2 and parent.3: parent.1 was taken", children)
	}

	// The parent's journal, read by the other process, records each
	// child's start and finish.
	parent, err := other.Load(t.Context(), "parent")
	if err != nil {
		t.Fatal(err)
	}
	var finished []string
	for _, turn := range parent.Turns {
		if turn.Kind == session.TurnAgentFinished {
			finished = append(finished, turn.CallID+":"+turn.Child+":"+turn.Status)
		}
	}
	slices.Sort(finished)
	if !slices.Equal(finished, want) {
		t.Errorf("the parent's agent_finished turns %v, want %v", finished, want)
	}
}
