//go:build !race

package schema

import "testing"

// The allocation budgets live in this file, built only without the race
// detector (which allocates): scripts/test.sh runs them in a pass of
// their own, so they run in CI and nothing is skipped.

// TestQuickValidator_NoAllocs keeps the quick path's common case free of
// allocations.
func TestQuickValidator_NoAllocs(t *testing.T) {
	s := MustCompile([]byte(quickSchemas[0]))
	doc := []byte(`{"path":"src/main.go","limit":20,"force":true}`)
	if n := testing.AllocsPerRun(100, func() {
		if s.Validate(doc) != nil {
			t.Fatal("invalid")
		}
	}); n != 0 {
		t.Errorf("Validate allocates %v times per call, want 0", n)
	}
	s = MustCompile([]byte(quickSchemas[1]))
	doc = []byte(`{"mode":"b","tags":["x","y\n"],"n":1.5e3}`)
	if n := testing.AllocsPerRun(100, func() {
		if s.Validate(doc) != nil {
			t.Fatal("invalid")
		}
	}); n != 0 {
		t.Errorf("Validate allocates %v times per call, want 0", n)
	}
}
