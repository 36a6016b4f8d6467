package skills

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

type fixture struct {
	cfg   Config
	store *session.Store
	sess  *session.Session
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	abs, err := filepath.Abs("testdata/skills")
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, ".wield", "skills")
	store := &session.Store{Dir: filepath.Join(dir, "sessions"), Logger: slog.New(slog.DiscardHandler)}
	s, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cat := &skill.Catalog{Roots: []skill.Root{{Dir: project, Scope: skill.ScopeProject}, {Dir: abs, Scope: skill.ScopeUser}}}
	return &fixture{cfg: Config{Catalog: cat, ProjectDir: project, Sessions: store}, store: store, sess: s}
}

func (f *fixture) call(t *testing.T, name, args string) tool.Result {
	t.Helper()
	for _, tl := range Tools(f.cfg) {
		if tl.Name() == name {
			res, err := tl.Handler().Handle(t.Context(), &tool.Call{SessionID: f.sess.ID(), ID: "call-1", Tool: name}, json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s %s: %v", name, args, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

func TestContracts(t *testing.T) {
	cases := map[string]tooltest.Cases{
		"activate_skill": {Valid: []string{`{"name":"pdf-forms"}`}, Invalid: []string{`{}`, `{"name":1}`}},
		"list_skills":    {Valid: []string{`{}`}, Invalid: []string{`{"x":1}`}},
		"skill_search":   {Valid: []string{`{"query":"pdf"}`}, Invalid: []string{`{}`}},
		"create_skill":   {Valid: []string{`{"name":"a","description":"b","body":"c","files":{"scripts/x.sh":"echo"}}`}, Invalid: []string{`{"name":"a"}`, `{"name":"a","description":"b","body":"c","files":["x"]}`}},
	}
	for _, tl := range Tools(Config{}) {
		if err := tooltest.Check(t.Context(), tl, cases[tl.Name()]); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
}

func TestActivateJournalsAndReinjectsAfterCompaction(t *testing.T) {
	f := newFixture(t)
	if err := f.sess.Begin(t.Context(), "fill the form"); err != nil {
		t.Fatal(err)
	}
	res := f.call(t, "activate_skill", `{"name":"pdf-forms"}`)
	if !res.Success {
		t.Fatalf("activate_skill = %+v", res)
	}
	for _, want := range []string{"# Filling a PDF form", "- references/fields.md", "- scripts/fill.py", `dir="`} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("activate_skill output lacks %q:\n%s", want, res.Output)
		}
	}
	raw, ok := f.sess.State().Meta[MetaPrefix+"pdf-forms"]
	if !ok {
		t.Fatalf("the activation is not journaled; meta: %v", f.sess.State().Meta)
	}
	var a Activation
	if err := json.Unmarshal(raw, &a); err != nil || a.CallID != "call-1" {
		t.Errorf("journaled activation = %+v (%v)", a, err)
	}
	if got := f.cfg.Active(f.sess.ID()); len(got) != 1 || got[0].AllowedTools[1] != "run_shell_command(python3 scripts/fill.py:*)" {
		t.Errorf("Active = %v; want pdf-forms with its allowed-tools", got)
	}
	if got := f.sess.Pinned(); got != nil {
		t.Errorf("Pinned before any compaction = %v; want nil", got)
	}
	if err := f.sess.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sess.Compress(t.Context(), 1, 1, "the user asked to fill a form; pdf-forms was activated"); err != nil {
		t.Fatal(err)
	}
	got := f.sess.Pinned()
	if len(got) != 1 || !strings.HasSuffix(got[0].Path, "pdf-forms/SKILL.md") || !strings.HasPrefix(got[0].Content, "# Filling a PDF form") {
		t.Errorf("Pinned after compaction = %+v; want pdf-forms with its body", got)
	}
}

func TestActivateUnknown(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "activate_skill", `{"name":"pdf"}`)
	if res.Success || !strings.Contains(res.Error, "did you mean pdf-forms") {
		t.Errorf("activate_skill(pdf) = %+v; want a failure suggesting pdf-forms", res)
	}
	empty := Config{}
	r, _ := ActivateSkill(empty).Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{"name":"x"}`))
	if r.Success || !strings.Contains(r.Error, "no skills") {
		t.Errorf("activate_skill without skills = %+v", r)
	}
}

func TestListAndSearch(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "list_skills", `{}`)
	if !strings.Contains(res.Output, "- changelog (user): ") || !strings.Contains(res.Output, "- pdf-forms (user): ") {
		t.Errorf("list_skills = %q", res.Output)
	}
	res = f.call(t, "skill_search", `{"query":"fillable AcroForm"}`)
	if !strings.HasPrefix(res.Output, "- pdf-forms:") {
		t.Errorf("skill_search = %q; want pdf-forms first", res.Output)
	}
}

func TestSearchHiddenWhenTheListingFits(t *testing.T) {
	f := newFixture(t)
	f.cfg.Budget = 100_000
	if !SkillSearch(f.cfg).Spec().Hidden {
		t.Error("skill_search is offered although the listing fits")
	}
	f.cfg.Budget = 100
	if SkillSearch(f.cfg).Spec().Hidden {
		t.Error("skill_search is hidden although the listing does not fit")
	}
}

func TestCreateSkill(t *testing.T) {
	f := newFixture(t)
	res := f.call(t, "create_skill", `{"name":"pdf-forms","description":"Project pdf forms.","body":"Use the project's filler.","files":{"scripts/fill.sh":"echo"}}`)
	if !res.Success {
		t.Fatalf("create_skill = %+v", res)
	}
	// The project's new skill shadows the user's at once.
	sk, _ := f.cfg.Catalog.Set().Get("pdf-forms")
	if sk.Scope != skill.ScopeProject || sk.Body != "Use the project's filler." {
		t.Errorf("after create_skill pdf-forms is %+v", sk)
	}
	if _, err := os.Stat(filepath.Join(f.cfg.ProjectDir, "pdf-forms", "scripts", "fill.sh")); err != nil {
		t.Error(err)
	}
	if _, ok := f.sess.State().Meta[CreatedPrefix+"pdf-forms"]; !ok {
		t.Error("the creation is not journaled")
	}
	res = f.call(t, "create_skill", `{"name":"pdf-forms","description":"again","body":"x"}`)
	if res.Success || !strings.Contains(res.Error, "already exists") {
		t.Errorf("second create_skill = %+v", res)
	}
	res = f.call(t, "create_skill", `{"name":"x","description":"d","body":"b","files":{"../escape":"x"}}`)
	if res.Success {
		t.Errorf("create_skill with ../escape = %+v", res)
	}
	if tl := CreateSkill(f.cfg); tl.Spec().Annotations.ReadOnly {
		t.Error("create_skill is read-only, so the policy would not ask")
	}
}

func TestListPlugins(t *testing.T) {
	lister := PluginListerFunc(func() ([]PluginInfo, error) {
		return []PluginInfo{{Name: "lint-helper", Version: "0.3.0", Enabled: true, Contents: []string{"command /review"}}, {Name: "other", Changed: true}}, nil
	})
	tl := ListPlugins(lister)
	if err := tooltest.Check(t.Context(), tl, tooltest.Cases{Valid: []string{`{}`}, Invalid: []string{`{"a":1}`}}); err != nil {
		t.Error(err)
	}
	res, err := tl.Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{}`))
	if err != nil || !strings.Contains(res.Output, "- lint-helper 0.3.0 (enabled)") || !strings.Contains(res.Output, "command /review") || !strings.Contains(res.Output, "changed since the user trusted it") {
		t.Errorf("list_plugins = %+v, %v", res, err)
	}
	res, _ = ListPlugins(nil).Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{}`))
	if res.Output != "No plugins are installed." {
		t.Errorf("list_plugins without plugins = %q", res.Output)
	}
}
