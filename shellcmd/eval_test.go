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

// FuzzParse: Parse returns the commands Split returns, and every eval's
// text is the line's text at its offsets.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`a='x[$(id)]'; echo $((a))`, `echo ${x@P} ${!x} ${a[i]}`, `declare -i n; let n`, `[[ $a -eq 1 ]]`, "echo <<EOF\n${x:-'$(id)'}\nEOF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		l, err := Parse(line)
		cmds, serr := Split(line)
		if (err == nil) != (serr == nil) {
			t.Fatalf("Parse(%q) error %v, Split error %v", line, err, serr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(cmds, l.Commands); diff != "" {
			t.Fatalf("Parse(%q).Commands differ from Split (-split +parse):\n%s", line, diff)
		}
		for _, e := range l.Evals {
			if e.Start < 0 || e.End > len(line) || e.Start > e.End || line[e.Start:e.End] != e.Text || e.What == "" || e.Why == "" {
				t.Fatalf("Parse(%q): eval %+v does not match the line", line, e)
			}
		}
	})
}
