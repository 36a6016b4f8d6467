package planmode_test

import (
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
)

// TestSetAndOf: Of gives the last Set, from the session and from its
// state, and a reopened session gives it too; a session that never had a
// mode has the zero Setting, and Set needs a mode.
func TestSetAndOf(t *testing.T) {
	store := &session.Store{Dir: t.TempDir()}
	s, err := store.Create(t.Context(), session.Header{Agent: "wield"})
	if err != nil {
		t.Fatal(err)
	}
	if got := planmode.Of(s); got != (planmode.Setting{}) {
		t.Errorf("new session: %+v, want none", got)
	}
	if err := planmode.Set(s, "", "x.md"); err == nil {
		t.Error("Set with no mode succeeded")
	}
	must(t, planmode.Set(s, planmode.Plan, ""))
	must(t, planmode.Set(s, planmode.Plan, ".wield/plans/x/p.md"))
	want := planmode.Setting{Mode: planmode.Plan, Plan: ".wield/plans/x/p.md"}
	if got := planmode.Of(s); got != want {
		t.Errorf("Of(session) = %+v, want %+v", got, want)
	}
	if got := planmode.Of(s.State()); got != want {
		t.Errorf("Of(state) = %+v, want %+v", got, want)
	}
	must(t, s.Close())
	r, err := store.Open(t.Context(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := planmode.Of(r); got != want {
		t.Errorf("reopened: %+v, want %+v", got, want)
	}
	must(t, planmode.Set(r, planmode.Default, want.Plan))
	if got := planmode.Of(r); got.Mode != planmode.Default || got.Plan != want.Plan {
		t.Errorf("after leaving plan mode: %+v", got)
	}
}

// TestJournalFormat: a setting is the journal line older wields wrote,
// so their sessions resume in the mode they were in.
func TestJournalFormat(t *testing.T) {
	dir := t.TempDir()
	store := &session.Store{Dir: dir}
	s, err := store.Create(t.Context(), session.Header{ID: "m"})
	if err != nil {
		t.Fatal(err)
	}
	must(t, planmode.Set(s, planmode.Plan, "p.md"))
	must(t, s.Close())
	st, err := store.Load(t.Context(), "m")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := st.Latest(planmode.Kind)
	if got, want := string(r.Data), `{"op":"mode","t":"`; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("journal line %s, want it to start %s", got, want)
	}
	if got, want := string(r.Data[len(r.Data)-len(`,"mode":"plan","plan":"p.md"}`):]), `,"mode":"plan","plan":"p.md"}`; got != want {
		t.Errorf("journal line %s, want it to end %s", r.Data, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
