package tool

import (
	"regexp"
	"strings"
	"testing"
)

// namePattern is the rule validName implements, as a regular expression.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,128}$`)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"read_file", true},
		{"mcp__srv__a.b-c", true},
		{"A", true},
		{strings.Repeat("x", 128), true},
		{strings.Repeat("x", 129), false},
		{"", false},
		{"has space", false},
		{"slash/name", false},
		{"star*", false},
		{"trailing\n", false},
		{"é", false},
		{"nul\x00", false},
	}
	for _, tt := range tests {
		if got := validName(tt.name); got != tt.want {
			t.Errorf("validName(%q) = %v, want %v", tt.name, got, tt.want)
		}
		if got := namePattern.MatchString(tt.name); got != tt.want {
			t.Errorf("namePattern matches %q = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzValidName checks the property that validName agrees with the
// regular expression it replaces on every input.
func FuzzValidName(f *testing.F) {
	for _, s := range []string{"read_file", "", "a b", strings.Repeat("y", 128), strings.Repeat("y", 129), "é", "x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validName(s), namePattern.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, regular expression says %v", s, got, want)
		}
	})
}
