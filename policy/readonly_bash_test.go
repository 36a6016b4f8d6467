package policy

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wieldhq/wield/shellcmd"
)

// The read-only classifier is checked against real Bash and the real
// programs: a line it calls read-only runs in a copy of a small git
// repository, and the copy must be byte for byte, mode for mode and
// mtime for mtime the same afterwards. Refused lines run too, to show
// that the generated lines do change things: the test would prove
// nothing if they did not.

// scratchRepo is a repository that lines run in copies of. A scratchRepo
// is safe for concurrent use.
type scratchRepo struct {
	bash     string
	template string // the repository copied for each line
	root     string // copies, HOME and caches live under it
	env      []string
}

// newScratchRepo builds the template: files, a go module, and a git
// repository with two commits and a branch, with git told to trust only
// mtimes and sizes so that copies need no index refresh.
func newScratchRepo(t testing.TB, bash string) *scratchRepo {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed, and the read-only differential test needs it in CI")
		}
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	s := &scratchRepo{bash: bash, template: filepath.Join(root, "template"), root: root}
	home := filepath.Join(root, "home")
	for _, d := range []string{s.template, home, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	if goCmd, err := exec.LookPath("go"); err == nil {
		path = filepath.Dir(goCmd) + ":" + path
	}
	s.env = []string{"PATH=" + path, "HOME=" + home, "TMPDIR=" + filepath.Join(root, "tmp"), "LC_ALL=C",
		"GIT_CEILING_DIRECTORIES=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		// As tools/shell runs git: no optional lock (git status does not
		// write the index), no pager, editor or prompt.
		"GIT_OPTIONAL_LOCKS=0", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GOCACHE=" + filepath.Join(root, "gocache"),
		"GOPATH=" + filepath.Join(root, "gopath"), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly"}
	files := map[string]string{
		"a.txt": "alpha\nbeta\nbeta\ngamma\n", "b.txt": "one\ntwo\n", "d.json": `{"name":"x","n":[1,2]}` + "\n",
		"go.mod": "module example.com/x\n\ngo 1.21\n", "src/main.go": "package main\n\nfunc main() {}\n", "list": "a.txt\nb.txt\n",
	}
	for name, content := range files {
		p := filepath.Join(s.template, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for name := range files {
		if err := os.Chtimes(filepath.Join(s.template, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "core.checkStat", "minimal"}, {"config", "core.trustctime", "false"},
		{"add", "a.txt", "go.mod"}, {"commit", "-q", "-m", "first"}, {"branch", "side"},
		{"add", "."}, {"commit", "-q", "-m", "second"}, {"status", "-s"},
	} {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = s.template, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return s
}

// snapshot describes every entry under dir: its mode, and for files
// their size, mtime and content hash, for directories their mtime, for
// links their target.
//
// Two entries are left out, and only those: git status (and go list,
// which runs it to stamp builds) takes git's optional index lock and may
// refresh the stat cache in .git/index, so .git/index and the mtime of
// .git itself are not compared. Refs, HEAD, config and objects are.
func snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		desc := fmt.Sprintf("%v %d", fi.Mode(), fi.ModTime().UnixNano())
		switch rel {
		case filepath.Join(".git", "index"):
			return nil
		case ".git":
			desc = fi.Mode().String()
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %d %x", len(b), sha256.Sum256(b))
		}
		out[rel] = desc
		return nil
	})
	return out, err
}

// run runs line with bash in a fresh copy of the template and returns
// the entries it created, changed or deleted. The snapshot is taken once
// bash and every process it started have exited: a line that leaves a
// job in the background (`{ git status; } &`) is judged by what the job
// did, not by how far it got before it was killed.
func (s *scratchRepo) run(ctx context.Context, line string) ([]string, error) {
	if strings.IndexByte(line, 0) >= 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp(s.root, "run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	work := filepath.Join(dir, "w")
	if out, err := exec.CommandContext(ctx, "cp", "-a", s.template, work).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy the template: %v: %s", err, out)
	}
	before, err := snapshot(work)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bash, "--norc", "--noprofile", "-c", line)
	cmd.Dir, cmd.Env = work, s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	// Every process the line starts inherits the write end of a pipe, as
	// its file descriptor 3, and holds it until it exits: the read end
	// comes to its end when the last of them has exited.
	running, held, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer running.Close()
	cmd.ExtraFiles = []*os.File{held}
	err = cmd.Start()
	held.Close()
	if err != nil {
		return nil, fmt.Errorf("start bash: %w", err)
	}
	_ = cmd.Wait() // many lines fail; only what they change matters
	if err := waitForEOF(ctx, running); err != nil {
		// A job still ran at the line's deadline: it is killed, and the
		// snapshot waits for it to be gone (a second at most).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = waitForEOF(ctx, running)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // any that let go of the pipe
	after, err := snapshot(work)
	if err != nil {
		return nil, err
	}
	var changed []string
	for p, d := range after {
		if before[p] != d {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p+" (deleted)")
		}
	}
	slices.Sort(changed)
	return changed, nil
}

// waitForEOF reads r to its end, or until ctx's deadline.
func waitForEOF(ctx context.Context, r *os.File) error {
	if d, ok := ctx.Deadline(); ok {
		if err := r.SetReadDeadline(d); err != nil {
			return err
		}
	}
	_, err := io.Copy(io.Discard, r)
	return err
}

// runAll runs lines on one worker per CPU and returns what each changed,
// for the lines that changed something.
func (s *scratchRepo) runAll(t *testing.T, lines []string) map[string][]string {
	t.Helper()
	var (
		mu      sync.Mutex
		errs    []error
		changed = map[string][]string{}
		wg      sync.WaitGroup
	)
	jobs := make(chan string)
	for range runtime.NumCPU() {
		wg.Go(func() {
			for l := range jobs {
				c, err := s.run(t.Context(), l)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("%q: %w", l, err))
				}
				if len(c) > 0 {
					changed[l] = c
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
	for _, err := range errs {
		t.Error(err)
	}
	return changed
}

// TestScratchRepoWaitsForJobs checks that a line's snapshot is taken once
// the jobs it left in the background have ended: what they write after
// bash exits counts, on a loaded machine as on a quiet one.
func TestScratchRepoWaitsForJobs(t *testing.T) {
	s := newScratchRepo(t, findBash(t))
	for _, line := range []string{"{ git log >/dev/null; touch CANARY; } &", "(git status >/dev/null; touch CANARY) & echo started"} {
		changed, err := s.run(t.Context(), line)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{".", "CANARY"}; !slices.Equal(changed, want) {
			t.Errorf("run(%q) changed %q, want %q", line, changed, want)
		}
	}
}

// roGen generates lines from whitelisted commands with harmless and
// harmful arguments, commands that write, redirections and Bash's
// compound forms. Every path it writes is relative to the working
// directory and never leaves it.
type roGen struct{ r *rand.Rand }

func (g roGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// reading are commands the classifier should let through.
var reading = []string{
	"ls", "ls -la", "ls -R src", "cat a.txt", "head -n 2 a.txt", "tail -n 1 b.txt", "wc -l a.txt b.txt", "grep -rn beta .",
	"grep -c beta a.txt", "egrep 'a|b' a.txt", "fgrep one b.txt", "find . -name '*.txt'", "find . -type f -newer go.mod", "find src -print",
	"git status", "git status --short", "git log --oneline", "git --no-pager log -p -1", "git diff", "git diff HEAD~1", "git show --stat HEAD",
	"git branch", "git branch -av", "git branch --list 'si*'", "git branch --contains HEAD", "git rev-parse HEAD", "git ls-files", "git blame a.txt",
	"git grep -n beta", "git ls-tree HEAD", "git rev-list --all", "git describe --always", "git merge-base main side",
	"pwd", "echo hi", "stat a.txt", "file a.txt", "du -s .", "df .", "which ls", "sort a.txt", "sort -r -u a.txt", "sort -k1 -t, a.txt",
	"uniq a.txt", "uniq -c a.txt", "cut -c1-3 a.txt", "tr a-z A-Z < a.txt", "jq .name d.json", "nl a.txt", "cmp a.txt b.txt",
	"diff a.txt b.txt", "basename src/main.go", "realpath a.txt", "printf '%s\\n' x", "test -f a.txt", "[ -d src ]", "true", "type ls",
	"go version", "go env GOOS", "go list -m", "go list ./...", "tree -L 1", "printenv HOME", "uname -s",
}

// writing are commands that change the directory, which the classifier
// must refuse.
var writing = []string{
	"sort -o out.txt a.txt", "sort a.txt -oout.txt", "sort --output=out.txt a.txt", "sort --out=out.txt a.txt", "sort -uo a.txt a.txt",
	"uniq a.txt out.txt", "uniq -c a.txt out.txt", "find . -name b.txt -delete", "find . -name a.txt -exec touch CANARY ';'",
	"find . -fprint out.txt", "find . -fls out.txt", "find . -name x -o -fprintf out.txt '%p'", "git diff --output=out.txt HEAD~1",
	"git log --output=out.txt", "git diff --output out.txt HEAD~1", "git branch newb", "git branch -d side", "git branch -m side other",
	"git tag t1", "git checkout -q -b x", "git commit -q --allow-empty -m x", "git update-ref refs/heads/x HEAD", "git rm -q a.txt", "git notes add -m x",
	"git -c core.x=y config core.y z", "git config core.z 1", "sed -i s/beta/BETA/ a.txt", "touch CANARY", "rm b.txt", "mv a.txt c.txt",
	"cp a.txt c.txt", "mkdir d2", "ln -s a.txt l", "chmod 600 a.txt", "truncate -s0 a.txt", "tee out.txt < a.txt",
	"cat a.txt | tee -a b.txt", "xargs touch < list", "go mod edit -module y", "go env -w GOFLAGS=-x", "printf -v x '%s' y",
	"GIT_DIR=.git git branch newb2", "f() { touch CANARY; }; f",
}

// redirect is a redirection for a command: mostly none or harmless.
func (g roGen) redirect() string {
	if g.r.IntN(3) > 0 {
		return ""
	}
	return " " + g.pick(">/dev/null", "2>/dev/null", "2>&1", "&>/dev/null", "< a.txt", "> out.txt", ">> a.txt", "2> err.txt", "1<>b.txt", ">|c.txt")
}

func (g roGen) command() string {
	if g.r.IntN(4) == 0 {
		return g.pick(writing...) + g.redirect()
	}
	return g.pick(reading...) + g.redirect()
}

func (g roGen) compound(depth int) string {
	inner := func() string {
		if depth < 2 && g.r.IntN(3) == 0 {
			return g.compound(depth + 1)
		}
		return g.command()
	}
	switch g.r.IntN(12) {
	case 0:
		return inner() + " | " + inner()
	case 1:
		return inner() + " && " + inner()
	case 2:
		return inner() + " || " + inner()
	case 3:
		return inner() + "; " + inner()
	case 4:
		return "(" + inner() + ")"
	case 5:
		return "{ " + inner() + "; }" + g.redirect()
	case 6:
		return "if " + inner() + "; then " + inner() + "; fi"
	case 7:
		return "for f in a.txt b.txt; do " + inner() + "; done"
	case 8:
		return "echo $(" + inner() + ")"
	case 9:
		return inner() + " &"
	}
	return inner()
}

// roDiffCount is the number of lines TestReadOnlyLinesAreInertUnderBash
// generates, unless WIELD_READONLY_DIFF_LINES says otherwise.
const roDiffCount = 600

// TestReadOnlyLinesAreInertUnderBash is the differential test of the
// read-only classifier: no line it calls read-only may create, change or
// delete anything in the repository it runs in, under real Bash and the
// real programs. A sample of the refused lines must change things.
func TestReadOnlyLinesAreInertUnderBash(t *testing.T) {
	s := newScratchRepo(t, findBash(t))
	n := roDiffCount
	if v := os.Getenv("WIELD_READONLY_DIFF_LINES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("WIELD_READONLY_DIFF_LINES=%q: %v", v, err)
		}
	}
	g := roGen{rand.New(rand.NewPCG(11, 12))}
	lines := slices.Clone(reading)
	lines = append(lines, writing...)
	for range n {
		lines = append(lines, g.compound(0))
	}
	var readOnlyLines, refused []string
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			continue
		}
		seen[l] = true
		if readOnlyLine(l) == "" {
			readOnlyLines = append(readOnlyLines, l)
		} else {
			refused = append(refused, l)
		}
	}
	for _, l := range reading {
		if why := readOnlyLine(l); why != "" {
			t.Errorf("readOnlyLine(%q) = %q; the generator counts it as reading", l, why)
		}
	}
	for _, l := range writing {
		if readOnlyLine(l) == "" {
			t.Errorf("readOnlyLine(%q) calls it read-only; the generator counts it as writing", l)
		}
	}
	changed := s.runAll(t, readOnlyLines)
	t.Logf("%d distinct lines: %d called read-only and run under bash, %d of them changed something", len(seen), len(readOnlyLines), len(changed))
	for l, c := range changed {
		t.Errorf("read-only %q changed %v under bash", l, c)
	}
	// The writing commands do write: each one alone, and a sample of the
	// refused lines.
	live := s.runAll(t, writing)
	for _, l := range writing {
		if _, ok := live[l]; !ok && !strings.Contains(l, "GIT_DIR") && !strings.Contains(l, "printf -v") && !strings.Contains(l, "go env -w") {
			t.Errorf("%q changed nothing under bash: the writing table is not live", l)
		}
	}
	sample := refused
	if len(sample) > 120 {
		r := rand.New(rand.NewPCG(5, 6))
		r.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
		sample = sample[:120]
	}
	liveRefused := s.runAll(t, sample)
	t.Logf("ran %d of the %d refused lines: %d changed something", len(sample), len(refused), len(liveRefused))
	if len(liveRefused) < len(sample)/4 {
		t.Errorf("only %d of %d refused lines changed anything: the generated lines are not live", len(liveRefused), len(sample))
	}
}

// safeToRun reports whether a fuzzed line may be run at all: every word
// static, no path that leaves the working directory (only /dev/null), and
// no date (which as root could set the clock). The classifier is what is
// tested, so its mistakes must not reach outside the scratch copy.
func safeToRun(line string) bool {
	cmds, err := shellcmd.Split(line)
	if err != nil {
		return false
	}
	ok := func(w shellcmd.Word) bool {
		return !w.Dynamic && !strings.Contains(w.Value, "..") && !strings.HasPrefix(w.Value, "~") &&
			(!strings.Contains(w.Value, "/") || w.Value == "/dev/null")
	}
	for _, c := range cmds {
		if c.Name() == "date" || c.Name() == "cd" {
			return false
		}
		for _, w := range c.Args {
			if !ok(w) {
				return false
			}
		}
		for _, r := range c.Redirects {
			if !ok(r.Target) {
				return false
			}
		}
	}
	return true
}

// FuzzReadOnlyLinesAreInert: a line the classifier calls read-only
// changes nothing in the repository it runs in under bash. Lines with
// dynamic words or paths out of the working directory are not run.
func FuzzReadOnlyLinesAreInert(f *testing.F) {
	s := newScratchRepo(f, findBash(f))
	for _, l := range reading {
		f.Add(l)
	}
	for _, l := range writing {
		f.Add(l)
	}
	g := roGen{rand.New(rand.NewPCG(3, 4))}
	for range 50 {
		f.Add(g.compound(0))
	}
	f.Fuzz(func(t *testing.T, line string) {
		if readOnlyLine(line) != "" || !safeToRun(line) {
			return
		}
		changed, err := s.run(t.Context(), line)
		if err != nil {
			t.Fatal(err)
		}
		if len(changed) > 0 {
			t.Fatalf("read-only %q changed %v under bash", line, changed)
		}
	})
}
