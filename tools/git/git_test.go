package git

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

// repo is a temporary git repository made with the real git binary, and
// the call whose workspace root it is.
type repo struct {
	t    *testing.T
	dir  string
	call *tool.Call
}

// newRepo makes a repository on branch main with a few commits: a.txt
// (three lines), "dir with space/b c.txt", a branch "feature" merged back
// into main with a merge commit, and a tag v1.
func newRepo(t *testing.T) *repo {
	t.Helper()
	dir := t.TempDir()
	r := &repo{t: t, dir: dir}
	r.git("init", "--quiet", "--initial-branch=main")
	r.git("config", "user.name", "Ann Author")
	r.git("config", "user.email", "ann@example.com")
	r.git("config", "commit.gpgsign", "false")
	r.write("a.txt", "one\ntwo\nthree\n")
	r.git("add", "a.txt")
	r.git("commit", "--quiet", "-m", "first: a.txt")
	r.git("tag", "v1")
	r.write("dir with space/b c.txt", "bee\n")
	r.git("add", ".")
	r.git("commit", "--quiet", "-m", "second: a file with spaces")
	r.git("switch", "--quiet", "-c", "feature")
	r.write("feature.txt", "feature\n")
	r.git("add", "feature.txt")
	r.git("commit", "--quiet", "-m", "feature work")
	r.git("switch", "--quiet", "main")
	r.write("a.txt", "one\ntwo\nthree\nfour\n")
	r.git("commit", "--quiet", "-am", "main: four")
	r.git("merge", "--quiet", "--no-ff", "-m", "Merge branch 'feature'", "feature")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	r.call = &tool.Call{Root: root}
	return r
}

// git runs git in the repository with a clean environment and fails the
// test if it fails.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(environ(os.Environ(), false), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// run calls t with args in the repository.
func (r *repo) run(t *tool.Tool, args any) tool.Result {
	r.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := t.Schema().Validate(raw); err != nil {
		r.t.Fatalf("%s(%s): invalid arguments: %v", t.Name(), raw, err)
	}
	res, err := t.Handler().Handle(r.t.Context(), r.call, raw)
	if err != nil {
		r.t.Fatalf("%s(%s): %v", t.Name(), raw, err)
	}
	return res
}

// want describes a result: success, and strings its output or error must
// (or must not) contain.
type want struct {
	ok      bool
	has     []string
	hasNot  []string
	errHas  string
	dataCut bool
}

func (r *repo) check(name string, res tool.Result, w want) {
	r.t.Helper()
	if res.Success != w.ok {
		r.t.Fatalf("%s: Success = %v, want %v; output %q, error %q", name, res.Success, w.ok, res.Output, res.Error)
	}
	for _, s := range w.has {
		if !strings.Contains(res.Output, s) {
			r.t.Errorf("%s: output lacks %q:\n%s", name, s, res.Output)
		}
	}
	for _, s := range w.hasNot {
		if strings.Contains(res.Output, s) {
			r.t.Errorf("%s: output has %q:\n%s", name, s, res.Output)
		}
	}
	if w.errHas != "" && !strings.Contains(res.Error, w.errHas) {
		r.t.Errorf("%s: error %q lacks %q", name, res.Error, w.errHas)
	}
	if d, ok := res.Data.(Data); ok && d.Truncated != w.dataCut {
		r.t.Errorf("%s: Data.Truncated = %v, want %v", name, d.Truncated, w.dataCut)
	}
}

func TestContract(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	cases := map[string]tooltest.Cases{
		"git_status":   {Valid: []string{`{}`}, Invalid: []string{`{"x":1}`}},
		"git_diff":     {Valid: []string{`{}`, `{"staged":true}`, `{"path":"a.txt","ref":"v1"}`}, Invalid: []string{`{"staged":"yes"}`}},
		"git_log":      {Valid: []string{`{}`, `{"limit":2,"path":"a.txt"}`}, Invalid: []string{`{"limit":"2"}`}},
		"git_show":     {Valid: []string{`{}`, `{"ref":"v1"}`}, Invalid: []string{`{"ref":1}`}},
		"git_blame":    {Valid: []string{`{"path":"a.txt","range":"1-2"}`}, Invalid: []string{`{}`}},
		"git_branch":   {Valid: []string{`{}`, `{"all":true}`}, Invalid: []string{`{"all":1}`}},
		"git_add":      {Valid: []string{`{"paths":["a.txt"]}`}, Invalid: []string{`{}`, `{"paths":"a.txt"}`}},
		"git_commit":   {Valid: []string{`{"message":"m"}`}, Invalid: []string{`{}`}},
		"git_checkout": {Valid: []string{`{"branch":"feature"}`}, Invalid: []string{`{}`, `{"branch":"x","create":"no"}`}},
	}
	tools := New(Config{})
	if len(tools) != len(cases) {
		t.Fatalf("New returned %d tools, want %d", len(tools), len(cases))
	}
	for _, tl := range tools {
		c, ok := cases[tl.Name()]
		if !ok {
			t.Errorf("no contract cases for %s", tl.Name())
			continue
		}
		ann := tl.Spec().Annotations
		readOnly := !strings.Contains("git_add git_commit git_checkout", tl.Name())
		if ann.ReadOnly != readOnly || ann.ParallelSafe != readOnly {
			t.Errorf("%s: ReadOnly %v, ParallelSafe %v, want both %v", tl.Name(), ann.ReadOnly, ann.ParallelSafe, readOnly)
		}
		// Only the read-only tools run here: the others would change the
		// repository the other cases read.
		c.Run, c.Root = readOnly, r.call.Root
		if err := tooltest.Check(t.Context(), tl, c); err != nil {
			t.Error(err)
		}
	}
}

func TestReadTools(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.txt", "one\nTWO\nthree\nfour\n")
	r.write("dir with space/b c.txt", "bee\nsea\n")
	r.write("new file.txt", "new\n")
	r.git("add", "dir with space/b c.txt")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(r.dir, "out")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{}
	for _, tc := range []struct {
		name string
		tool *tool.Tool
		args any
		want want
	}{
		{"status", NewStatus(cfg), StatusInput{}, want{ok: true, has: []string{"## main", " M a.txt", `M  "dir with space/b c.txt"`, `?? "new file.txt"`}}},
		{"diff unstaged", NewDiff(cfg), DiffInput{}, want{ok: true, has: []string{"-two", "+TWO"}, hasNot: []string{"+sea"}}},
		{"diff staged", NewDiff(cfg), DiffInput{Staged: true}, want{ok: true, has: []string{"+sea", "dir with space/b c.txt"}, hasNot: []string{"+TWO"}}},
		{"diff path with spaces", NewDiff(cfg), DiffInput{Staged: true, Path: "dir with space"}, want{ok: true, has: []string{"+sea"}}},
		{"diff absolute path inside", NewDiff(cfg), DiffInput{Path: filepath.Join(r.dir, "a.txt")}, want{ok: true, has: []string{"+TWO"}}},
		{"diff ref", NewDiff(cfg), DiffInput{Ref: "v1", Path: "a.txt"}, want{ok: true, has: []string{"+TWO", "+four"}}},
		{"diff range", NewDiff(cfg), DiffInput{Ref: "v1...feature"}, want{ok: true, has: []string{"+feature", "b c.txt"}}},
		{"diff no changes", NewDiff(cfg), DiffInput{Path: "feature.txt"}, want{ok: true, has: []string{"(no changes)"}}},
		{"diff glob is literal", NewDiff(cfg), DiffInput{Path: "*.txt"}, want{ok: true, has: []string{"(no changes)"}}},
		{"diff magic is literal", NewDiff(cfg), DiffInput{Path: ":(top)a.txt"}, want{ok: true, has: []string{"(no changes)"}}},
		{"diff option as ref", NewDiff(cfg), DiffInput{Ref: "--output=/tmp/x"}, want{errHas: "starts with '-'"}},
		{"diff option as path", NewDiff(cfg), DiffInput{Path: "-R"}, want{errHas: "starts with '-'"}},
		{"diff path outside", NewDiff(cfg), DiffInput{Path: "../x"}, want{errHas: "outside the workspace"}},
		{"diff absolute path outside", NewDiff(cfg), DiffInput{Path: outside}, want{errHas: "outside the workspace"}},
		{"diff through link out", NewDiff(cfg), DiffInput{Path: "out/x"}, want{errHas: "symbolic link"}},
		{"diff unknown ref", NewDiff(cfg), DiffInput{Ref: "nope"}, want{errHas: "git diff failed"}},
		{"log", NewLog(cfg), LogInput{}, want{ok: true, has: []string{"Merge branch 'feature'", "feature work", "first: a.txt", "Ann Author", "tag: v1"}}},
		{"log limit", NewLog(cfg), LogInput{Limit: 1}, want{ok: true, has: []string{"Merge branch"}, hasNot: []string{"feature work"}}},
		{"log path", NewLog(cfg), LogInput{Path: "dir with space/b c.txt"}, want{ok: true, has: []string{"second: a file with spaces"}, hasNot: []string{"first"}}},
		{"log limit too big", NewLog(cfg), LogInput{Limit: MaxLogLimit + 1}, want{errHas: "limit must be between"}},
		{"show head", NewShow(cfg), ShowInput{}, want{ok: true, has: []string{"Merge branch 'feature'", "Merge:"}}},
		{"show tag", NewShow(cfg), ShowInput{Ref: "v1"}, want{ok: true, has: []string{"first: a.txt", "+one", "a.txt | 3 +++"}}},
		{"show parent", NewShow(cfg), ShowInput{Ref: "HEAD~1"}, want{ok: true, has: []string{"main: four", "+four"}}},
		{"show option", NewShow(cfg), ShowInput{Ref: "-p"}, want{errHas: "starts with '-'"}},
		{"show with space", NewShow(cfg), ShowInput{Ref: "HEAD --stat"}, want{errHas: "space"}},
		{"blame range", NewBlame(cfg), BlameInput{Path: "a.txt", Range: "2-3"}, want{ok: true, has: []string{"Not Committed Yet", "TWO", "three"}, hasNot: []string{"one"}}},
		{"blame to end", NewBlame(cfg), BlameInput{Path: "a.txt", Range: "4"}, want{ok: true, has: []string{"Ann Author", "four"}, hasNot: []string{"three"}}},
		{"blame whole", NewBlame(cfg), BlameInput{Path: "a.txt"}, want{ok: true, has: []string{"one", "four"}}},
		{"blame bad range", NewBlame(cfg), BlameInput{Path: "a.txt", Range: "3-1"}, want{errHas: "ends before it starts"}},
		{"blame outside", NewBlame(cfg), BlameInput{Path: "/etc/passwd"}, want{errHas: "outside the workspace"}},
		{"blame past end", NewBlame(cfg), BlameInput{Path: "a.txt", Range: "40-50"}, want{errHas: "git blame failed"}},
		{"branch", NewBranch(cfg), BranchInput{}, want{ok: true, has: []string{"* main", "feature"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.t = t
			r.check(tc.name, r.run(tc.tool, tc.args), tc.want)
		})
	}
}

func TestAddAndCommit(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	add, commit := NewAdd(Config{}), NewCommit(Config{})

	r.check("commit with nothing staged", r.run(commit, CommitInput{Message: "empty"}), want{errHas: "never makes an empty commit"})
	r.check("commit empty message", r.run(commit, CommitInput{Message: "  \n"}), want{errHas: "message is empty"})
	r.check("add option", r.run(add, AddInput{Paths: []string{"-A"}}), want{errHas: "starts with '-'"})
	r.check("add outside", r.run(add, AddInput{Paths: []string{"../../etc/passwd"}}), want{errHas: "outside the workspace"})
	r.check("add nothing", r.run(add, AddInput{Paths: []string{}}), want{errHas: "paths is empty"})

	r.write("dir with space/new one.txt", "new\n")
	r.write("-dash.txt", "dash\n")
	if err := os.Remove(filepath.Join(r.dir, "feature.txt")); err != nil {
		t.Fatal(err)
	}
	res := r.run(add, AddInput{Paths: []string{"dir with space/new one.txt", "./-dash.txt", filepath.Join(r.dir, "feature.txt")}})
	r.check("add", res, want{ok: true, has: []string{"A\tdir with space/new one.txt", "A\t-dash.txt", "D\tfeature.txt"}})
	if got := r.git("diff", "--cached", "--name-only"); !strings.Contains(got, "new one.txt") {
		t.Fatalf("after git_add, staged files are %q", got)
	}

	head := r.git("rev-parse", "HEAD")
	r.check("commit", r.run(commit, CommitInput{Message: "--amend is a message here\n\nBody line."}), want{ok: true, has: []string{"[main ", "3 files changed"}})
	if got := r.git("rev-parse", "HEAD~1"); got != head {
		t.Errorf("HEAD~1 = %s, want the old HEAD %s: the commit must be new, not amended", got, head)
	}
	if got := r.git("log", "-1", "--format=%B"); got != "--amend is a message here\n\nBody line.\n\n" {
		t.Errorf("commit message = %q", got)
	}
	r.check("commit again", r.run(commit, CommitInput{Message: "again"}), want{errHas: "never makes an empty commit"})
}

func TestCommitInNewRepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &repo{t: t, dir: dir}
	r.git("init", "--quiet", "--initial-branch=trunk")
	r.git("config", "user.name", "Ann Author")
	r.git("config", "user.email", "ann@example.com")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r.call = &tool.Call{Root: root}
	r.check("log of no commits", r.run(NewLog(Config{}), LogInput{}), want{errHas: "does not have any commits"})
	r.check("empty first commit", r.run(NewCommit(Config{}), CommitInput{Message: "first"}), want{errHas: "never makes an empty commit"})
	r.write("x", "x\n")
	r.check("add", r.run(NewAdd(Config{}), AddInput{Paths: []string{"x"}}), want{ok: true, has: []string{"A\tx"}})
	r.check("first commit", r.run(NewCommit(Config{}), CommitInput{Message: "first"}), want{ok: true, has: []string{"root-commit"}})
}

func TestCheckout(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	co := NewCheckout(Config{})
	r.check("create", r.run(co, CheckoutInput{Branch: "fix/thing", Create: true}), want{ok: true, has: []string{"fix/thing"}})
	if got := strings.TrimSpace(r.git("branch", "--show-current")); got != "fix/thing" {
		t.Errorf("current branch = %q, want fix/thing", got)
	}
	r.check("create existing", r.run(co, CheckoutInput{Branch: "main", Create: true}), want{errHas: "already exists"})
	r.check("switch", r.run(co, CheckoutInput{Branch: "feature"}), want{ok: true, has: []string{"feature"}})
	r.check("unknown", r.run(co, CheckoutInput{Branch: "nope"}), want{errHas: "git switch failed"})
	r.check("option", r.run(co, CheckoutInput{Branch: "-f"}), want{errHas: "starts with '-'"})
	r.check("invalid name", r.run(co, CheckoutInput{Branch: "a..b", Create: true}), want{errHas: "not a valid branch name"})
	r.check("a commit is no branch", r.run(co, CheckoutInput{Branch: "HEAD~1"}), want{errHas: "not a valid branch name"})

	r.git("branch", "old", "v1") // has no feature.txt
	r.write("feature.txt", "changed, not committed\n")
	r.check("would overwrite", r.run(co, CheckoutInput{Branch: "old"}), want{errHas: "would be overwritten"})
	if b, _ := os.ReadFile(filepath.Join(r.dir, "feature.txt")); string(b) != "changed, not committed\n" {
		t.Errorf("feature.txt = %q after a refused checkout; the change must be kept", b)
	}
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r := &repo{t: t, dir: dir, call: &tool.Call{Root: root}}
	r.check("status", r.run(NewStatus(Config{}), StatusInput{}), want{errHas: "not inside a git repository"})
	r.call = &tool.Call{}
	r.check("no workspace", r.run(NewStatus(Config{}), StatusInput{}), want{errHas: "no workspace"})
}

// TestCallerEnvironmentIgnored checks that GIT_DIR and GIT_WORK_TREE in
// wield's environment do not point the tools at another repository.
func TestCallerEnvironmentIgnored(t *testing.T) {
	r := newRepo(t)
	other := newRepo(t)
	other.write("other-only.txt", "x\n")
	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	t.Setenv("GIT_WORK_TREE", other.dir)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other.dir, "index"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.pager")
	t.Setenv("GIT_CONFIG_VALUE_0", "false")
	r.check("status", r.run(NewStatus(Config{}), StatusInput{}), want{ok: true, has: []string{"## main"}, hasNot: []string{"other-only.txt"}})
}

func TestOutputCap(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.write("a.txt", strings.Repeat("a long line of changed text\n", 2000))
	res := r.run(NewDiff(Config{MaxOutput: 4096}), DiffInput{})
	r.check("diff", res, want{ok: true, has: []string{"[output cut at 4 KiB of 5"}, dataCut: true})
	if len(res.Output) > 4096+200 {
		t.Errorf("output is %d bytes, want about 4096", len(res.Output))
	}
}

func TestCurrentBranchAndRemote(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	r.git("remote", "add", "origin", "git@github.com:owner/name.git")
	ctx := t.Context()
	if b, err := CurrentBranch(ctx, r.dir); err != nil || b != "main" {
		t.Errorf("CurrentBranch = %q, %v; want main", b, err)
	}
	if u, err := RemoteURL(ctx, r.dir, "origin"); err != nil || u != "git@github.com:owner/name.git" {
		t.Errorf("RemoteURL = %q, %v", u, err)
	}
	if _, err := RemoteURL(ctx, r.dir, "upstream"); err == nil || !strings.Contains(err.Error(), "upstream") {
		t.Errorf("RemoteURL(upstream) = %v, want an error naming it", err)
	}
	if _, err := RemoteURL(ctx, r.dir, "--help"); err == nil {
		t.Error("RemoteURL(--help) succeeded")
	}
	r.git("switch", "--quiet", "--detach", "HEAD")
	if _, err := CurrentBranch(ctx, r.dir); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Errorf("CurrentBranch on a detached HEAD = %v, want an error saying so", err)
	}
}
