package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

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
		must(t, err)
		t.Cleanup(be.Close)
		return &session.Store{Backend: be, Sync: session.SyncNever}
	}
	return store(), store()
}

// TestHandler_PostgreSQL serves sessions that another process wrote into
// PostgreSQL: the list holds the run and its subagent, the page renders
// the run's rounds (the diff read from the blobs there), the side panel
// its subagent, an export the pair, and a live page receives a round
// another process appends.
func TestHandler_PostgreSQL(t *testing.T) {
	view, write := postgresStores(t)
	id, child := recordRun(t, write)
	h := New(view, nil)

	w := get(t, h, "/api/sessions")
	var list struct{ List, Newest string }
	must(t, json.Unmarshal(w.Body.Bytes(), &list))
	if list.Newest != id || !strings.Contains(list.List, `data-session="`+id+`"`) ||
		!strings.Contains(list.List, `data-session="`+child+`"`) || !strings.Contains(list.List, "review the fix") {
		t.Errorf("the list (newest %q) lacks the run %s or its subagent %s:\n%s", list.Newest, id, child, list.List)
	}

	w = get(t, h, "/api/session?id="+id)
	var p pageJSON
	must(t, json.Unmarshal(w.Body.Bytes(), &p))
	if p.ID != id || len(p.H) == 0 || len(p.H) != len(p.Index) {
		t.Fatalf("session %s: %d of %d rounds rendered (%s)", id, len(p.H), len(p.Index), w.Body)
	}
	info, err := view.Stat(t.Context(), id)
	must(t, err)
	if p.V != info.Size {
		t.Errorf("the page's version is %d, the journal's size %d", p.V, info.Size)
	}
	all := strings.Join(append([]string{p.Side}, p.H...), "\n")
	for _, want := range []string{
		"<h3>Plan</h3>", "&lt;script&gt;window.pwned=1&lt;/script&gt;",
		`<span class="del">-	return nil</span>`, `<span class="add">+	return err</span>`, // from the blobs
		"subagent reviewer", `data-session="` + child + `"`, // the side panel read the child
		"Done: the parser returns its error now.",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if w := get(t, h, "/api/session?id=nope"); w.Code != 404 {
		t.Errorf("an unknown session: %d, want 404", w.Code)
	}

	var b bytes.Buffer
	must(t, Export(t.Context(), &b, view, id))
	if out := b.String(); !strings.Contains(out, "The child looked") || !strings.Contains(out, "return err") {
		t.Error("the export lacks the subagent's round or the diff")
	}

	checkLiveAppend(t, view, write, id)
}
