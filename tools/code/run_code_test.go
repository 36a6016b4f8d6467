package code_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/code"
)

// TestMain makes the test binary the sandbox helper, as wield's main is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// newSandbox returns the strongest sandbox this machine offers, and
// fails the test when there is none.
func newSandbox(t testing.TB) *sandbox.Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: []string{exe, sandbox.HelperArg}})
	if err != nil {
		t.Fatalf("no sandbox on this machine: %v", err)
	}
	return sb
}

// needs fails the test when an interpreter the tests run is missing: CI
// installs them (scripts/test.sh).
func needs(t testing.TB, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed; the tests of run_code need python3, node and bash", p)
		}
	}
}

type env struct {
	t    *testing.T
	tool *tool.Tool
	ws   string
	root *os.Root
	n    int
}

func newEnv(t *testing.T, cfg code.Config) *env {
	t.Helper()
	needs(t, "python3", "node", "bash")
	if cfg.Sandbox == nil {
		cfg.Sandbox = newSandbox(t)
	}
	ws := t.TempDir()
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &env{t: t, tool: code.NewRunCode(cfg), ws: ws, root: root}
}

// call runs run_code with in, validated against its schema as the runner
// would, and returns the result and its data.
func (e *env) call(in map[string]any) (tool.Result, code.RunData) {
	e.t.Helper()
	args, err := json.Marshal(in)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.tool.Schema().Validate(args); err != nil {
		return tool.Failure(err.Error()), code.RunData{}
	}
	e.n++
	c := &tool.Call{ID: "call" + strconv.Itoa(e.n), SessionID: "s", Tool: "run_code", Root: e.root}
	res, err := e.tool.Handler().Handle(e.t.Context(), c, args)
	if err != nil {
		e.t.Fatalf("run_code(%s) = %v", args, err)
	}
	d, _ := res.Data.(code.RunData)
	return res, d
}

func TestRunCode_ContextAndResult(t *testing.T) {
	e := newEnv(t, code.Config{})
	ctx := map[string]any{"name": "wield", "n": 41, "items": []int{1, 2, 3}}
	cases := []struct {
		lang, code, stdout string
	}{
		{"python", "print(name, context['n'])\nresult = {'n': n + 1, 'sum': sum(items)}", "wield 41\n"},
		{"javascript", "console.log(context.name, context.n)\nresult = {n: context.n + 1, sum: context.items.reduce((a, b) => a + b)}", "wield 41\n"},
		{"javascript", "let result;\n(async () => { const os = await import('node:os'); result = {n: context.n + 1, sum: os.EOL.length + 5} })()\nconsole.log('wield 41')", "wield 41\n"},
		{"bash", `echo "$name" "$n"; sum=$(python3 -c 'import json,os; print(sum(json.load(open(os.environ["WIELD_CONTEXT"]))["items"]))'); echo "{\"n\": $((n+1)), \"sum\": $sum}" > "$WIELD_RESULT"`, "wield 41\n"},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			res, d := e.call(map[string]any{"language": c.lang, "code": c.code, "context": ctx})
			if !res.Success || d.Stdout != c.stdout {
				t.Fatalf("run_code(%s) = %+v; want success and stdout %q", c.lang, res, c.stdout)
			}
			var got map[string]any
			if err := json.Unmarshal(d.Result, &got); err != nil {
				t.Fatalf("result %q: %v", d.Result, err)
			}
			if diff := cmp.Diff(map[string]any{"n": 42.0, "sum": 6.0}, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if !strings.Contains(res.Output, `"sum"`) {
				t.Errorf("output does not show the result:\n%s", res.Output)
			}
		})
	}
}

func TestRunCode_StdinFilesAndExitCode(t *testing.T) {
	e := newEnv(t, code.Config{InlineLimit: 100})
	res, d := e.call(map[string]any{"language": "python",
		"code":  "import sys\ndata = open('in/data.txt').read() + sys.stdin.read()\nopen('out.txt', 'w').write(data.upper())\nopen('big.bin', 'wb').write(bytes(1000))\nsys.exit(3)",
		"stdin": "def", "files": map[string]string{"in/data.txt": "abc"}})
	if res.Success || d.ExitCode != 3 || res.Error != "exit code 3" {
		t.Fatalf("exit 3: %+v", res)
	}
	if len(d.Files) != 2 {
		t.Fatalf("files = %+v, want big.bin and out.txt", d.Files)
	}
	if f := d.Files[1]; f.Path != "out.txt" || f.Content == nil || *f.Content != "ABCDEF" {
		t.Errorf("out.txt = %+v, want content ABCDEF", f)
	}
	big := d.Files[0]
	if big.Path != "big.bin" || big.Content != nil || big.Saved == "" {
		t.Fatalf("big.bin = %+v, want a saved copy", big)
	}
	if b, err := e.root.ReadFile(big.Saved); err != nil || len(b) != 1000 {
		t.Errorf("saved copy %s: %d bytes, %v", big.Saved, len(b), err)
	}
}

func TestRunCode_OutputIsCutAndSaved(t *testing.T) {
	e := newEnv(t, code.Config{OutputLimit: 1000})
	res, d := e.call(map[string]any{"language": "bash", "code": "seq 1 20000"})
	if !res.Success || len(d.Stdout) > 1100 || d.StdoutPath == "" {
		t.Fatalf("seq: success %t, %d bytes shown, path %q", res.Success, len(d.Stdout), d.StdoutPath)
	}
	b, err := e.root.ReadFile(d.StdoutPath)
	if err != nil || !strings.HasSuffix(string(b), "\n20000\n") || !strings.HasPrefix(string(b), "1\n2\n") {
		t.Errorf("saved stdout: %d bytes, %v", len(b), err)
	}
	if !strings.Contains(res.Output, d.StdoutPath) {
		t.Errorf("output does not name %s", d.StdoutPath)
	}
}

func TestRunCode_NoStateBetweenCalls(t *testing.T) {
	sessions := code.NewSessions(1)
	e := newEnv(t, code.Config{Sessions: sessions})
	write := map[string]any{"language": "python", "code": "open('kept.txt', 'w').write('1')\nx = 1"}
	read := map[string]any{"language": "bash", "code": "cat kept.txt"}

	if res, _ := e.call(write); !res.Success {
		t.Fatal(res)
	}
	if res, _ := e.call(read); res.Success {
		t.Errorf("a file written by one call was seen by the next: %+v", res)
	}
	write["session"], read["session"] = "s1", "s1"
	if res, _ := e.call(write); !res.Success {
		t.Fatal(res)
	}
	if res, d := e.call(read); !res.Success || d.Stdout != "1" || len(d.Files) != 0 {
		t.Errorf("in session s1, the file written by the call before: %+v", res)
	}
	if res, _ := e.call(map[string]any{"language": "bash", "code": "true", "session": "s2"}); res.Success || !strings.Contains(res.Error, "reuse one of them") {
		t.Errorf("a second session past the bound of 1: %+v", res)
	}
	if err := sessions.Close(); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.call(read); res.Success {
		t.Errorf("a session call after Close succeeded: %+v", res)
	}
}

func TestRunCode_SessionsAreRemovedOnClose(t *testing.T) {
	sessions := code.NewSessions(0)
	e := newEnv(t, code.Config{Sessions: sessions})
	res, d := e.call(map[string]any{"language": "bash", "code": "pwd", "session": "a"})
	if !res.Success {
		t.Fatal(res)
	}
	dir := strings.TrimSpace(d.Stdout)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("session directory %s: %v", dir, err)
	}
	sessions.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory %s after Close: %v, want it gone", dir, err)
	}
}

func TestRunCode_Refusals(t *testing.T) {
	cases := []struct {
		name string
		cfg  code.Config
		in   map[string]any
		want string
	}{
		{"missing interpreter", code.Config{Interpreters: map[code.Language]string{code.Python: "no-such-python3"}},
			map[string]any{"language": "python", "code": "print(1)"}, "no-such-python3 is not installed"},
		{"missing default interpreter", code.Config{Interpreters: map[code.Language]string{code.JavaScript: "/nonexistent/node"}},
			map[string]any{"language": "javascript", "code": "1"}, "/nonexistent/node is not installed"},
		{"no sandbox", code.Config{Sandbox: unavailable{}},
			map[string]any{"language": "python", "code": "print(1)"}, "install bubblewrap"},
		{"unknown language", code.Config{}, map[string]any{"language": "ruby", "code": "1"}, "must be one of"},
		{"empty code", code.Config{}, map[string]any{"language": "bash", "code": " "}, "code is empty"},
		{"timeout too large", code.Config{}, map[string]any{"language": "bash", "code": "true", "timeout": 100000}, "timeout must be between 1 and 300"},
		{"absolute file", code.Config{}, map[string]any{"language": "bash", "code": "true", "files": map[string]string{"/etc/x": ""}}, "relative path"},
		{"file leaves scratch", code.Config{}, map[string]any{"language": "bash", "code": "true", "files": map[string]string{"a/../../x": ""}}, "leaves the scratch"},
		{"context not an object", code.Config{}, map[string]any{"language": "bash", "code": "true", "context": []int{1}}, "want object"},
		{"session without sessions", code.Config{}, map[string]any{"language": "bash", "code": "true", "session": "a"}, "sessions are not available"},
		{"bad session name", code.Config{}, map[string]any{"language": "bash", "code": "true", "session": "../a"}, "session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.cfg)
			res, _ := e.call(c.in)
			if res.Success || !strings.Contains(res.Error, c.want) {
				t.Errorf("run_code(%v) = %+v; want a failure mentioning %q", c.in, res, c.want)
			}
		})
	}
}

// TestRunCode_Escapes runs each attempt to get out of the sandbox through
// run_code and checks that it fails with a message and changes nothing.
func TestRunCode_Escapes(t *testing.T) {
	// A lower memory limit than the default, so that Node gives up sooner.
	e := newEnv(t, code.Config{Memory: 256 << 20})
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// A process holding a secret in its environment, which code must not
	// read through /proc.
	secret := exec.Command("sleep", "60")
	secret.Env = []string{"WIELD_TEST_SECRET=hunter2"}
	if err := secret.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { secret.Process.Kill(); secret.Wait() }()
	mark := strconv.Itoa(os.Getpid())

	cases := []struct {
		name, lang, code string
		timeout          int
		want             string // in the result's error
		pidNamespace     bool   // needs a PID namespace to hold
	}{
		{name: "write outside scratch", lang: "python", code: fmt.Sprintf("open(%q, 'w').write('x')", victim), want: "exit code 1"},
		{name: "write the workspace", lang: "bash", code: "echo x > " + filepath.Join(e.ws, "new"), want: "exit code 1"},
		{name: "write /etc", lang: "javascript", code: "require('fs').writeFileSync('/etc/wield-escape', 'x')", want: "exit code 1"},
		{name: "read another process's environment", lang: "python", code: fmt.Sprintf("print(open('/proc/%d/environ').read())", secret.Process.Pid), want: "exit code 1", pidNamespace: true},
		{name: "open a network socket", lang: "python", code: fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=5).recv(10)", port), want: "exit code 1"},
		// Nothing bounds the number of processes (see the sandbox
		// package): the wall-clock limit ends the bomb, and every process
		// of it dies. A shell forking in a loop rather than a tree of
		// them, so as not to take every pid of the machine meanwhile.
		{name: "fork bomb", lang: "bash", code: "while :; do sleep 1000." + mark + " & done", timeout: 1, want: "stopped after 1s"},
		{name: "fill memory", lang: "python", code: "x = bytearray(4 << 30)\nprint('allocated')", want: "exit code 1"},
		{name: "fill memory in node", lang: "javascript", code: "const a = []; for (;;) a.push(new Array(1e6).fill(1.5))", want: "memory"},
		{name: "run past the timeout", lang: "python", code: "while True: pass", timeout: 1, want: "stopped after 1s"},
	}
	caps := newSandbox(t).Capabilities()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := map[string]any{"language": c.lang, "code": c.code}
			if c.pidNamespace && !caps.PIDNamespace {
				// As the sandbox package documents: without a PID
				// namespace (Landlock alone), other processes' /proc
				// files stay readable. Check that the capabilities say so.
				res, d := e.call(in)
				if !res.Success || !strings.Contains(d.Stdout, "hunter2") {
					t.Errorf("%s: %+v; %s claims no PID namespace, yet /proc of another process was not readable", c.name, res, caps.Mechanism)
				}
				return
			}
			if c.timeout > 0 {
				in["timeout"] = c.timeout
			}
			res, d := e.call(in)
			if res.Success || !strings.Contains(res.Error, c.want) {
				t.Errorf("%s: %+v; want a failure mentioning %q", c.name, res, c.want)
			}
			t.Logf("%s: %s (exit %d, signal %q, limit %q); stderr: %.200s", c.name, res.Error, d.ExitCode, d.Signal, d.Limit, lastLine(d.Stderr))
			if strings.Contains(d.Stdout, "hunter2") || strings.Contains(d.Stdout, "hello") || strings.Contains(d.Stdout, "allocated") {
				t.Errorf("%s: stdout %q shows the escape worked", c.name, d.Stdout)
			}
			if left := processesWith(t, "1000."+mark); len(left) > 0 {
				t.Errorf("%d processes of the fork bomb outlived the call", len(left))
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
				t.Errorf("victim = %q, %v; want \"keep\"", b, err)
			}
			for _, p := range []string{filepath.Join(e.ws, "new"), "/etc/wield-escape"} {
				if _, err := os.Stat(p); err == nil {
					os.Remove(p)
					t.Errorf("%s was created", p)
				}
			}
		})
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// processesWith lists the command lines of live processes that contain s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	names, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err == nil && strings.Contains(string(b), s) {
			found = append(found, string(b))
		}
	}
	return found
}

// unavailable is a sandbox that cannot be had, as one made on first use
// may turn out.
type unavailable struct{}

func (unavailable) Run(context.Context, *sandbox.Command) (*sandbox.Result, error) {
	return nil, &sandbox.UnavailableError{Minimum: sandbox.LevelNetwork, Probed: []sandbox.Capabilities{
		{Mechanism: sandbox.Bubblewrap, Reason: "bwrap not found: install bubblewrap"}}}
}
