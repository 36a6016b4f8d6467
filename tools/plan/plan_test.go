package plan

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
	"github.com/wieldhq/wield/tools/askuser"
)

// person answers every question with reply, as typed at a terminal, and
// keeps the questions.
type person struct {
	reply string
	asked []askuser.Question
}

func (p *person) Ask(_ context.Context, q askuser.Question) (askuser.Answer, error) {
	p.asked = append(p.asked, q)
	return askuser.ParseAnswer(q, p.reply)
}

// fixture is a workspace with a session store and one open session.
type fixture struct {
	root  *os.Root
	dir   string
	store *session.Store
	s     *session.Session
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	st := &session.Store{Dir: filepath.Join(dir, ".wield", "sessions"), Logger: slog.New(slog.DiscardHandler)}
	s, err := st.Create(t.Context(), session.Header{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &fixture{root: root, dir: dir, store: st, s: s}
}

func (f *fixture) call(t *testing.T, cfg Config, name, args string) tool.Result {
	t.Helper()
	cfg.Sessions = f.store
	reg, err := tool.NewRegistry(Tools(cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.NewRunner(reg, nil).Call(t.Context(), tool.Call{SessionID: f.s.ID(), Root: f.root}, tool.Request{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestContracts(t *testing.T) {
	cases := map[string]tooltest.Cases{
		"enter_plan_mode": {Valid: []string{`{"reason":"a big change"}`}, Invalid: []string{`{}`, `{"reason":1}`, `{"reason":"x","y":1}`}},
		"exit_plan_mode":  {Valid: []string{`{"plan":"# Fix\n\nsteps"}`}, Invalid: []string{`{}`, `{"plan":["a"]}`}},
	}
	for _, tl := range Tools(Config{}) {
		if err := tooltest.Check(t.Context(), tl, cases[tl.Name()]); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
		if !tl.Spec().Annotations.ReadOnly {
			t.Errorf("%s is not read-only: it could not run in plan mode", tl.Name())
		}
	}
}

func TestEnterPlanMode(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		args     string
		ok       bool
		want     string
		wantMode string
	}{
		{"approved", Config{Asker: &person{reply: "1"}}, `{"reason":"touches every package"}`, true, "Plan mode is on", "plan"},
		{"declined", Config{Asker: &person{reply: "2"}}, `{"reason":"r"}`, true, "declined plan mode", ""},
		{"declined in words", Config{Asker: &person{reply: "no, just fix it"}}, `{"reason":"r"}`, true, "They said: no, just fix it", ""},
		{"headless", Config{}, `{"reason":"r"}`, false, "nobody can give it", ""},
		{"without asking", Config{EnterWithoutAsking: true}, `{"reason":"r"}`, true, ".wield/plans/s1/", "plan"},
		{"empty reason", Config{EnterWithoutAsking: true}, `{"reason":" "}`, false, "reason is empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			res := f.call(t, tt.cfg, "enter_plan_mode", tt.args)
			if res.Success != tt.ok || !strings.Contains(res.ForModel(), tt.want) {
				t.Errorf("enter_plan_mode = %+v, want success %v and %q", res, tt.ok, tt.want)
			}
			if planmode.Of(f.s).Mode != tt.wantMode {
				t.Errorf("mode = %q, want %q", planmode.Of(f.s).Mode, tt.wantMode)
			}
		})
	}
	t.Run("the person reads the reason", func(t *testing.T) {
		f := newFixture(t)
		p := &person{reply: "1"}
		f.call(t, Config{Asker: p}, "enter_plan_mode", `{"reason":"touches every package"}`)
		if len(p.asked) != 1 || !strings.Contains(p.asked[0].Text, "touches every package") || len(p.asked[0].Options) != 2 {
			t.Errorf("asked %+v", p.asked)
		}
		res := f.call(t, Config{Asker: p}, "enter_plan_mode", `{"reason":"again"}`)
		if !res.Success || !strings.Contains(res.Output, "already in plan mode") || len(p.asked) != 1 {
			t.Errorf("second enter = %+v (asked %d times)", res, len(p.asked))
		}
	})
}

const planText = "# Fix the Parser: handle CRLF\n\n1. read the tests\n2. patch parse.go\n"

func TestExitPlanMode(t *testing.T) {
	const file = ".wield/plans/s1/fix-the-parser-handle-crlf.md"
	tests := []struct {
		name     string
		asker    askuser.Asker
		ok       bool
		want     string
		wantMode string
		data     ExitData
	}{
		{"approve", &person{reply: "1"}, true, "approved the plan (" + file + "). Plan mode is over", "default",
			ExitData{Path: file, Plan: strings.TrimSpace(planText), Answered: true, Approved: true}},
		{"reject with feedback", &person{reply: "also handle a lone CR"}, true, "Their feedback: also handle a lone CR\nYou are still in plan mode", "plan",
			ExitData{Path: file, Plan: strings.TrimSpace(planText), Answered: true, Feedback: "also handle a lone CR"}},
		{"reject", &person{reply: "2"}, true, "did not approve the plan. They gave no reason", "plan",
			ExitData{Path: file, Plan: strings.TrimSpace(planText), Answered: true}},
		{"headless", nil, true, "Nobody can approve plans in this run, so the session stays in plan mode. The plan is saved in " + file + ":\n\n# Fix the Parser", "plan",
			ExitData{Path: file, Plan: strings.TrimSpace(planText)}},
		{"no answer", askuser.AskerFunc(func(context.Context, askuser.Question) (askuser.Answer, error) {
			return askuser.Answer{}, context.Canceled
		}),
			false, "did not answer (context canceled); the session stays in plan mode", "plan", ExitData{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := planmode.Set(f.s, ModePlan, ""); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(ExitInput{Plan: planText})
			res := f.call(t, Config{Asker: tt.asker}, "exit_plan_mode", string(args))
			if res.Success != tt.ok || !strings.Contains(res.ForModel(), tt.want) {
				t.Errorf("exit_plan_mode = %q (success %v), want success %v and %q", res.ForModel(), res.Success, tt.ok, tt.want)
			}
			if planmode.Of(f.s).Mode != tt.wantMode || planmode.Of(f.s).Plan != file {
				t.Errorf("mode %q plan %q, want %q and %q", planmode.Of(f.s).Mode, planmode.Of(f.s).Plan, tt.wantMode, file)
			}
			if tt.ok && res.Data != tt.data {
				t.Errorf("Data = %+v, want %+v", res.Data, tt.data)
			}
			got, err := os.ReadFile(filepath.Join(f.dir, file))
			if err != nil || string(got) != strings.TrimSpace(planText)+"\n" {
				t.Errorf("plan file = %q, %v", got, err)
			}
		})
	}
	t.Run("the person sees the plan", func(t *testing.T) {
		f := newFixture(t)
		planmode.Set(f.s, ModePlan, "")
		p := &person{reply: "1"}
		args, _ := json.Marshal(ExitInput{Plan: planText})
		f.call(t, Config{Asker: p}, "exit_plan_mode", string(args))
		if len(p.asked) != 1 || !strings.Contains(p.asked[0].Text, "2. patch parse.go") || p.asked[0].Options[0].Label != "Approve" {
			t.Errorf("asked %+v", p.asked)
		}
	})
	failures := []struct {
		name  string
		setup func(t *testing.T, f *fixture)
		plan  string
		want  string
	}{
		{"not in plan mode", func(*testing.T, *fixture) {}, planText, "not in plan mode"},
		{"empty plan", nil, " \n", "the plan is empty"},
		{"symlinked plans dir", func(t *testing.T, f *fixture) {
			planmode.Set(f.s, ModePlan, "")
			os.MkdirAll(filepath.Join(f.dir, ".wield", "plans"), 0o755)
			os.Mkdir(filepath.Join(f.dir, "src"), 0o755)
			if err := os.Symlink("../../src", filepath.Join(f.dir, ".wield", "plans", "s1")); err != nil {
				t.Fatal(err)
			}
		}, planText, ".wield/plans/s1 is a symbolic link"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.setup == nil {
				planmode.Set(f.s, ModePlan, "")
			} else {
				tt.setup(t, f)
			}
			args, _ := json.Marshal(ExitInput{Plan: tt.plan})
			res := f.call(t, Config{Asker: &person{reply: "1"}}, "exit_plan_mode", string(args))
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Errorf("exit_plan_mode = %+v, want failure %q", res, tt.want)
			}
			if _, err := os.Stat(filepath.Join(f.dir, "src", "fix-the-parser-handle-crlf.md")); err == nil {
				t.Errorf("the plan was written through the link")
			}
		})
	}
}

// TestModeSurvivesResume: a session put in plan mode and closed is in
// plan mode when reopened, and a policy reading the store's sessions
// (as cmd/wield does) still refuses a write.
func TestModeSurvivesResume(t *testing.T) {
	f := newFixture(t)
	if res := f.call(t, Config{EnterWithoutAsking: true}, "enter_plan_mode", `{"reason":"r"}`); !res.Success {
		t.Fatal(res.Error)
	}
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := f.store.Open(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := &policy.Policy{Root: f.dir, Modes: policy.ModeFunc(func(id string) (policy.Mode, bool) {
		s, ok := f.store.Writer(id)
		if !ok || planmode.Of(s).Mode == "" {
			return "", false
		}
		return policy.Mode(planmode.Of(s).Mode), true
	})}
	write, err := tool.NewRaw(tool.Spec{Name: "write_file", Description: "w", InputSchema: json.RawMessage(`{"type":"object"}`)}, tool.HandlerFunc(nil))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Decide(t.Context(), &tool.Call{SessionID: "s1"}, write, json.RawMessage(`{"path":"main.go"}`))
	if planmode.Of(s).Mode != ModePlan || d.Verdict != tool.Deny || !strings.Contains(d.Reason, "plan mode") {
		t.Errorf("after resume: mode %q, Decide = %s (%s); want plan and deny", planmode.Of(s).Mode, d.Verdict, d.Reason)
	}
}

func TestDirMatchesPolicy(t *testing.T) {
	for _, id := range []string{"s1", "20260101-abc"} {
		if Dir(id) != policy.PlanDir(id) {
			t.Errorf("Dir(%q) = %q, but the policy allows writes in %q", id, Dir(id), policy.PlanDir(id))
		}
	}
}

func TestSlug(t *testing.T) {
	for plan, want := range map[string]string{
		"# Fix the Parser: handle CRLF\n":   "fix-the-parser-handle-crlf",
		"intro\n\n## Step 2 — café  déjà\n": "step-2-caf-d-j",
		"#NoSpace\n# Real title":            "real-title",
		"no heading":                        "plan",
		"# !!!":                             "plan",
		"####### seven":                     "plan",
		"# " + strings.Repeat("word ", 30):  "word-word-word-word-word-word-word-word-word-word-word-word",
		"# ../../etc/passwd":                "etc-passwd",
	} {
		if got := Slug(plan); got != want {
			t.Errorf("Slug(%q) = %q, want %q", plan, got, want)
		}
	}
}

var slugShape = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzSlug: a slug is never empty, at most maxSlug bytes, and made of
// lower-case ASCII words joined by single hyphens, so it is always one
// safe file name.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"# Fix it", "## a/b\\c", "# " + strings.Repeat("x", 100), "#\t\ttab", "# -", "text\n# Ünïcode"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, plan string) {
		s := Slug(plan)
		if len(s) > maxSlug || !slugShape.MatchString(s) {
			t.Fatalf("Slug(%q) = %q", plan, s)
		}
	})
}
