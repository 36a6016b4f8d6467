package fstree

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFiles(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".gitignore":        "build/\n*.log\n",
		"a.md":              "a",
		"build/out.md":      "hidden",
		"docs/b.txt":        "b",
		"docs/x.log":        "hidden",
		".wield/index/z.md": "state",
		"link.md":           "->a.md",
	})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct {
		start string
		want  []string
	}{
		{".", []string{".gitignore", "a.md", "docs/b.txt", "link.md"}},
		{"docs", []string{"docs/b.txt"}},
		{"docs/x.log", []string{"docs/x.log"}}, // asked for by name
	} {
		files, err := Files(t.Context(), root, tc.start, Config{})
		if err != nil {
			t.Fatalf("Files(%q): %v", tc.start, err)
		}
		var got []string
		for _, f := range files {
			got = append(got, f.Path)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Files(%q) (-want +got):\n%s", tc.start, diff)
		}
	}
	for _, bad := range []string{"../x", "/etc", "missing"} {
		if _, err := Files(t.Context(), root, bad, Config{}); err == nil {
			t.Errorf("Files(%q) succeeded, want an error", bad)
		}
	}
}
