package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield/sandbox"
)

// A secret is a credential planted in a fake home directory: a file
// holding its marker, or a directory holding a file named by its marker
// and holding it too, so that neither a read nor a listing may show it.
type secret struct {
	path   string
	dir    bool
	marker string
}

// plant creates s and fails the test on error.
func (s secret) plant(t testing.TB) {
	t.Helper()
	file := s.path
	if s.dir {
		file = filepath.Join(s.path, s.marker)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(s.marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fakeUser points HOME, XDG_CONFIG_HOME, WIELD_HOME and some of the
// variables that move credentials at new directories, and plants a
// secret at each path hidden by default there: files and directories in
// turn (save a few that other tests plant more in). It returns the home
// directory and the secrets.
func fakeUser(t *testing.T) (home string, secrets []secret) {
	t.Helper()
	home, xdg, wieldHome, elsewhere := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": xdg, "WIELD_HOME": wieldHome,
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(elsewhere, "aws-credentials"),
		"KUBECONFIG":                  filepath.Join(elsewhere, "kube-a") + ":" + filepath.Join(elsewhere, "kube-b"),
		"CARGO_HOME":                  filepath.Join(elsewhere, "cargo"),
		"GNUPGHOME":                   filepath.Join(elsewhere, "gnupg"),
		"SSH_AUTH_SOCK":               filepath.Join(elsewhere, "agent.sock"),
		"XDG_RUNTIME_DIR":             filepath.Join(elsewhere, "run"),
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	paths := append(sandbox.CredentialPaths(home, xdg), wieldHome,
		env["AWS_SHARED_CREDENTIALS_FILE"], filepath.Join(elsewhere, "kube-a"), filepath.Join(elsewhere, "kube-b"),
		filepath.Join(elsewhere, "cargo", "credentials.toml"), env["GNUPGHOME"], env["SSH_AUTH_SOCK"], env["XDG_RUNTIME_DIR"])
	for i, p := range paths {
		s := secret{path: p, dir: i%2 == 1, marker: fmt.Sprintf("secret-%03d", i)}
		switch filepath.Base(p) {
		case filepath.Base(wieldHome), "run", ".ssh", ".aws", "gh":
			s.dir = true // made by t.TempDir, or a directory the tests plant more in
		}
		if p != wieldHome || s.dir {
			s.plant(t)
		}
		secrets = append(secrets, s)
	}
	return home, secrets
}

// readAll is a script that prints every secret it can read or list.
func readAll(secrets []secret) []string {
	var b strings.Builder
	for _, s := range secrets {
		if s.dir {
			fmt.Fprintf(&b, "ls -a %q; cat %q/*; ", s.path, s.path)
		} else {
			fmt.Fprintf(&b, "cat %q; ", s.path)
		}
	}
	b.WriteString("true")
	return sh(b.String())
}

// TestHidesCredentials plants a secret at each path hidden by default in
// a fake home directory and checks that a sandboxed command can neither
// read nor list any, and that the same command shows them all when
// nothing is hidden.
func TestHidesCredentials(t *testing.T) {
	_, secrets := fakeUser(t)
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		res := run(t, sb, &sandbox.Command{Args: readAll(secrets)})
		for _, s := range secrets {
			if strings.Contains(string(res.Stdout), s.marker) {
				t.Errorf("%s was read in the sandbox: %s", s.path, s.marker)
			}
		}
	})
	t.Run("control", func(t *testing.T) {
		for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
			sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: m, Show: []string{"/"}})
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, sb, &sandbox.Command{Args: readAll(secrets)})
			for _, s := range secrets {
				if !strings.Contains(string(res.Stdout), s.marker) {
					t.Errorf("%s: %s not read with Show {\"/\"}; stderr %.200q", m, s.path, res.Stderr)
				}
			}
		}
	})
}

// TestHidesSymlinkTarget checks that a hidden path that is a symbolic
// link hides its target, reached by either name.
func TestHidesSymlinkTarget(t *testing.T) {
	home, _ := fakeUser(t)
	real := filepath.Join(t.TempDir(), "real-ssh")
	s := secret{path: real, dir: true, marker: "linked-secret"}
	s.plant(t)
	link := filepath.Join(home, ".ssh")
	if err := os.RemoveAll(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		for _, p := range []string{link, real} {
			res := run(t, sb, &sandbox.Command{Args: sh("ls " + p + "; cat " + p + "/*")})
			if strings.Contains(string(res.Stdout), s.marker) {
				t.Errorf("%s: the secret was read through %s", sb.Capabilities().Mechanism, p)
			}
		}
	})
}

// TestHidesAgentSocket checks that the socket of an SSH agent, alone in
// its directory as ssh-agent makes it, cannot be reached: under
// bubblewrap its directory is hidden; Landlock restricts connecting to a
// socket only from ABI 9, and then to every socket outside the sandbox.
func TestHidesAgentSocket(t *testing.T) {
	fakeUser(t)
	dir := filepath.Join(t.TempDir(), "ssh-agent")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var served sync.WaitGroup
	defer served.Wait()
	defer ln.Close()
	served.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("agent-answer\n"))
			c.Close()
		}
	})
	t.Setenv("SSH_AUTH_SOCK", sock)
	connect := []string{"python3", "-c", `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print(s.recv(64).decode())`, sock}
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		caps := sb.Capabilities()
		var abi int
		fmt.Sscanf(caps.Version, "ABI %d", &abi)
		want := caps.Mechanism == sandbox.Bubblewrap || abi >= 9
		res := run(t, sb, &sandbox.Command{Args: connect})
		if got := !strings.Contains(string(res.Stdout), "agent-answer"); got != want {
			t.Errorf("connecting to the agent's socket: stdout %q, stderr %.200q; unreachable %t, want %t", res.Stdout, res.Stderr, got, want)
		}
	})
	got, err := sandbox.Hidden(sandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(dir); !slices.Contains(got, real) {
		t.Errorf("Hidden() = %q, want the agent's directory %s in it", got, real)
	}
}

// TestHideAndShow checks that Config.Hide hides more paths and
// Config.Show keeps visible a default one and one inside a hidden
// directory, the rest of which stays hidden.
func TestHideAndShow(t *testing.T) {
	home, _ := fakeUser(t)
	extra := t.TempDir()
	hiddenFile := secret{path: filepath.Join(extra, "token"), marker: "extra-file"}
	hiddenDir := secret{path: filepath.Join(extra, "vault"), dir: true, marker: "extra-dir"}
	shownDefault := secret{path: filepath.Join(home, ".aws"), dir: true, marker: "shown-aws"}
	shownInside := secret{path: filepath.Join(home, ".ssh", "known_hosts"), marker: "shown-known-hosts"}
	stillHidden := secret{path: filepath.Join(home, ".ssh", "id_ed25519"), marker: "still-hidden"}
	for _, s := range []secret{hiddenFile, hiddenDir, shownDefault, shownInside, stillHidden} {
		s.plant(t)
	}
	cfg := sandbox.Config{
		Helper: helper(t),
		Hide:   []string{hiddenFile.path, hiddenDir.path},
		Show:   []string{shownDefault.path, shownInside.path},
	}
	cases := []struct {
		s       secret
		visible bool
	}{
		{hiddenFile, false}, {hiddenDir, false}, {stillHidden, false},
		{shownDefault, true}, {shownInside, true},
	}
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		cfg.Mechanism = m
		sb, err := sandbox.New(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(string(m), func(t *testing.T) {
			for _, c := range cases {
				res := run(t, sb, &sandbox.Command{Args: readAll([]secret{c.s})})
				if got := strings.Contains(string(res.Stdout), c.s.marker); got != c.visible {
					t.Errorf("%s: read %t, want %t; stdout %q, stderr %q", c.s.path, got, c.visible, res.Stdout, res.Stderr)
				}
			}
		})
	}
}

// TestWorkspaceWinsOverHidden checks that a hidden path inside the
// workspace is not hidden, and that a workspace inside a hidden directory
// stays writable while the rest of that directory is hidden.
func TestWorkspaceWinsOverHidden(t *testing.T) {
	home, _ := fakeUser(t)
	ws := t.TempDir()
	inside := secret{path: filepath.Join(ws, "creds"), dir: true, marker: "workspace-file"}
	inside.plant(t)
	nestedWS := filepath.Join(home, ".config", "gh", "project")
	if err := os.MkdirAll(nestedWS, 0o755); err != nil {
		t.Fatal(err)
	}
	ghToken := secret{path: filepath.Join(home, ".config", "gh", "hosts.yml"), marker: "gh-token"}
	ghToken.plant(t)
	for _, m := range []sandbox.Mechanism{sandbox.Bubblewrap, sandbox.Landlock} {
		sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: helper(t), Mechanism: m, Hide: []string{inside.path}})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(string(m), func(t *testing.T) {
			res := run(t, sb, &sandbox.Command{Args: sh("cat creds/" + inside.marker + " && echo new > creds/more && cat creds/more"), Dir: ws, Workspace: ws})
			if res.ExitCode != 0 || string(res.Stdout) != inside.marker+"\nnew\n" {
				t.Errorf("hidden path inside the workspace: exit %d, stdout %q, stderr %q; want it read and written", res.ExitCode, res.Stdout, res.Stderr)
			}
			res = run(t, sb, &sandbox.Command{Args: sh("echo hi > out && cat out; cat " + ghToken.path), Dir: nestedWS, Workspace: nestedWS})
			if string(res.Stdout) != "hi\n" {
				t.Errorf("workspace inside a hidden directory: stdout %q, stderr %q; want the workspace written and the token hidden", res.Stdout, res.Stderr)
			}
		})
	}
}

// TestInterpretersWithHiding runs Python, JavaScript and Bash with the
// credentials hidden: each writes the workspace, and none reads a key.
func TestInterpretersWithHiding(t *testing.T) {
	home, _ := fakeUser(t)
	key := secret{path: filepath.Join(home, ".ssh", "id_rsa"), marker: "private-key"}
	key.plant(t)
	cases := []struct {
		name string
		args []string
	}{
		{"python3", []string{"python3", "-c", `import os
open(os.environ["WS"] + "/python3", "w").write("ok")
try:
    print(open(os.environ["KEY"]).read())
except OSError:
    pass`}},
		{"node", []string{"node", "-e", `const fs = require("fs");
fs.writeFileSync(process.env.WS + "/node", "ok");
try { console.log(fs.readFileSync(process.env.KEY, "utf8")) } catch {}`}},
		{"bash", []string{"bash", "-c", `echo -n ok > "$WS/bash"; cat "$KEY" 2>/dev/null; true`}},
	}
	each(t, func(t *testing.T, sb *sandbox.Sandbox) {
		ws := t.TempDir()
		for _, c := range cases {
			res := run(t, sb, &sandbox.Command{
				Args:      c.args,
				Env:       []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "WS=" + ws, "KEY=" + key.path},
				Workspace: ws,
			})
			b, err := os.ReadFile(filepath.Join(ws, c.name))
			if res.ExitCode != 0 || err != nil || string(b) != "ok" {
				t.Errorf("%s: exit %d, stderr %q, wrote %q (%v); want 0 and \"ok\" in the workspace", c.name, res.ExitCode, res.Stderr, b, err)
			}
			if strings.Contains(string(res.Stdout), key.marker) {
				t.Errorf("%s read the private key", c.name)
			}
		}
	})
}

// TestHidden checks the list Hidden gives: every planted secret, resolved,
// save those Show takes away, and nothing else of the fake home.
func TestHidden(t *testing.T) {
	home, secrets := fakeUser(t)
	shown := filepath.Join(home, ".aws")
	got, err := sandbox.Hidden(sandbox.Config{Show: []string{shown}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(got) {
		t.Errorf("Hidden() = %q, not sorted", got)
	}
	for _, s := range secrets {
		real, err := filepath.EvalSymlinks(s.path)
		if err != nil {
			t.Fatal(err)
		}
		if want := s.path != shown; slices.Contains(got, real) != want {
			t.Errorf("Hidden() lists %s: %t, want %t", real, !want, want)
		}
	}
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, realHome) {
		t.Errorf("Hidden() = %q, want the home directory itself not hidden", got)
	}
	for _, bad := range []sandbox.Config{{Hide: []string{"relative"}}, {Hide: []string{"/"}}, {Show: []string{"~/.ssh"}}} {
		if _, err := sandbox.Hidden(bad); err == nil {
			t.Errorf("Hidden(%+v) succeeded, want an error", bad)
		}
		bad.Helper = helper(t)
		if _, err := sandbox.New(t.Context(), bad); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", bad)
		}
	}
}
