package gitsafe_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/git"
	"github.com/wieldhq/wield/tools/shell"
)

// A vector is one way a repository's configuration makes git run a
// program. PROG in a value stands for a script that creates the marker
// file; DIR for the repository's directory and ELSE for a directory with
// another repository in it.
type vector struct {
	name   string
	config [][2]string // set with git config in the repository, after prep
	attrs  string      // .gitattributes, in the first commit
	prep   func(r *repo)

	// control is the plain git command that runs PROG (without wield), to
	// show the vector is real on this git; stdin is its input, tty runs it
	// on a terminal (under script), as pagers need.
	control []string
	stdin   string
	tty     bool

	// tool, if set, is a git tool and its arguments; toolWant is in its
	// output, and the call succeeds.
	tool     string
	toolArgs any
	toolWant string

	// shell is a command line for run_shell_command; shellWant is in its
	// output.
	shell     string
	shellWant string
}

// vectors has one case per key gitsafe neutralises (those git 2.39 runs
// without a helper program of the user's own, such as sendemail's).
var vectors = []vector{
	{
		name:    "core.fsmonitor",
		config:  [][2]string{{"core.fsmonitor", "PROG"}},
		control: []string{"status"},
		tool:    "git_status", toolArgs: struct{}{}, toolWant: "f.drv",
		shell: "git status", shellWant: "f.drv",
	},
	{
		name:    "hook in .git/hooks (pre-commit)",
		prep:    func(r *repo) { r.hook(".git/hooks", "pre-commit"); r.git("add", "f.drv") },
		control: []string{"commit", "-m", "x"},
		tool:    "git_commit", toolArgs: git.CommitInput{Message: "x"}, toolWant: "1 file changed",
		shell: "git commit -m x", shellWant: "1 file changed",
	},
	{
		name:    "hook through git status (post-index-change)",
		prep:    func(r *repo) { r.hook(".git/hooks", "post-index-change"); r.restore() },
		control: []string{"status"},
		tool:    "git_status", toolArgs: struct{}{}, toolWant: "## main",
		shell: "git status", shellWant: "On branch main",
	},
	{
		name:    "core.hooksPath (post-checkout)",
		prep:    func(r *repo) { r.hook("hooks", "post-checkout"); r.restore() },
		config:  [][2]string{{"core.hooksPath", "DIR/hooks"}},
		control: []string{"switch", "other"},
		tool:    "git_checkout", toolArgs: git.CheckoutInput{Branch: "other"}, toolWant: "other",
		shell: "git switch other", shellWant: "Switched to branch 'other'",
	},
	{
		name:    "core.pager",
		config:  [][2]string{{"core.pager", "PROG"}},
		control: []string{"log"}, tty: true,
		tool: "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "script -qec 'git log' /dev/null", shellWant: "second",
	},
	{
		name:    "pager.<command>",
		config:  [][2]string{{"pager.log", "PROG"}},
		control: []string{"log"}, tty: true,
		tool: "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "script -qec 'git log' /dev/null", shellWant: "second",
	},
	{
		name:    "core.editor",
		config:  [][2]string{{"core.editor", "PROG"}},
		prep:    func(r *repo) { r.git("add", "f.drv") },
		control: []string{"commit"},
		tool:    "git_commit", toolArgs: git.CommitInput{Message: "x"}, toolWant: "1 file changed",
		shell: "git commit", shellWant: "empty commit message",
	},
	{
		name:    "sequence.editor",
		config:  [][2]string{{"sequence.editor", "PROG"}},
		prep:    func(r *repo) { r.restore() },
		control: []string{"rebase", "-i", "HEAD~1"},
		shell:   "git rebase -i HEAD~1", shellWant: "Successfully rebased",
	},
	{
		name:    "core.sshCommand",
		config:  [][2]string{{"core.sshCommand", "PROG"}},
		control: []string{"ls-remote", "ssh://example.invalid/r.git"},
		shell:   "git ls-remote ssh://example.invalid/r.git",
	},
	{
		name:    "core.askPass",
		config:  [][2]string{{"core.askPass", "PROG"}},
		control: []string{"credential", "fill"}, stdin: credential,
		shell: "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill", shellWant: "terminal prompts disabled",
	},
	{
		name:    "credential.helper",
		config:  [][2]string{{"credential.helper", "!PROG"}},
		control: []string{"credential", "fill"}, stdin: credential,
		shell: "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill", shellWant: "terminal prompts disabled",
	},
	{
		name:    "credential.<url>.helper",
		config:  [][2]string{{"credential.https://example.com.helper", "!PROG"}},
		control: []string{"credential", "fill"}, stdin: credential,
		shell: "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill", shellWant: "terminal prompts disabled",
	},
	{
		name:    "diff.external",
		config:  [][2]string{{"diff.external", "PROG"}},
		control: []string{"diff"},
		tool:    "git_diff", toolArgs: git.DiffInput{}, toolWant: "+changed",
		shell: "git diff", shellWant: "external diff died",
	},
	{
		name:    "diff.<driver>.command",
		attrs:   "*.drv diff=drv\n",
		config:  [][2]string{{"diff.drv.command", "PROG"}},
		control: []string{"diff"},
		tool:    "git_diff", toolArgs: git.DiffInput{}, toolWant: "+changed",
		shell: "git diff", shellWant: "external diff died",
	},
	{
		name:    "diff.<driver>.textconv (git diff)",
		attrs:   "*.drv diff=drv\n",
		config:  [][2]string{{"diff.drv.textconv", "PROG"}},
		control: []string{"diff"},
		tool:    "git_diff", toolArgs: git.DiffInput{}, toolWant: "+changed",
		shell: "git diff", shellWant: "cannot run",
	},
	{
		name:    "diff.<driver>.textconv (git show)",
		attrs:   "*.drv diff=drv\n",
		config:  [][2]string{{"diff.drv.textconv", "PROG"}},
		control: []string{"show"},
		tool:    "git_show", toolArgs: git.ShowInput{}, toolWant: "+main",
		shell: "git show", shellWant: "cannot run",
	},
	{
		name:    "diff.<driver>.textconv (git log -p)",
		attrs:   "*.drv diff=drv\n",
		config:  [][2]string{{"diff.drv.textconv", "PROG"}},
		control: []string{"log", "-p"},
		tool:    "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "git log -p", shellWant: "cannot run",
	},
	{
		name:    "diff.<driver>.textconv (git blame)",
		attrs:   "*.drv diff=drv\n",
		config:  [][2]string{{"diff.drv.textconv", "PROG"}},
		control: []string{"blame", "f.drv"},
		tool:    "git_blame", toolArgs: git.BlameInput{Path: "f.drv"}, toolWant: "changed",
		shell: "git blame f.drv", shellWant: "cannot run",
	},
	{
		name:    "filter.<driver>.clean (git add)",
		attrs:   "*.drv filter=drv\n",
		config:  [][2]string{{"filter.drv.clean", "PROG"}},
		control: []string{"add", "f.drv"},
		tool:    "git_add", toolArgs: git.AddInput{Paths: []string{"f.drv"}}, toolWant: "f.drv",
		shell: "git add f.drv && git diff --cached --name-only", shellWant: "f.drv",
	},
	{
		name:    "filter.<driver>.clean (git status)",
		attrs:   "*.drv filter=drv\n",
		prep:    func(r *repo) { r.restore() },
		config:  [][2]string{{"filter.drv.clean", "PROG"}},
		control: []string{"status"},
		tool:    "git_status", toolArgs: struct{}{}, toolWant: "## main",
		shell: "git status", shellWant: "On branch main",
	},
	{
		name:    "filter.<driver>.smudge (git switch)",
		attrs:   "*.drv filter=drv\n",
		prep:    func(r *repo) { r.restore() },
		config:  [][2]string{{"filter.drv.smudge", "PROG"}},
		control: []string{"switch", "other"},
		tool:    "git_checkout", toolArgs: git.CheckoutInput{Branch: "other"}, toolWant: "other",
		shell: "git switch other", shellWant: "Switched to branch 'other'",
	},
	{
		name:    "filter.<driver>.process",
		attrs:   "*.drv filter=drv\n",
		config:  [][2]string{{"filter.drv.process", "PROG"}},
		control: []string{"add", "f.drv"},
		tool:    "git_add", toolArgs: git.AddInput{Paths: []string{"f.drv"}}, toolWant: "f.drv",
		shell: "git add f.drv && git diff --cached --name-only", shellWant: "f.drv",
	},
	{
		name:    "filter driver with a dotted, mixed-case name",
		attrs:   "*.drv filter=Dr.v\n",
		config:  [][2]string{{"filter.Dr.v.clean", "PROG"}},
		control: []string{"add", "f.drv"},
		tool:    "git_add", toolArgs: git.AddInput{Paths: []string{"f.drv"}}, toolWant: "f.drv",
		shell: "git add f.drv && git diff --cached --name-only", shellWant: "f.drv",
	},
	{
		name:    "merge.<driver>.driver",
		attrs:   "*.drv merge=drv\n",
		prep:    func(r *repo) { r.restore() },
		config:  [][2]string{{"merge.drv.driver", "PROG"}},
		control: []string{"merge", "other"},
		shell:   "git merge other",
	},
	{
		name:    "alias",
		config:  [][2]string{{"alias.st", "!PROG"}},
		control: []string{"st"},
		shell:   "git st",
	},
	{
		name:    "gpg.program (log.showSignature)",
		prep:    func(r *repo) { r.sign("PGP SIGNATURE") },
		config:  [][2]string{{"log.showSignature", "true"}, {"gpg.program", "PROG"}},
		control: []string{"log", "-1"},
		tool:    "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "git log -1", shellWant: "second",
	},
	{
		name:    "gpg.openpgp.program (log.showSignature)",
		prep:    func(r *repo) { r.sign("PGP SIGNATURE") },
		config:  [][2]string{{"log.showSignature", "true"}, {"gpg.openpgp.program", "PROG"}},
		control: []string{"log", "-1"},
		tool:    "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "git log -1", shellWant: "second",
	},
	{
		name: "gpg.ssh.program (log.showSignature)",
		prep: func(r *repo) { r.sign("SSH SIGNATURE") },
		config: [][2]string{{"log.showSignature", "true"}, {"gpg.format", "ssh"},
			{"gpg.ssh.allowedSignersFile", "DIR/.git/description"}, {"gpg.ssh.program", "PROG"}},
		control: []string{"log", "-1"},
		tool:    "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "git log -1", shellWant: "second",
	},
	{
		name:    "gpg.x509.program (log.showSignature)",
		prep:    func(r *repo) { r.sign("SIGNED MESSAGE") },
		config:  [][2]string{{"log.showSignature", "true"}, {"gpg.format", "x509"}, {"gpg.x509.program", "PROG"}},
		control: []string{"log", "-1"},
		tool:    "git_log", toolArgs: git.LogInput{}, toolWant: "second",
		shell: "git log -1", shellWant: "second",
	},
	{
		name:    "gpg.program (commit.gpgSign)",
		prep:    func(r *repo) { r.git("add", "f.drv") },
		config:  [][2]string{{"commit.gpgSign", "true"}, {"gpg.program", "PROG"}},
		control: []string{"commit", "-m", "x"},
		tool:    "git_commit", toolArgs: git.CommitInput{Message: "x"}, toolWant: "1 file changed",
		shell: "git commit -m x", shellWant: "1 file changed",
	},
	{
		name:    "gpg.ssh.defaultKeyCommand (commit.gpgSign)",
		prep:    func(r *repo) { r.git("add", "f.drv") },
		config:  [][2]string{{"commit.gpgSign", "true"}, {"gpg.format", "ssh"}, {"gpg.ssh.defaultKeyCommand", "PROG"}},
		control: []string{"commit", "-m", "x"},
		tool:    "git_commit", toolArgs: git.CommitInput{Message: "x"}, toolWant: "1 file changed",
		shell: "git commit -m x", shellWant: "1 file changed",
	},
	{
		name:    "remote.<name>.uploadpack",
		config:  [][2]string{{"remote.o.url", "ELSE"}, {"remote.o.uploadpack", "PROG"}},
		control: []string{"ls-remote", "o"},
		shell:   "git ls-remote o", shellWant: "transport 'file' not allowed",
	},
	{
		name:    "remote.<name>.receivepack",
		config:  [][2]string{{"remote.o.url", "ELSE"}, {"remote.o.receivepack", "PROG"}},
		control: []string{"push", "o", "HEAD:refs/heads/x"},
		shell:   "git push o HEAD:refs/heads/x", shellWant: "transport 'file' not allowed",
	},
	{
		name:    "protocol.ext.allow",
		config:  [][2]string{{"protocol.ext.allow", "always"}, {"remote.o.url", "ext::PROG"}},
		control: []string{"ls-remote", "o"},
		shell:   "git ls-remote o", shellWant: "transport 'ext' not allowed",
	},
	{
		name:    "protocol.allow (ext::)",
		config:  [][2]string{{"protocol.allow", "always"}, {"remote.o.url", "ext::PROG"}},
		control: []string{"ls-remote", "o"},
		shell:   "git ls-remote o", shellWant: "transport 'ext' not allowed",
	},
	{
		name:    "remote.<name>.vcs = ext",
		config:  [][2]string{{"protocol.ext.allow", "always"}, {"remote.o.vcs", "ext"}, {"remote.o.url", "PROG"}},
		control: []string{"ls-remote", "o"},
		shell:   "git ls-remote o", shellWant: "transport 'ext' not allowed",
	},
	{
		name:    "core.alternateRefsCommand",
		prep:    func(r *repo) { r.write(".git/objects/info/alternates", filepath.Join(r.other, ".git", "objects")+"\n") },
		config:  [][2]string{{"core.alternateRefsCommand", "PROG"}},
		control: []string{"fetch", "ELSE", "main"},
		shell:   "git fetch ELSE main",
	},
	{
		name:    "core.gitProxy",
		config:  [][2]string{{"core.gitProxy", "PROG"}},
		control: []string{"ls-remote", "git://127.0.0.1:9/r.git"},
		shell:   "git ls-remote git://127.0.0.1:9/r.git",
	},
	{
		name:    "include.path",
		attrs:   "*.drv filter=drv\n",
		prep:    func(r *repo) { r.write(".git/more.cfg", "[filter \"drv\"]\n\tclean = PROG\n") },
		config:  [][2]string{{"include.path", "more.cfg"}},
		control: []string{"add", "f.drv"},
		tool:    "git_add", toolArgs: git.AddInput{Paths: []string{"f.drv"}}, toolWant: "f.drv",
		shell: "git add f.drv && git diff --cached --name-only", shellWant: "f.drv",
	},
	{
		name:    "includeIf onbranch:",
		attrs:   "*.drv diff=drv\n",
		prep:    func(r *repo) { r.write(".git/more.cfg", "[diff \"drv\"]\n\ttextconv = PROG\n") },
		config:  [][2]string{{"includeIf.onbranch:main.path", "more.cfg"}},
		control: []string{"diff"},
		tool:    "git_diff", toolArgs: git.DiffInput{}, toolWant: "+changed",
		shell: "git diff", shellWant: "cannot run",
	},
	{
		name:    "man.viewer and man.<tool>.cmd (git status --help)",
		config:  [][2]string{{"man.viewer", "evil"}, {"man.evil.cmd", "PROG"}},
		control: []string{"status", "--help"},
		shell:   "git status --help",
	},
	{
		name:    "tar.<format>.command",
		config:  [][2]string{{"tar.evil.command", "PROG"}},
		control: []string{"archive", "--format=evil", "HEAD"},
		shell:   "git archive --format=evil HEAD", shellWant: "unable to start '' filter",
	},
	{
		name: "submodule.<name>.update",
		prep: func(r *repo) {
			r.git("-c", "protocol.file.allow=always", "submodule", "--quiet", "add", r.other, "sub")
			r.git("commit", "--quiet", "-m", "sub")
			r.git("-C", "sub", "commit", "--quiet", "--allow-empty", "-m", "ahead")
		},
		config:  [][2]string{{"submodule.sub.update", "!PROG"}},
		control: []string{"submodule", "update"},
		shell:   "git submodule update",
	},
}

// credential is what git credential fill reads.
const credential = "protocol=https\nhost=example.com\n\n"

// TestRepositoryRunsNothing runs each vector three times, in a new
// repository each time: plain git must run the program (the vector is
// real), and the git tool and a shell command must not, while still
// doing their work.
func TestRepositoryRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("the pager cases need script(1) to give git a terminal: %v", err)
	}
	isolate(t)
	tools := map[string]*tool.Tool{}
	for _, tl := range git.New(git.Config{}) {
		tools[tl.Name()] = tl
	}
	run := shell.NewRunShellCommand(shell.Config{})
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			t.Run("plain git runs it", func(t *testing.T) {
				r := newVectorRepo(t, v)
				args := r.expand(v.control)
				cmd := exec.Command("git", args...)
				if v.tty {
					cmd = exec.Command("script", "-qec", "git "+strings.Join(args, " "), "/dev/null")
				}
				cmd.Dir, cmd.Env, cmd.Stdin = r.dir, plainEnv(), strings.NewReader(v.stdin)
				out, _ := cmd.CombinedOutput()
				if !r.ran() {
					t.Fatalf("git %s did not run the program: the vector is not real on this git\n%s", strings.Join(args, " "), out)
				}
			})
			if v.tool != "" {
				t.Run(v.tool, func(t *testing.T) {
					r := newVectorRepo(t, v)
					res := r.call(tools[v.tool], v.toolArgs)
					if r.ran() {
						t.Errorf("%s ran the repository's program", v.tool)
					}
					if !res.Success || !strings.Contains(res.Output, v.toolWant) {
						t.Errorf("%s: Success = %v, output %q, error %q; want success with %q", v.tool, res.Success, res.Output, res.Error, v.toolWant)
					}
				})
			}
			t.Run("run_shell_command", func(t *testing.T) {
				r := newVectorRepo(t, v)
				res := r.call(run, shell.RunInput{Command: r.expand([]string{v.shell})[0]})
				if r.ran() {
					t.Errorf("%q ran the repository's program:\n%s", v.shell, res.Output)
				}
				if !strings.Contains(res.Output, v.shellWant) {
					t.Errorf("%q: output lacks %q:\n%s", v.shell, v.shellWant, res.Output)
				}
			})
		})
	}
}

// TestCommitRunsHooksOnlyWhenTrusted checks git_commit's RunHooks.
func TestCommitRunsHooksOnlyWhenTrusted(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		runHooks bool
		want     bool
	}{{false, false}, {true, true}} {
		r := newVectorRepo(t, vector{prep: func(r *repo) { r.hook(".git/hooks", "pre-commit"); r.git("add", "f.drv") }})
		res := r.call(git.NewCommit(git.Config{RunHooks: tc.runHooks}), git.CommitInput{Message: "x"})
		if !res.Success {
			t.Fatalf("RunHooks %v: git_commit failed: %s", tc.runHooks, res.Error)
		}
		if got := r.ran(); got != tc.want {
			t.Errorf("RunHooks %v: the pre-commit hook ran = %v, want %v", tc.runHooks, got, tc.want)
		}
	}
}

// TestShellGitHooks checks shell.Config.GitHooks.
func TestShellGitHooks(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		hooks bool
		want  bool
	}{{false, false}, {true, true}} {
		r := newVectorRepo(t, vector{prep: func(r *repo) { r.hook(".git/hooks", "pre-commit"); r.git("add", "f.drv") }})
		res := r.call(shell.NewRunShellCommand(shell.Config{GitHooks: tc.hooks}), shell.RunInput{Command: "git commit -m x"})
		if !strings.Contains(res.Output, "1 file changed") {
			t.Fatalf("GitHooks %v: git commit: %s", tc.hooks, res.Output)
		}
		if got := r.ran(); got != tc.want {
			t.Errorf("GitHooks %v: the pre-commit hook ran = %v, want %v", tc.hooks, got, tc.want)
		}
	}
}

// TestShellGitTakesNoOptionalLocks: git through the shell runs with
// GIT_OPTIONAL_LOCKS=0, so a git status the policy ran as read-only does
// not write the index.
func TestShellGitTakesNoOptionalLocks(t *testing.T) {
	isolate(t)
	r := newVectorRepo(t, vector{})
	res := r.call(shell.NewRunShellCommand(shell.Config{}), shell.RunInput{Command: `printf '%s' "$GIT_OPTIONAL_LOCKS"`})
	if strings.TrimSpace(res.Output) != "0" {
		t.Errorf("GIT_OPTIONAL_LOCKS in a shell command = %q, want 0", res.Output)
	}
}

// TestUserSettingsStillApply checks that what the user configured (here
// in the global configuration) still runs where the repository's
// settings are overridden: the user's credential helper, and the user's
// own definition of a filter the repository also defines.
func TestUserSettingsStillApply(t *testing.T) {
	home := isolate(t)
	r := newVectorRepo(t, vector{
		attrs:  "*.drv filter=drv\n",
		config: [][2]string{{"credential.helper", "!PROG"}, {"filter.drv.clean", "PROG"}},
	})
	mark := filepath.Join(tempDir(t), "user-ran")
	userProg := script(t, mark)
	global := "[user]\n\tname = Ann\n\temail = ann@example.com\n" +
		"[credential]\n\thelper = \"!" + userProg + "\"\n" +
		"[filter \"drv\"]\n\tclean = " + userProg + "\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"git add f.drv", "printf 'protocol=https\\nhost=example.com\\n\\n' | git credential fill"} {
		res := r.call(shell.NewRunShellCommand(shell.Config{}), shell.RunInput{Command: command})
		if r.ran() {
			t.Errorf("%q ran the repository's program:\n%s", command, res.Output)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Errorf("%q did not run the user's program:\n%s", command, res.Output)
		}
		os.Remove(mark)
	}
}

// isolate gives git a home of its own with a user's name, and no system
// configuration, for the rest of the test; it returns the home.
func isolate(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ann\n\temail = ann@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// plainEnv is the environment of the positive controls: the test's,
// less the variables that would choose a pager or an editor instead of
// the configuration.
func plainEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS", "SSH_ASKPASS":
			return true
		}
		return strings.HasPrefix(name, "GIT_CONFIG_") && name != "GIT_CONFIG_NOSYSTEM"
	})
}

// A repo is a repository for one run of a vector.
type repo struct {
	t     *testing.T
	dir   string // the repository, the workspace root
	other string // another repository, ELSE
	mark  string // the file PROG creates
	prog  string // PROG
	root  *os.Root
}

// newVectorRepo makes a repository on branch main: a first commit with
// a.txt, f.drv ("base") and v's .gitattributes; a branch other that
// changes f.drv to "other"; a second commit on main that changes it to
// "main"; and f.drv changed to "changed" in the working tree. Then it
// runs v.prep and sets v.config.
func newVectorRepo(t *testing.T, v vector) *repo {
	t.Helper()
	r := &repo{t: t, dir: tempDir(t), other: tempDir(t)}
	r.mark = filepath.Join(tempDir(t), "ran")
	r.prog = script(t, r.mark)
	r.git("-C", r.other, "init", "--quiet", "--initial-branch=main")
	r.git("-C", r.other, "commit", "--quiet", "--allow-empty", "-m", "elsewhere")
	r.git("init", "--quiet", "--initial-branch=main")
	r.write("a.txt", "one\n")
	r.write("f.drv", "base\n")
	if v.attrs != "" {
		r.write(".gitattributes", v.attrs)
	}
	r.git("add", ".")
	r.git("commit", "--quiet", "-m", "first")
	r.git("switch", "--quiet", "-c", "other")
	r.write("f.drv", "other\n")
	r.git("commit", "--quiet", "-am", "other")
	r.git("switch", "--quiet", "main")
	r.write("f.drv", "main\n")
	r.git("commit", "--quiet", "-am", "second")
	r.write("f.drv", "changed\n")
	if v.prep != nil {
		v.prep(r)
	}
	for _, kv := range v.config {
		r.git("config", kv[0], r.expand([]string{kv[1]})[0])
	}
	var err error
	if r.root, err = os.OpenRoot(r.dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.root.Close() })
	return r
}

// script writes a program that creates mark and returns its path.
func script(t *testing.T, mark string) string {
	t.Helper()
	p := filepath.Join(tempDir(t), "prog")
	if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch '"+mark+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// tempDir is t.TempDir with a name the shell needs no quotes for
// (t.TempDir's holds the test's name, with its parentheses).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gitsafe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// expand replaces PROG, DIR and ELSE in args.
func (r *repo) expand(args []string) []string {
	rep := strings.NewReplacer("PROG", r.prog, "DIR", r.dir, "ELSE", r.other)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = rep.Replace(a)
	}
	return out
}

// git runs git in the repository, without wield, and fails the test if
// it fails.
func (r *repo) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, plainEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(r.expand([]string{content})[0]), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// hook makes PROG the hook name in the directory dir of the repository.
func (r *repo) hook(dir, name string) {
	r.t.Helper()
	r.write(filepath.Join(dir, name), "#!/bin/sh\nexec PROG\n")
	if err := os.Chmod(filepath.Join(r.dir, dir, name), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// restore undoes the change to f.drv in the working tree, and dates the
// file in the past, so that git must read it again to know it has not
// changed.
func (r *repo) restore() {
	r.t.Helper()
	r.write("f.drv", "main\n")
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(r.dir, "f.drv"), old, old); err != nil {
		r.t.Fatal(err)
	}
}

// sign gives the commit main points at a signature header of the kind
// named (such as "PGP SIGNATURE"), which git verifies to show it.
func (r *repo) sign(kind string) {
	r.t.Helper()
	cmd := exec.Command("git", "cat-file", "commit", "HEAD")
	cmd.Dir, cmd.Env = r.dir, plainEnv()
	body, err := cmd.Output()
	if err != nil {
		r.t.Fatal(err)
	}
	head, msg, _ := strings.Cut(string(body), "\n\n")
	signed := head + "\ngpgsig -----BEGIN " + kind + "-----\n \n U0lHTkFUVVJF\n -----END " + kind + "-----\n\n" + msg
	cmd = exec.Command("git", "hash-object", "-t", "commit", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, plainEnv(), strings.NewReader(signed)
	id, err := cmd.Output()
	if err != nil {
		r.t.Fatal(err)
	}
	r.git("update-ref", "refs/heads/main", strings.TrimSpace(string(id)))
}

// ran reports whether PROG ran.
func (r *repo) ran() bool {
	_, err := os.Stat(r.mark)
	return err == nil
}

// call calls t with args in the repository.
func (r *repo) call(t *tool.Tool, args any) tool.Result {
	r.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := t.Handler().Handle(r.t.Context(), &tool.Call{Root: r.root, ID: "call", SessionID: "test"}, raw)
	if err != nil {
		r.t.Fatalf("%s(%s): %v", t.Name(), raw, err)
	}
	return res
}
