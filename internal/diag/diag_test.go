package diag

import "testing"

func TestProblem_Error(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "a.md", Line: 3, Severity: Warning, Msg: "unknown key"}, "a.md:3: warning: unknown key"},
		{Problem{Path: "a.md", Severity: Error, Msg: "skipped"}, "a.md: error: skipped"},
		{Problem{Line: 2, Severity: Info, Msg: "ignored"}, "line 2: info: ignored"},
		{Problem{Severity: Info, Msg: "m"}, "info: m"},
		{Problem{Severity: Severity(7), Msg: "m"}, "severity(7): m"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", tt.p, got, tt.want)
		}
	}
}
