package main

import "testing"

func TestUsageLine(t *testing.T) {
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
	if got := tokens(1048576); got != "1.05M" {
		t.Errorf("tokens = %q", got)
	}
}

func TestCompactCommand(t *testing.T) {
	for _, tt := range []struct {
		line, focus string
		ok          bool
	}{
		{"/compact", "", true},
		{"/compact   the tests ", "the tests", true},
		{"/compact\tfiles", "files", true},
		{"/compactor", "", false},
		{"compact it", "", false},
	} {
		focus, ok := compactCommand(tt.line)
		if focus != tt.focus || ok != tt.ok {
			t.Errorf("compactCommand(%q) = %q, %v; want %q, %v", tt.line, focus, ok, tt.focus, tt.ok)
		}
	}
}
