package main

import (
	"log/slog"
	"testing"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
)

// TestStartPlanMode: the command line's mode is recorded in the session,
// and the policy reads the session's mode through sessionModes.
func TestStartPlanMode(t *testing.T) {
	tests := []struct {
		name     string
		recorded string      // the session's mode before the run
		settings policy.Mode // the settings' defaultMode
		flags    runFlags
		wantRec  string      // the session's mode after startPlanMode
		want     policy.Mode // the mode the policy judges the session's calls in
	}{
		{"--plan", "", "", runFlags{plan: true}, "plan", policy.ModePlan},
		{"--mode plan", "", "", runFlags{mode: "plan"}, "plan", policy.ModePlan},
		{"resumed in plan mode", "plan", "", runFlags{}, "plan", policy.ModePlan},
		{"--mode auto-edit leaves plan mode", "plan", policy.ModeAutoEdit, runFlags{mode: "auto-edit"}, "default", policy.ModeAutoEdit},
		{"settings say plan, new session", "", policy.ModePlan, runFlags{}, "plan", policy.ModePlan},
		{"settings say plan, plan approved", "default", policy.ModePlan, runFlags{}, "default", policy.ModeDefault},
		{"approved, run in yolo", "default", policy.ModeYolo, runFlags{}, "default", policy.ModeYolo},
		{"no mode anywhere", "", "", runFlags{}, "", policy.ModeDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
			s, err := st.Create(t.Context(), session.Header{ID: "s"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tt.recorded != "" {
				if err := planmode.Set(s, tt.recorded, ""); err != nil {
					t.Fatal(err)
				}
			}
			pol := &policy.Policy{Mode: tt.settings}
			if tt.flags.mode != "" {
				pol.Mode = policy.Mode(tt.flags.mode) // as globals.policy sets it
			}
			if err := startPlanMode(s, st, pol, &tt.flags); err != nil {
				t.Fatal(err)
			}
			if planmode.Of(s).Mode != tt.wantRec {
				t.Errorf("recorded mode = %q, want %q", planmode.Of(s).Mode, tt.wantRec)
			}
			got, ok := pol.Modes.Mode("s")
			if !ok {
				got = cmpMode(pol.Mode)
			}
			if got != tt.want {
				t.Errorf("the policy's mode for the session = %q, want %q", got, tt.want)
			}
			if _, ok := pol.Modes.Mode("not-open"); ok {
				t.Errorf("a session not open here has a mode")
			}
		})
	}
}

func cmpMode(m policy.Mode) policy.Mode {
	if m == "" {
		return policy.ModeDefault
	}
	return m
}

// TestSessionModesChildren: a child agent's session without a mode of
// its own is judged in its parent's mode, so plan mode reaches subagents.
func TestSessionModesChildren(t *testing.T) {
	st := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	parent, err := st.Create(t.Context(), session.Header{ID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	child, err := st.Create(t.Context(), session.Header{ID: "c", Child: &session.ChildOf{Session: "p", Call: "call_1", Depth: 1, Agent: "general"}})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	grandchild, err := st.Create(t.Context(), session.Header{ID: "g", Child: &session.ChildOf{Session: "c", Call: "call_2", Depth: 2, Agent: "general"}})
	if err != nil {
		t.Fatal(err)
	}
	defer grandchild.Close()
	m := &sessionModes{store: st, run: policy.ModeAutoEdit}
	for _, id := range []string{"p", "c", "g"} {
		if _, ok := m.Mode(id); ok {
			t.Errorf("%s has a mode before any was set", id)
		}
	}
	if err := planmode.Set(parent, "plan", ""); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"p", "c", "g"} {
		if got, ok := m.Mode(id); !ok || got != policy.ModePlan {
			t.Errorf("Mode(%s) = %q, %v; want plan from the parent", id, got, ok)
		}
	}
	if err := planmode.Set(parent, "default", ".wield/plans/p/x.md"); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Mode("g"); ok {
		t.Errorf("after the plan's approval the grandchild still has a mode; want the run's")
	}
}
