package fs

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
)

// unifiedText writes hunks in diff -u's form, without file headers.
func unifiedText(hunks []Hunk) string {
	var b strings.Builder
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%c%s\n", l.Kind, l.Text)
		}
	}
	return b.String()
}

// TestDiffMatchesDiffU: on a change diff -u has one answer for, Diff's
// hunks are diff -u's, line for line (diff writes ",1" counts the short
// way, so both are compared in the long form).
func TestDiffMatchesDiffU(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Fatal("diff is needed as the oracle")
	}
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old"), []byte(old), 0o644)
	os.WriteFile(filepath.Join(dir, "new"), []byte(new), 0o644)
	out, _ := exec.Command("diff", "-U2", filepath.Join(dir, "old"), filepath.Join(dir, "new")).Output()
	lines := strings.SplitAfter(string(out), "\n")[2:] // drop the file headers
	want := strings.Join(lines, "")
	if diff := cmp.Diff(want, unifiedText(Diff(old, new, 2))); diff != "" {
		t.Errorf("Diff differs from diff -U2 (-want +got):\n%s", diff)
	}
}

// TestDiffPatchesBack: patch(1), given Diff's hunks, turns the old text
// into the new one, for random edits of random texts.
func TestDiffPatchesBack(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Fatal("patch is needed as the oracle")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "  d", "\te", ""}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))] + "\n")
		}
		return b.String()
	}
	for i := range 40 {
		old, new := text(rng.IntN(30)), text(rng.IntN(30))
		if old == new {
			continue
		}
		dir := t.TempDir()
		f := filepath.Join(dir, "f")
		os.WriteFile(f, []byte(old), 0o644)
		p := "--- f\n+++ f\n" + unifiedText(Diff(old, new, 3))
		cmd := exec.Command("patch", "-s", "-p0", f)
		cmd.Stdin = strings.NewReader(p)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v\n%s\npatch:\n%s", i, err, out, p)
		}
		got, _ := os.ReadFile(f)
		if string(got) != new {
			t.Fatalf("case %d: patched = %q, want %q", i, got, new)
		}
	}
}

func TestPreview(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := &tool.Call{Root: root}
	tests := []struct {
		name, tool, args string
		want             Change
		wantErr          string
	}{
		{"replace", "replace", `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"hello\")"}`,
			Change{Path: "main.go", Old: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", New: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}, ""},
		{"write new", "write_file", `{"path":"new.txt","content":"x\r\ny\n"}`, Change{Path: "new.txt", New: "x\ny\n", Created: true}, ""},
		{"no match", "replace", `{"path":"main.go","old_string":"nothing","new_string":"x"}`, Change{}, "was not found in main.go"},
		{"escape", "write_file", `{"path":"../x","content":""}`, Change{}, "outside"},
		{"other tool", "read_file", `{"path":"main.go"}`, Change{}, "not a file-editing tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Preview(c, tt.tool, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Preview error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Preview (-want +got):\n%s", diff)
			}
		})
	}
}
