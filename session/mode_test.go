package session

import "testing"

// TestModeAndPlanAccessors: Mode and Plan give the last SetMode, and a
// reopened session gives it too.
func TestModeAndPlanAccessors(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(Header{Agent: "wield"})
	must(t, err)
	if s.Mode() != "" || s.Plan() != "" {
		t.Errorf("new session: Mode %q Plan %q, want none", s.Mode(), s.Plan())
	}
	must(t, s.SetMode("plan", ""))
	must(t, s.SetMode("plan", ".wield/plans/x/p.md"))
	if s.Mode() != "plan" || s.Plan() != ".wield/plans/x/p.md" {
		t.Errorf("Mode %q Plan %q", s.Mode(), s.Plan())
	}
	must(t, s.Close())
	r, err := st.Open(s.ID())
	must(t, err)
	defer r.Close()
	if r.Mode() != "plan" || r.Plan() != ".wield/plans/x/p.md" {
		t.Errorf("reopened: Mode %q Plan %q, want plan and the plan's path", r.Mode(), r.Plan())
	}
}
