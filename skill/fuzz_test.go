package skill

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics and that a skill it returns
// satisfies the specification's limits: a valid name and a description of
// 1 to MaxDescriptionLen characters on one line.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\nbody"), "a")
	f.Add([]byte("---\nname: Legacy Name\ndescription: >\n  folded\n  text\nmetadata: {a: 1}\n---\n"), "x")
	f.Add([]byte("---\nallowed-tools: [a, {b: c}]\n---\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		s, _ := Parse(data, dir)
		if s == nil {
			return
		}
		if !ValidName(s.Name) {
			t.Fatalf("Parse returned the invalid name %q", s.Name)
		}
		n := utf8.RuneCountInString(s.Description)
		if n == 0 || n > MaxDescriptionLen {
			t.Fatalf("Parse returned a description of %d characters", n)
		}
		for _, r := range s.Description {
			if r == '\n' {
				t.Fatalf("description %q has a line break", s.Description)
			}
		}
	})
}
