package shellcmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse_Evals(t *testing.T) {
	tests := []struct {
		line string
		want []string // Eval.What of each eval, in order
	}{
		{`echo $x "${y:-z}" $(echo $((1+2)))`, nil},
		{`a='x[$(touch p)]'; echo $((a))`, []string{"arithmetic expansion"}},
		{`x='$(touch p)'; echo ${x@P}`, []string{"prompt expansion"}},
		{`c=echo; $c hi`, []string{"computed command name"}},
		{`echo ${!x} ${a[i]} ${x:n}`, []string{"indirect expansion", "array subscript", "substring expansion"}},
		{`[[ $a -eq 1 || -v a[1] ]]`, []string{"[[ ]] comparison", "[[ ]] test"}},
		{`declare -i n; let n; (( n ))`, []string{"the declare builtin", "the let builtin", "arithmetic command"}},
		{`read -r v; unset v; printf '%s' x`, nil},
		{`echo hi {a[x]}>/dev/null <&"$v"`, []string{"redirection into a variable", "redirection <&"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			l, err := Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range l.Evals {
				got = append(got, e.What)
				if tt.line[e.Start:e.End] != e.Text || !strings.HasPrefix(e.String(), e.What+" "+e.Text+" ") {
					t.Errorf("eval %+v: text and offsets disagree", e)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) evals (-want +got):\n%s", tt.line, diff)
			}
			cmds, _ := Split(tt.line)
			if diff := cmp.Diff(cmds, l.Commands); diff != "" {
				t.Errorf("Parse(%q).Commands differ from Split (-split +parse):\n%s", tt.line, diff)
			}
		})
	}
	if _, err := Parse("echo 'x"); err == nil {
		t.Error("Parse of an unterminated quote succeeded")
	}
}
