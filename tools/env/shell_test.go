package env_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/tools/shell"
)

// TestRequestedValueReachesTheShell requests a secret with request_env
// and runs real shell commands with [shell.Config.Env] set to the values
// the user gave, as wield does: the command sees the value (it prints its
// hash, which the test compares), while the secret is nowhere in the
// workspace afterwards (the journal, the log, the --json events, which
// wield passes through [env.RedactEvent]), nor in what the model reads,
// even though a command echoed it.
func TestRequestedValueReachesTheShell(t *testing.T) {
	const secret = "s3cret-shell-4b1d7e0a"
	ws := t.TempDir()
	live := &session.SecretSet{}
	store := &session.Store{Dir: filepath.Join(ws, ".wield", "sessions"), Live: live}
	if err := os.MkdirAll(filepath.Join(ws, ".wield"), 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(ws, ".wield", "wield.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	logger := slog.New(env.RedactLogs(slog.NewJSONHandler(logFile, nil), live))
	store.Logger = logger

	vars := &env.Vars{}
	cfg := env.Config{Vars: vars, Secrets: live, Asker: env.AskerFunc(func(context.Context, env.Request) (env.Answer, error) {
		return env.Answer{Value: secret}, nil
	})}
	reg, err := tool.NewRegistry(append(env.Tools(cfg), shell.Tools(shell.Config{Env: vars.Environ})...)...)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer // what wield run --json prints
	enc := json.NewEncoder(&events)
	runner := tool.NewRunner(reg, &tool.RunnerOptions{Gate: env.RedactResults(nil, live), Recorder: s, Logger: logger,
		OnEvent: func(e tool.Event) { _ = enc.Encode(env.RedactEvent(e, live)) }})
	ctx := t.Context()
	if err := s.Begin(ctx, "deploy with the token"); err != nil {
		t.Fatal(err)
	}
	var results []tool.Result
	for i, args := range []string{
		`{"name":"DEPLOY_TOKEN","reason":"the deploy script needs it"}`,
		`{"command":"printf %s \"$DEPLOY_TOKEN\" | sha256sum"}`,
		`{"command":"echo token is $DEPLOY_TOKEN; env | grep DEPLOY_TOKEN"}`,
	} {
		name := "run_shell_command"
		if i == 0 {
			name = "request_env"
		}
		rs, err := runner.Run(ctx, tool.Call{SessionID: s.ID(), Root: root}, []tool.Request{{ID: string(rune('1' + i)), Name: name, Arguments: json.RawMessage(args)}})
		if err != nil {
			t.Fatal(err)
		}
		if !rs[0].Success {
			t.Fatalf("%s %s failed: %s", name, args, rs[0].ForModel())
		}
		results = append(results, rs...)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	if want := hex.EncodeToString(sum[:]); !strings.Contains(results[1].Output, want) {
		t.Errorf("the command did not see the value: sha256sum printed %q, want %s", results[1].Output, want)
	}
	if out := results[2].Output; !strings.Contains(out, "token is "+session.Redacted) || !strings.Contains(out, "DEPLOY_TOKEN="+session.Redacted) {
		t.Errorf("the echoed value is not redacted in the result: %q", out)
	}
	for _, r := range results {
		if strings.Contains(r.ForModel(), secret) {
			t.Errorf("the model reads the secret: %q", r.ForModel())
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "events.jsonl"), events.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// grep -r the whole workspace.
	files := 0
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("only %d files in the workspace; the journal, the log and the events were expected", files)
	}
}

// TestShellEnvWithoutValues checks that a nil Env, and an Env with no
// values, leave commands their usual environment.
func TestShellEnvWithoutValues(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, cfg := range []shell.Config{{}, {Env: (&env.Vars{}).Environ}} {
		reg, err := tool.NewRegistry(shell.Tools(cfg)...)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := tool.NewRunner(reg, nil).Run(t.Context(), tool.Call{Root: root}, []tool.Request{{ID: "1", Name: "run_shell_command",
			Arguments: json.RawMessage(`{"command":"echo \"pager=$PAGER\""}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rs[0].Output, "pager=cat") {
			t.Errorf("output = %q, want pager=cat", rs[0].Output)
		}
	}
}
