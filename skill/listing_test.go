package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func manySkills(n int) []*Skill {
	var out []*Skill
	for i := range n {
		out = append(out, &Skill{Name: fmt.Sprintf("skill-%03d", i), Path: fmt.Sprintf("/ws/.agents/skills/skill-%03d/SKILL.md", i),
			Description: fmt.Sprintf("Skill number %d handles %s. Use it when the task mentions topic %d or its files.", i, strings.Repeat("detail ", i%7+1), i)})
	}
	return out
}

func TestListingBudget(t *testing.T) {
	skills := manySkills(30)
	full, ok := Listing(skills, 0)
	if !ok || !strings.Contains(full, skills[29].Description) {
		t.Fatalf("Listing without a budget cut a description")
	}
	t.Run("fits", func(t *testing.T) {
		got, ok := Listing(skills, len(full))
		if !ok || got != full {
			t.Errorf("Listing at its own length changed it")
		}
	})
	t.Run("shortened evenly", func(t *testing.T) {
		budget := len(full) * 3 / 4
		got, ok := Listing(skills, budget)
		if !ok || len(got) > budget {
			t.Fatalf("Listing(%d) = %d bytes, ok %v", budget, len(got), ok)
		}
		// Every skill is still listed, and no description is longer
		// than the cut while a longer original was cut to it.
		longest := 0
		for _, s := range skills {
			if !strings.Contains(got, "- "+s.Name+": ") {
				t.Errorf("%s was dropped", s.Name)
			}
		}
		for line := range strings.SplitSeq(got, "\n") {
			if _, d, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(line, "- ") {
				d = d[:strings.LastIndex(d, " (")]
				longest = max(longest, utf8.RuneCountInString(d))
				if strings.HasSuffix(d, "…") && utf8.RuneCountInString(d) < MinDescription-1 {
					t.Errorf("description cut below the minimum: %q", d)
				}
			}
		}
		if longest < MinDescription {
			t.Errorf("longest description %d < %d", longest, MinDescription)
		}
	})
	t.Run("over budget", func(t *testing.T) {
		if got, ok := Listing(skills, 500); ok {
			t.Errorf("Listing(500) = ok with %d bytes; want a search instead", len(got))
		}
	})
	t.Run("hidden skills", func(t *testing.T) {
		got, _ := Listing([]*Skill{{Name: "secret-op", Description: "d", ModelHidden: true}}, 0)
		if got != "" {
			t.Errorf("a model-hidden skill is listed: %q", got)
		}
	})
}

func TestBudget(t *testing.T) {
	for window, want := range map[int]int{0: MinBudget, 200_000: 8000, 1_000_000: 40000} {
		if got := Budget(window); got != want {
			t.Errorf("Budget(%d) = %d, want %d", window, got, want)
		}
	}
}

func TestSearch(t *testing.T) {
	set, _ := Load(fixtureRoots(t)...)
	hits := set.Search("totals for a CSV export", 3)
	if len(hits) == 0 || hits[0].Skill.Name != "csv-report" {
		t.Fatalf("Search = %v; want csv-report first", hits)
	}
	if got := set.Search("health endpoints deployment", 5); len(got) != 0 {
		t.Errorf("Search found a model-hidden skill: %v", got[0].Skill.Name)
	}
	if got := set.Search("  ", 5); got != nil {
		t.Errorf("Search of nothing = %v", got)
	}
}

func TestCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	n := NewSkill{Name: "lint-fix", Description: "Fixes lint findings.", Body: "Run the linter.",
		Files: map[string]string{"scripts/fix.sh": "#!/bin/sh\necho fix\n", "references/rules.md": "rules"}}
	got, err := Create(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	set, problems := Load(Root{Dir: dir, Scope: ScopeProject})
	s, ok := set.Get("lint-fix")
	if !ok || len(problems) != 0 || s.Dir != got || s.Body != "Run the linter." {
		t.Fatalf("created skill reads back as %+v, problems %v", s, problems)
	}
	tree, _, _ := s.Tree()
	if want := "SKILL.md references/ references/rules.md scripts/ scripts/fix.sh"; strings.Join(tree, " ") != want {
		t.Errorf("Tree = %v, want %s", tree, want)
	}
	if got := Scripts(tree); len(got) != 1 || got[0] != "scripts/fix.sh" {
		t.Errorf("Scripts = %v", got)
	}
	if _, err := Create(dir, n); err == nil || !strings.Contains(err.Error(), ErrExists.Error()) {
		t.Errorf("second Create error = %v, want ErrExists", err)
	}
	for _, bad := range []map[string]string{{"../x": ""}, {"/abs": ""}, {"SKILL.md": ""}} {
		n := n
		n.Name, n.Files = "other", bad
		if _, err := Create(dir, n); err == nil {
			t.Errorf("Create with files %v succeeded", bad)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the skills directory holds %d entries, want 1 (no temporary left)", len(entries))
	}
}

// BenchmarkLoadAndList loads 200 skills from disk and builds the
// listing within the default budget of a 1M-token window (at 200k the
// 200 skills do not fit and the listing gives way to skill_search). It
// reports the 50th and 99th percentiles of one load and listing.
func BenchmarkLoadAndList(b *testing.B) {
	dir := b.TempDir()
	for _, s := range manySkills(200) {
		n := NewSkill{Name: s.Name, Description: s.Description, Body: strings.Repeat("Step.\n", 50)}
		if _, err := Create(dir, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		set, problems := Load(Root{Dir: dir, Scope: ScopeProject})
		if set.Len() != 200 || len(problems) != 0 {
			b.Fatalf("loaded %d skills, problems %v", set.Len(), problems)
		}
		if text, _ := Listing(set.All(), Budget(1_000_000)); text == "" {
			b.Fatal("no listing")
		}
		times = append(times, time.Since(start))
	}
	reportPercentiles(b, times)
}

// BenchmarkListing builds the listing of 200 loaded skills, shortening
// their descriptions to a 200k window's budget.
func BenchmarkListing(b *testing.B) {
	skills := manySkills(200)
	b.ReportAllocs()
	for b.Loop() {
		Listing(skills, Budget(200_000)*3)
	}
}

func reportPercentiles(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	at := func(q float64) float64 { return float64(times[min(len(times)-1, int(q*float64(len(times))))]) }
	b.ReportMetric(at(0.50), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	src, _ := filepath.Abs("testdata/ws/.agents/skills/csv-report")
	sk, problems, err := Install(dir, src)
	if err != nil || len(problems) != 0 {
		t.Fatalf("Install = %v, %v", err, problems)
	}
	tree, _, _ := sk.Tree()
	if got := strings.Join(Scripts(tree), " "); got != "scripts/table.sh" {
		t.Errorf("installed scripts = %q", got)
	}
	if _, _, err := Install(dir, src); err == nil || !strings.Contains(err.Error(), ErrExists.Error()) {
		t.Errorf("second Install error = %v", err)
	}
	broken, _ := filepath.Abs("testdata/ws/.wield/skills/broken")
	if _, _, err := Install(dir, broken); err == nil {
		t.Error("a broken skill was installed")
	}
}
