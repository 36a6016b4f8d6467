package shellcmd

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// lit and dyn build static and dynamic words for the tables.
func lit(vs ...string) []Word {
	ws := make([]Word, len(vs))
	for i, v := range vs {
		ws[i] = Word{Value: v}
	}
	return ws
}

func dyn(v string) Word { return Word{Value: v, Dynamic: true} }

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []Command
	}{
		{"empty", "", nil},
		{"blank and comment", "  \n # only a comment\n", nil},
		{"one command", "ls -la", []Command{{Args: lit("ls", "-la")}}},
		{"and or list", "make && make test || echo failed",
			[]Command{{Args: lit("make")}, {Args: lit("make", "test")}, {Args: lit("echo", "failed")}}},
		{"semicolons and newlines", "a; b\nc", []Command{{Args: lit("a")}, {Args: lit("b")}, {Args: lit("c")}}},
		{"pipeline", "git log | head -n 5",
			[]Command{{Args: lit("git", "log"), Context: InPipeline}, {Args: lit("head", "-n", "5"), Context: InPipeline}}},
		{"pipe with stderr", "make |& tee log",
			[]Command{
				{Args: lit("make"), Context: InPipeline, Redirects: []Redirect{{Op: ">&", Fd: "2", Target: Word{Value: "1"}, Output: true}}},
				{Args: lit("tee", "log"), Context: InPipeline}}},
		{"subshell", "(cd /tmp && rm -rf x)",
			[]Command{{Args: lit("cd", "/tmp"), Context: InSubshell}, {Args: lit("rm", "-rf", "x"), Context: InSubshell}}},
		{"command substitution", `echo "$(whoami)"`,
			[]Command{{Args: lit("whoami"), Context: InSubstitution}, {Args: []Word{{Value: "echo"}, dyn(`"$(whoami)"`)}}}},
		{"backquotes", "echo `date`",
			[]Command{{Args: lit("date"), Context: InSubstitution}, {Args: []Word{{Value: "echo"}, dyn("`date`")}}}},
		{"nested substitution", "a $(b $(c))",
			[]Command{{Args: lit("c"), Context: InSubstitution}, {Args: []Word{{Value: "b"}, dyn("$(c)")}, Context: InSubstitution},
				{Args: []Word{{Value: "a"}, dyn("$(b $(c))")}}}},
		{"process substitution", "diff <(ls a) >(wc -l)",
			[]Command{{Args: lit("ls", "a"), Context: InProcessSubstitution}, {Args: lit("wc", "-l"), Context: InProcessSubstitution},
				{Args: []Word{{Value: "diff"}, dyn("<(ls a)"), dyn(">(wc -l)")}}}},
		{"substitution in parameter default", "echo ${X:-$(id -u)}",
			[]Command{{Args: lit("id", "-u"), Context: InSubstitution}, {Args: []Word{{Value: "echo"}, dyn("${X:-$(id -u)}")}}}},
		{"background", "sleep 10 & echo hi",
			[]Command{{Args: lit("sleep", "10"), Context: InBackground}, {Args: lit("echo", "hi")}}},
		{"quotes and escapes", `printf '%s\n' "a b" a\ b 'it''s' "\$HOME" $'tab\there\x41'`,
			[]Command{{Args: lit("printf", `%s\n`, "a b", "a b", "its", "$HOME", "tab\thereA")}}},
		{"dynamic words", `rm $DIR/*.go ~/x {a,b} *.txt "$@"`,
			[]Command{{Args: []Word{{Value: "rm"}, dyn("$DIR/*.go"), dyn("~/x"), dyn("{a,b}"), dyn("*.txt"), dyn(`"$@"`)}}}},
		{"bracket is not a glob alone", "[ -f go.mod ]", []Command{{Args: lit("[", "-f", "go.mod", "]")}}},
		{"dynamic command name", "$EDITOR file", []Command{{Args: []Word{dyn("$EDITOR"), {Value: "file"}}}}},
		{"assignments", "GOOS=linux CGO_ENABLED=0 go build",
			[]Command{{Args: lit("go", "build"), Assigns: []Assign{{Name: "GOOS", Value: Word{Value: "linux"}}, {Name: "CGO_ENABLED", Value: Word{Value: "0"}}}}}},
		{"assignment only", "X=$(pwd)",
			[]Command{{Args: lit("pwd"), Context: InSubstitution}, {Assigns: []Assign{{Name: "X", Value: dyn("$(pwd)")}}}}},
		{"assignment tilde", "P=a:~/bin make", []Command{{Args: lit("make"), Assigns: []Assign{{Name: "P", Value: dyn("a:~/bin")}}}}},
		{"redirections", "cmd <in.txt >out.txt 2>>err.log 3<>rw &>all",
			[]Command{{Args: lit("cmd"), Redirects: []Redirect{
				{Op: "<", Target: Word{Value: "in.txt"}},
				{Op: ">", Target: Word{Value: "out.txt"}, Output: true},
				{Op: ">>", Fd: "2", Target: Word{Value: "err.log"}, Output: true},
				{Op: "<>", Fd: "3", Target: Word{Value: "rw"}, Output: true},
				{Op: "&>", Target: Word{Value: "all"}, Output: true},
			}}}},
		{"redirection only", "> truncated.txt",
			[]Command{{Redirects: []Redirect{{Op: ">", Target: Word{Value: "truncated.txt"}, Output: true}}}}},
		{"redirection of a compound command", "{ a; b > inner; } > outer",
			[]Command{
				{Args: lit("a"), Redirects: []Redirect{{Op: ">", Target: Word{Value: "outer"}, Output: true}}},
				{Args: lit("b"), Redirects: []Redirect{{Op: ">", Target: Word{Value: "inner"}, Output: true}, {Op: ">", Target: Word{Value: "outer"}, Output: true}}}}},
		{"here-document", "cat <<EOF\nhello\nEOF",
			[]Command{{Args: lit("cat"), Redirects: []Redirect{{Op: "<<", Target: Word{Value: "hello\n"}}}}}},
		{"here-document with substitution", "cat <<EOF\n$(id)\nEOF",
			[]Command{{Args: lit("id"), Context: InSubstitution}, {Args: lit("cat"), Redirects: []Redirect{{Op: "<<", Target: dyn("$(id)\n")}}}}},
		{"quoted here-document", "cat <<'EOF'\n$(id)\nEOF",
			[]Command{{Args: lit("cat"), Redirects: []Redirect{{Op: "<<", Target: Word{Value: "$(id)\n"}}}}}},
		{"here-string", "grep x <<< 'a x'",
			[]Command{{Args: lit("grep", "x"), Redirects: []Redirect{{Op: "<<<", Target: Word{Value: "a x"}}}}}},
		{"if while for case", "if test -f a; then rm a; elif b; then c; else d; fi; while read l; do e; done; for f in $(ls); do g \"$f\"; done; case $x in y) h;; esac",
			[]Command{{Args: lit("test", "-f", "a")}, {Args: lit("rm", "a")}, {Args: lit("b")}, {Args: lit("c")}, {Args: lit("d")},
				{Args: lit("read", "l")}, {Args: lit("e")}, {Args: lit("ls"), Context: InSubstitution}, {Args: []Word{{Value: "g"}, dyn(`"$f"`)}}, {Args: lit("h")}}},
		{"function body", "f() { rm -rf /; }; f",
			[]Command{{Args: lit("rm", "-rf", "/"), Context: InFunction}, {Args: lit("f")}}},
		{"declare and export", "export A=b C; local -r D=$(e)",
			[]Command{{Args: lit("export", "A=b", "C")}, {Args: lit("e"), Context: InSubstitution}, {Args: []Word{{Value: "local"}, {Value: "-r"}, dyn("D=$(e)")}}}},
		{"test clause", "[[ -n $x && $(id -u) == 0 ]]",
			[]Command{{Args: lit("id", "-u"), Context: InSubstitution}, {Args: []Word{{Value: "[["}, {Value: "-n"}, dyn("$x"), {Value: "&&"}, dyn("$(id -u)"), {Value: "=="}, {Value: "0"}, {Value: "]]"}}}}},
		{"arithmetic command", "(( n = $(wc -l < f) ))",
			[]Command{{Args: lit("wc", "-l"), Context: InSubstitution, Redirects: []Redirect{{Op: "<", Target: Word{Value: "f"}}}}, {Args: []Word{{Value: "(("}, dyn("n = $(wc -l < f)"), {Value: "))"}}}}},
		{"time and negation", "time false; ! true", []Command{{Args: lit("false")}, {Args: lit("true")}}},
		{"coproc", "coproc cat", []Command{{Args: lit("cat"), Context: InBackground}}},
		{"background subshell pipeline", "(a | b) &",
			[]Command{{Args: lit("a"), Context: InSubshell | InBackground | InPipeline}, {Args: lit("b"), Context: InSubshell | InBackground | InPipeline}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.line)
			if err != nil {
				t.Fatalf("Split(%q): %v", tt.line, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Command{}, "Start", "End"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.line, diff)
			}
			checkInvariants(t, tt.line, got)
		})
	}
}

func TestSplitSpans(t *testing.T) {
	line := "cd web && npm test 2>&1 | tee log.txt; X=1 env"
	cmds, err := Split(line)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, line[c.Start:c.End])
	}
	want := []string{"cd web", "npm test", "tee log.txt", "X=1 env"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

func TestSplitErrors(t *testing.T) {
	for _, line := range []string{
		"echo 'unterminated",
		"echo $(",
		"a &&",
		"| b",
		"if true; then",
		"(a",
		"cat <<",
	} {
		if cmds, err := Split(line); err == nil {
			t.Errorf("Split(%q) = %v, nil; want a parse error", line, cmds)
		} else if !strings.HasPrefix(err.Error(), "parse command line: ") {
			t.Errorf("Split(%q) error %q does not say what failed", line, err)
		}
	}
}

func TestRedirectFile(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"a > f", true},
		{"a 2>&1", false},
		{"a >&-", false},
		{"a >&log", true},
		{"a >&$fd", true},
		{"a < f", true},
		{"a <<< s", false},
		{"a <<E\nx\nE", false},
	}
	for _, tt := range tests {
		cmds, err := Split(tt.line)
		if err != nil || len(cmds) != 1 || len(cmds[0].Redirects) != 1 {
			t.Fatalf("Split(%q) = %v, %v; want one command with one redirection", tt.line, cmds, err)
		}
		if got := cmds[0].Redirects[0].File(); got != tt.want {
			t.Errorf("Split(%q): File() = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestContextString(t *testing.T) {
	if got, want := (InSubshell | InPipeline).String(), "subshell|pipeline"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := Context(0).String(); got != "" {
		t.Errorf("Context(0).String() = %q, want empty", got)
	}
	c := Command{Args: []Word{dyn("$x")}}
	if c.Name() != "" {
		t.Errorf("Name() of a dynamic command = %q, want empty", c.Name())
	}
}

// TestStaticWordsMatchBash runs printf through Bash for lines whose words
// are all static and checks that Split decoded each word as Bash does.
func TestStaticWordsMatchBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, line := range []string{
		`printf '%s\0' a\ b "c\"d" 'e\f' $'g\th\x42\u00e9\101\cA' "x\$y\\z\q" a\\b ''`,
		`printf '%s\0' "multi
line" a\
b [ ] '*' "?" \* x=y --flag=1`,
	} {
		cmds, err := Split(line)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("Split(%q) = %v, %v", line, cmds, err)
		}
		var want []string
		for _, w := range cmds[0].Args[2:] {
			if w.Dynamic {
				t.Fatalf("Split(%q): word %q is dynamic; the test needs static words", line, w.Value)
			}
			want = append(want, w.Value)
		}
		out, err := exec.Command(bash, "-c", line).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", line, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("words of %q (-bash +Split):\n%s", line, diff)
		}
	}
}

// checkInvariants checks what must hold for any line Split accepts.
func checkInvariants(t *testing.T, line string, cmds []Command) {
	t.Helper()
	for i, c := range cmds {
		if c.Start < 0 || c.Start > c.End || c.End > len(line) {
			t.Fatalf("Split(%q): command %d spans [%d,%d) outside the line", line, i, c.Start, c.End)
		}
		if len(c.Args) == 0 && len(c.Assigns) == 0 && len(c.Redirects) == 0 {
			t.Errorf("Split(%q): command %d is empty", line, i)
		}
		for _, w := range c.Args {
			if w.Dynamic && w.Value == "" {
				t.Errorf("Split(%q): command %d has a dynamic word without source text", line, i)
			}
			if w.Dynamic && utf8.ValidString(line) && !strings.Contains(line, w.Value) {
				t.Errorf("Split(%q): dynamic word %q is not source text", line, w.Value)
			}
		}
		for _, r := range c.Redirects {
			if r.Op == "" {
				t.Errorf("Split(%q): command %d has a redirection without an operator", line, i)
			}
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"", "ls -la", "a && b || c; d | e |& f", "(a; b) > out 2>&1 &", `echo "$(date)" $(id) ` + "`uname`",
		"diff <(ls) >(wc)", "f() { g; }; f", "for i in $(seq 3); do echo $i; done", "case $x in a) b;; esac",
		"cat <<EOF\n$(x)\nEOF\n", "cat <<'E'\n$y\nE\n", "X=1 Y=(a b) z", "export A=$(b) c", "[[ -f a || $(b) ]]",
		"(( i = $(j) ))", "let x=1+2", "coproc c", "time a; ! b", `printf $'\x41\101\cA\u00e9' a\ b "c\"d"`,
		"a >&- <&3 3>&1- &>> f <> g <<< h", "{a,b} ~/x *.go [ab] x=~/y", "if a; then b; elif c; then d; else e; fi",
		"while a; do b; done; until c; do d; done; select x in y; do z; done", "for ((i=0;i<$(n);i++)); do :; done",
		"echo 'unterminated", "${x:-$(rm -rf /)}", "a[$(b)]=c d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := Split(line)
		if err != nil {
			if cmds != nil {
				t.Fatalf("Split(%q) returned commands with an error", line)
			}
			return
		}
		checkInvariants(t, line, cmds)
		again, err := Split(line)
		if err != nil || !cmp.Equal(cmds, again, cmpopts.EquateEmpty()) {
			t.Fatalf("Split(%q) is not deterministic", line)
		}
	})
}
