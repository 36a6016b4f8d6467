package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
)

// The differential test and the fuzz target below judge command lines with
// the policy and run the lines it allows under real Bash, with payloads
// such as x[$(touch CANARY)] in variable values, subscripts and words.
// Bash, not shellcmd, is the oracle: an allowed line that makes Bash run
// the payload creates the canary.

// bashCanary runs command lines under bash and reports whether they ran
// touch. PATH holds only a touch of its own, which writes a marker at an
// absolute path whatever directory the line has moved to; no other
// program can run. A bashCanary is used by one goroutine at a time.
type bashCanary struct {
	bash   string
	root   string // scratch directories are made here
	bin    string // PATH: a touch that writes marker
	marker string
}

// findBash returns the path of bash, failing the test when it is missing
// and CI is set, skipping it otherwise.
func findBash(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("bash is not installed, and the differential test needs it in CI")
	}
	t.Skip("bash is not installed")
	return ""
}

func newBashCanary(t testing.TB, bash string) *bashCanary {
	t.Helper()
	root := t.TempDir()
	c := &bashCanary{bash: bash, root: root, bin: filepath.Join(root, "bin"), marker: filepath.Join(root, "CANARY-RAN")}
	if err := os.Mkdir(c.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := fmt.Sprintf("#!%s\n: > '%s'\n", bash, c.marker)
	if err := os.WriteFile(filepath.Join(c.bin, "touch"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

// run runs line with bash --norc --noprofile -c in a fresh scratch
// directory, with a minimal environment and a short time limit after
// which its process group is killed, and reports whether the canary was
// created: the touch marker, or a file named CANARY in the directory.
func (c *bashCanary) run(ctx context.Context, line string) (bool, error) {
	if strings.IndexByte(line, 0) >= 0 {
		return false, nil // no program can receive a NUL in an argument
	}
	dir, err := os.MkdirTemp(c.root, "run")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bash, "--norc", "--noprofile", "-c", line)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + c.bin, "HOME=" + dir, "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start bash: %w", err)
	}
	_ = cmd.Wait() // most generated lines fail; only the canary matters
	// Background jobs may outlive the shell: kill what is left of the group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	fired := false
	if _, err := os.Stat(c.marker); err == nil {
		fired = true
		if err := os.Remove(c.marker); err != nil {
			return true, err
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "CANARY*")); len(m) > 0 {
		fired = true
	}
	return fired, nil
}

// lineGen generates command lines from a small grammar of Bash's
// expansions, assignments and compound commands, with payloads that
// create the canary when Bash evaluates them as code.
type lineGen struct {
	r        *rand.Rand
	names    []string
	payloads []string
	cur      string // the variable a line mostly uses
	echoOnly bool   // whether the line's commands are all echo
}

func newLineGen(seed uint64) *lineGen {
	return &lineGen{
		r:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		names: []string{"a", "x", "i", "v"},
		payloads: []string{"$(touch CANARY)", "`touch CANARY`", "x[$(touch CANARY)]", "a[$(touch CANARY)]",
			"1+x[$(touch CANARY)]", "([0]=$(touch CANARY))", "[$(touch CANARY)]=1", "-v", "x", "0", "i"},
	}
}

func (g *lineGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// name is mostly the line's own variable, so that a payload stored in
// it meets the expansions that read it.
func (g *lineGen) name() string {
	if g.cur != "" && g.r.IntN(5) > 0 {
		return g.cur
	}
	return g.names[g.r.IntN(len(g.names))]
}

// value is a word whose value is a payload, usually single-quoted so that
// the assignment stores it unevaluated.
func (g *lineGen) value() string {
	p := g.payloads[g.r.IntN(len(g.payloads))]
	switch g.r.IntN(10) {
	case 0:
		return `"` + p + `"`
	case 1:
		return p
	}
	return "'" + p + "'"
}

func (g *lineGen) sub() string {
	return g.pick("0", "@", "*", "$i", "i", "$x", "x", "$(touch CANARY)", "${!x}", "$((i))")
}

// setup assigns a payload somewhere.
func (g *lineGen) setup() string {
	n, v := g.name(), g.value()
	if g.echoOnly {
		return n + "=" + v
	}
	f := g.pick(
		"N=V", "N=V", "N=V", "N=V", "N=V", "N=V", "N=V", "N=V", "N+=V", "N=(1 V)", "N[S]=V", "N=([S]=V)", "declare N=V", "declare -i N=V", "declare -i N",
		"declare -a N=V", "declare -A N", "declare -n N=V", "typeset -i N=V", "local N=V", "export N=V", "readonly N=V",
		"read N <<< V", "read -a N <<< V", "IFS= read -r N <<< V", "printf -v N %s V", "mapfile -t N <<< V",
		"let N=1", `let "N=V"`, `N=(1); declare N="($x)"`, `N=(1); export N="($x)"`, `N=(1); readonly N="($x)"`,
		`N=(1); typeset N="($a)"`, `f() { local N=(1); local N="($x)"; }; f`, "set -- V", "PS4=V", "N=V; declare -i N", "N=1; N[0]=V", "export N", `N="$N"V`, "shopt -s extglob")
	r := strings.NewReplacer("N", n, "V", v, "S", g.sub())
	return r.Replace(f)
}

// exp is an expansion of a variable, or another word.
func (g *lineGen) exp(depth int) string {
	n := g.name()
	w := g.pick("x", "*", "$x", "1", "'$(touch CANARY)'", "'`touch CANARY`'", `\$(touch CANARY)`, g.value())
	if depth < 2 && g.r.IntN(4) == 0 {
		w = g.exp(depth + 1)
	}
	f := g.pick(
		"$N", "${N}", `"$N"`, "${N:-W}", "${N:=W}", "${N:+W}", "${N:?W}", "${N-W}", "${N+W}", "${N#W}", "${N##W}",
		"${N%W}", "${N%%W}", "${N/W/W}", "${N//W/W}", "${N^}", "${N^^}", "${N,}", "${N,,}", "${#N}", "${!N}", "${!N*}",
		"${!N@}", "${!N[@]}", "${N@P}", "${N@E}", "${N@Q}", "${N@A}", "${N@a}", "${N@U}", "${N@u}", "${N@L}", "${N@K}",
		"${N:1}", "${N:N}", "${N:1:N}", "${N: -1}", "${N[0]}", "${N[N]}", "${N[$N]}", "${N[@]}", `"${N[@]}"`, "${N[*]}",
		"${#N[@]}", "${#N[N]}", "$((N))", "$(($N))", "$((N+1))", "$((1+2))", "$[N]", "$[1]", "$(echo W)", "`echo W`",
		"<(echo W)", ">(echo W)", "{a,b}", "{1..2}", "{$N,b}", "~", "~/W", "$\"W\"", `$'\x41'`, "$1", "$@", "$*", `"$@"`, "$#", "@(W)", "+(a|W)", "!(W)", "?(W)", "*(W|b)",
		"${N:-$((N))}", "${N:-$(echo W)}", `"${N:-W}"`, "x${N}y", "'$N'", "W")
	return strings.NewReplacer("N", n, "W", w).Replace(f)
}

func (g *lineGen) words(depth int) string {
	k := 1 + g.r.IntN(3)
	var ws []string
	for range k {
		ws = append(ws, g.exp(depth))
	}
	return strings.Join(ws, " ")
}

// cmd is a simple command, a test or an arithmetic command.
func (g *lineGen) cmd() string {
	n, e := g.name(), g.exp(0)
	if g.echoOnly {
		f := g.pick("echo E", "echo E E", "echo E E E", "echo -e E", "echo E >&2", "echo E 2>/dev/null", "echo <<< E",
			"echo E <<EOF\nE\nEOF", "echo <<EOF\nE E\nEOF", "echo <<-EOF\n\tE\n\tEOF", "echo hi {N[N]}>/dev/null", `echo hi <&"$N"`, "N[N]=E", "N=E", "case E in *) echo E;; esac")
		return strings.NewReplacer("N", n, "E", e).Replace(f)
	}
	f := g.pick(
		"echo E", "echo E", "echo E E", "echo -e E", "echo E >&2", "echo E 2>/dev/null", "echo hi >&E", `echo hi >&"$N"`,
		`echo hi <&"$N"`, "echo hi {N}>/dev/null", "echo hi {N[N]}>/dev/null", "echo <<< E", "echo E <<EOF\nE\nEOF",
		"echo E <<'EOF'\nE\nEOF", "(( E ))", "((N))", "((N++))", "[[ E -eq 1 ]]", "[[ -v N ]]", "[[ -v E ]]", "[[ E == x ]]",
		"[[ -n E ]]", "[[ E =~ x ]]", "[ E -eq 1 ]", "[ -v E ]", `[ -n "$N" ]`, "test -v N", `[ "$N" ]`, "[ $N ]",
		`[ ! "$N" "$N" ]`, `[ "$N" = E ]`, "let N", `let "N=E"`, "printf -v N x", `printf "$N" x`, "printf '%s' E",
		"printf '%d' E", "printf -v 'N[N]' '%s' E", "read N <<< E", `read "$N" <<< x`, "read -a N <<< E", "unset N",
		`unset "$N"`, "unset 'N[E]'", "export N", `export "$N"`, `declare "$N"`, `declare N="$N"`, "declare -p N",
		"set -- E", "set $N", "set -x", "wait -p N", `shift "$N"`, ": E", "true E", "cd E", `eval "$N"`, "$N", "command echo E",
		"builtin echo E", "builtin let N", "mapfile -t N <<< E", `mapfile -C "$N" -c 1 x <<< x`, `compgen -W "$N" x`,
		`trap "$N" EXIT`, "N=E echo E", "N[N]=E", "case E in *) echo E;; esac")
	return strings.NewReplacer("N", n, "E", e).Replace(f)
}

// compound wraps commands in Bash's compound forms.
func (g *lineGen) compound(depth int) string {
	inner := func() string {
		if depth < 2 && g.r.IntN(3) == 0 {
			return g.compound(depth + 1)
		}
		return g.cmd()
	}
	n := g.name()
	switch g.r.IntN(18) {
	case 0:
		return "if " + inner() + "; then " + inner() + "; else " + inner() + "; fi"
	case 1:
		return "for " + n + " in " + g.words(0) + "; do " + inner() + "; done"
	case 2:
		return "for ((" + g.pick("N", "i=0", "N=0", "1") + "; " + g.pick("0", "N<1", "i<1") + "; " + g.pick("N++", "i++", "1") + ")); do " + inner() + "; break; done"
	case 3:
		return "case " + g.exp(0) + " in " + g.exp(0) + ") " + inner() + ";; *) " + inner() + ";; esac"
	case 4:
		return "while " + inner() + "; do " + inner() + "; break; done"
	case 5:
		return "until " + inner() + "; do " + inner() + "; break; done"
	case 6:
		return "(" + inner() + ")"
	case 7:
		return "{ " + inner() + "; }"
	case 8:
		return "f() { " + inner() + "; }; f " + g.words(0)
	case 9:
		return inner() + " | " + inner()
	case 10:
		return inner() + " && " + inner()
	case 11:
		return inner() + " || " + inner()
	case 12:
		return inner() + "; " + inner()
	case 13:
		return "select " + n + " in a; do " + inner() + "; break; done"
	case 14:
		return "time " + inner()
	case 15:
		return "! " + inner()
	}
	return inner()
}

func (g *lineGen) line() string {
	g.cur = g.names[g.r.IntN(len(g.names))]
	// Half the lines use only echo and plain assignments: those are the
	// lines that an allow rule for echo alone would let through.
	g.echoOnly = g.r.IntN(2) == 0
	var parts []string
	for range g.r.IntN(3) {
		parts = append(parts, g.setup())
	}
	parts = append(parts, g.compound(0))
	sep := "; "
	if g.r.IntN(5) == 0 || strings.Contains(strings.Join(parts, ""), "shopt") {
		sep = "\n" // bash reads a line before running it: extglob must be on before the next line
	}
	return strings.Join(parts, sep)
}

// canaryLine makes the payloads of a table line touch the canary.
func canaryLine(l string) string {
	return strings.NewReplacer("touch pwned1", "touch CANARY", "touch pwned2", "touch CANARY", "touch p", "touch CANARY").Replace(l)
}

// diffCount is the number of lines TestShellAllowedLinesAreInertUnderBash
// generates, unless WIELD_BASH_DIFF_LINES says otherwise.
const diffCount = 3000

// bashDiffLines returns the generated lines and the lines of the
// regression tables.
func bashDiffLines(t testing.TB, n int) []string {
	t.Helper()
	g := newLineGen(1)
	var lines []string
	for _, c := range evalCases {
		lines = append(lines, canaryLine(c.line))
	}
	for _, l := range inertCases {
		lines = append(lines, canaryLine(l))
	}
	for range n {
		lines = append(lines, g.line())
	}
	return lines
}

// runBash runs lines under bash on one worker per CPU and returns those
// that created the canary.
func runBash(t *testing.T, bash string, lines []string) (fired []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	jobs := make(chan string)
	for range runtime.NumCPU() {
		c := newBashCanary(t, bash)
		wg.Go(func() {
			for l := range jobs {
				ok, err := c.run(t.Context(), l)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				if ok {
					fired = append(fired, l)
				}
				mu.Unlock()
			}
		})
	}
	for _, l := range lines {
		jobs <- l
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return fired
}

// TestShellAllowedLinesAreInertUnderBash is the differential test: with
// only echo allowed (and again with every builtin of evalRules allowed),
// in a headless run, no line the policy allows may run a payload under
// Bash. A sample of the refused lines runs too, to show that the
// payloads are live: some of them must create the canary.
func TestShellAllowedLinesAreInertUnderBash(t *testing.T) {
	bash := findBash(t)
	n := diffCount
	if s := os.Getenv("WIELD_BASH_DIFF_LINES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("WIELD_BASH_DIFF_LINES=%q: %v", s, err)
		}
	}
	lines := bashDiffLines(t, n)
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	policies := []struct {
		name  string
		allow []string
	}{
		{"echo", []string{"echo:*"}},
		{"builtins", evalRules},
	}
	allowedBy := map[string][]string{} // line -> the policies that allow it
	var run, refused []string
	for _, pc := range policies {
		p := evalPolicy(t, pc.allow)
		allowed := 0
		for _, l := range lines {
			d := p.Decide(t.Context(), nil, sh, shellArgs(l))
			if d.Verdict != tool.Allow {
				if pc.name == "echo" {
					refused = append(refused, l)
				}
				continue
			}
			allowed++
			if allowedBy[l] == nil {
				run = append(run, l)
			}
			allowedBy[l] = append(allowedBy[l], pc.name)
		}
		t.Logf("policy %s: %d lines generated or from the tables, %d allowed", pc.name, len(lines), allowed)
	}
	fired := runBash(t, bash, run)
	perPolicy := map[string]int{}
	for _, l := range fired {
		for _, name := range allowedBy[l] {
			perPolicy[name]++
		}
	}
	t.Logf("ran %d distinct allowed lines under bash: %d created the canary (policy echo: %d, policy builtins: %d)",
		len(run), len(fired), perPolicy["echo"], perPolicy["builtins"])
	for _, l := range fired {
		t.Errorf("allowed %q (policy %s), which ran the payload under bash", l, strings.Join(allowedBy[l], ", "))
	}
	// The payloads are live: refused lines do run them.
	sample := refused
	if len(sample) > 150 {
		g := rand.New(rand.NewPCG(2, 3))
		g.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
		sample = sample[:150]
	}
	live := runBash(t, bash, sample)
	t.Logf("ran %d of the %d refused lines under bash: %d created the canary", len(sample), len(refused), len(live))
	if len(live) == 0 {
		t.Error("no refused line created the canary: the generated payloads are not live, so the test proves nothing")
	}
}

// FuzzShellAllowedLinesAreInert: a line the policy allows (every builtin
// of evalRules allowed, headless) never runs a payload under Bash. The
// oracle is Bash itself, so it finds what shellcmd cannot see.
func FuzzShellAllowedLinesAreInert(f *testing.F) {
	bash := findBash(f)
	for _, c := range evalCases {
		f.Add(canaryLine(c.line))
	}
	for _, l := range inertCases {
		f.Add(l)
	}
	g := newLineGen(7)
	for range 50 {
		f.Add(g.line())
	}
	p := evalPolicy(f, evalRules)
	sh := fakeTool(f, "run_shell_command", tool.Annotations{})
	c := newBashCanary(f, bash)
	f.Fuzz(func(t *testing.T, line string) {
		args, _ := json.Marshal(map[string]string{"command": line})
		if p.Decide(t.Context(), nil, sh, args).Verdict != tool.Allow {
			return
		}
		line, _ = argString(args, "command") // as JSON carries it
		fired, err := c.run(t.Context(), line)
		if err != nil {
			t.Fatal(err)
		}
		if fired {
			t.Fatalf("allowed %q, which ran the payload under bash", line)
		}
	})
}
