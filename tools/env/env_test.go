package env

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

func call(t *testing.T, tl *tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestContracts(t *testing.T) {
	cases := map[string]tooltest.Cases{
		"get_env":     {Valid: []string{`{"name":"HOME"}`}, Invalid: []string{`{}`, `{"name":1}`}},
		"request_env": {Valid: []string{`{"name":"DEPLOY_TOKEN","reason":"to deploy"}`}, Invalid: []string{`{"name":"X"}`}},
	}
	for _, tl := range Tools(Config{}) {
		if err := tooltest.Check(t.Context(), tl, cases[tl.Name()]); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
}

func TestGetEnv(t *testing.T) {
	env := map[string]string{"GOPATH": "/go", "GITHUB_TOKEN": "ghp_x", "NPM_TOKEN": "npm_x", "db_password": "pw"}
	cfg := Config{Lookup: func(n string) (string, bool) { v, ok := env[n]; return v, ok }, Allow: []string{"NPM_*"}, Vars: &Vars{}}
	cfg.Vars.Set("API_BASE", "https://api.example.com", false)
	cfg.Vars.Set("DEPLOY_KEY", "k-123456", true)
	tests := []struct {
		name    string
		success bool
		out     string
	}{
		{"GOPATH", true, "/go"},
		{"GITHUB_TOKEN", false, "looks like a secret"},
		{"db_password", false, "looks like a secret"},
		{"NPM_TOKEN", true, "npm_x"},
		{"UNSET", true, "is not set"},
		{"API_BASE", true, "https://api.example.com"},
		{"DEPLOY_KEY", true, "its value is not shown"},
		{"1BAD", false, "not a variable name"},
	}
	gt := GetEnv(cfg)
	for _, tt := range tests {
		res := call(t, gt, `{"name":"`+tt.name+`"}`)
		text := res.Output + res.Error
		if res.Success != tt.success || !strings.Contains(text, tt.out) || strings.Contains(text, "k-123456") || strings.Contains(text, "ghp_x") {
			t.Errorf("get_env(%s) = %+v; want success %v with %q", tt.name, res, tt.success, tt.out)
		}
	}
	if (Config{Deny: []string{}}).Denied("API_KEY") {
		t.Error("an empty deny list still denies")
	}
}

func TestRequestEnv(t *testing.T) {
	var asked []Request
	answers := map[string]Answer{"DEPLOY_TOKEN": {Value: "tok-5f2a9c"}, "REGION": {Value: "eu-west-1"}, "SHORT_KEY": {Value: "abc"},
		"MARKED": {Value: "marked-by-user", Secret: true}, "NOPE": {Declined: true}}
	cfg := Config{Vars: &Vars{}, Secrets: &session.SecretSet{}, Asker: AskerFunc(func(_ context.Context, r Request) (Answer, error) {
		asked = append(asked, r)
		if a, ok := answers[r.Name]; ok {
			return a, nil
		}
		return Answer{}, errors.New("interrupted")
	})}
	rt := RequestEnv(cfg)
	res := call(t, rt, `{"name":"DEPLOY_TOKEN","reason":"to deploy"}`)
	if !res.Success || strings.Contains(res.Output, "tok-5f2a9c") || !asked[0].Secret {
		t.Errorf("request_env(DEPLOY_TOKEN) = %+v, asked %+v", res, asked[0])
	}
	if v, secret, _ := cfg.Vars.Lookup("DEPLOY_TOKEN"); v != "tok-5f2a9c" || !secret || cfg.Secrets.Redact(v) != session.Redacted {
		t.Errorf("DEPLOY_TOKEN kept as %q secret %v", v, secret)
	}
	if res := call(t, rt, `{"name":"REGION","reason":"r"}`); !strings.Contains(res.Output, "REGION=eu-west-1") {
		t.Errorf("request_env(REGION) = %+v", res)
	}
	if res := call(t, rt, `{"name":"MARKED","reason":"r"}`); strings.Contains(res.Output, "marked-by-user") {
		t.Errorf("a value the user marked secret was shown: %+v", res)
	}
	if res := call(t, rt, `{"name":"SHORT_KEY","reason":"r"}`); res.Success {
		t.Errorf("a secret too short to hide was used: %+v", res)
	}
	if res := call(t, rt, `{"name":"NOPE","reason":"r"}`); !strings.Contains(res.Output, "declined") {
		t.Errorf("declined = %+v", res)
	}
	if res := call(t, rt, `{"name":"OTHER","reason":"r"}`); res.Success {
		t.Errorf("an asker error = %+v", res)
	}
	if res := call(t, RequestEnv(Config{}), `{"name":"X","reason":"r"}`); res.Success || !strings.Contains(res.Error, "not interactive") {
		t.Errorf("request_env without an asker = %+v", res)
	}
	if got := strings.Join(cfg.Vars.Environ(), " "); got != "DEPLOY_TOKEN=tok-5f2a9c MARKED=marked-by-user REGION=eu-west-1" {
		t.Errorf("Environ = %q", got)
	}
}

// TestSecretStaysOutOfTheWorkspace requests a secret with request_env,
// has a careless tool use it and print it back, and checks that the
// secret is nowhere in the workspace afterwards: not in the session
// directory, the log file or the JSON events a --json run prints. The
// tool itself did receive it.
func TestSecretStaysOutOfTheWorkspace(t *testing.T) {
	const secret = "s3cret-deploy-9f8e7d"
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
	logger := slog.New(RedactLogs(slog.NewJSONHandler(logFile, nil), live))
	store.Logger = logger

	vars := &Vars{}
	cfg := Config{Vars: vars, Secrets: live, Asker: AskerFunc(func(context.Context, Request) (Answer, error) {
		return Answer{Value: secret}, nil
	})}
	var received string
	deploy := tool.New(tool.Spec{Name: "deploy", Description: "Deploys with DEPLOY_TOKEN."}, func(_ context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
		received, _, _ = vars.Lookup("DEPLOY_TOKEN")
		logger.Info("deploying", "token", received, "env", vars.Environ())
		return tool.Result{Success: true, Output: "deployed with token " + received, Data: map[string]string{"token": received}}, nil
	})
	reg, err := tool.NewRegistry(append(Tools(cfg), deploy)...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer // what wield run --json prints
	enc := json.NewEncoder(&events)
	runner := tool.NewRunner(reg, &tool.RunnerOptions{Gate: RedactResults(nil, live), Recorder: s, Logger: logger,
		OnEvent: func(e tool.Event) { _ = enc.Encode(e) }})
	ctx := t.Context()
	if err := s.Begin(ctx, "deploy the site"); err != nil {
		t.Fatal(err)
	}
	var results []tool.Result
	for _, req := range []tool.Request{
		{ID: "1", Name: "request_env", Arguments: json.RawMessage(`{"name":"DEPLOY_TOKEN","reason":"the deploy needs it"}`)},
		{ID: "2", Name: "get_env", Arguments: json.RawMessage(`{"name":"DEPLOY_TOKEN"}`)},
		{ID: "3", Name: "deploy", Arguments: json.RawMessage(`{}`)},
	} {
		rs, err := runner.Run(ctx, tool.Call{SessionID: s.ID()}, []tool.Request{req})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, rs...)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if received != secret {
		t.Fatalf("the tool received %q, want the secret", received)
	}
	// What the model reads.
	for _, r := range results {
		if strings.Contains(r.ForModel(), secret) {
			t.Errorf("the model reads the secret: %q", r.ForModel())
		}
	}
	if !strings.Contains(results[2].Output, "deployed with token "+session.Redacted) {
		t.Errorf("deploy's result = %q; want the token redacted", results[2].Output)
	}
	if err := os.WriteFile(filepath.Join(ws, "events.jsonl"), events.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if events.Len() == 0 {
		t.Fatal("no events were printed")
	}
	if b, _ := os.ReadFile(logPath); !bytes.Contains(b, []byte(`"token":"`+session.Redacted+`"`)) {
		t.Errorf("the log does not show the redacted token:\n%s", b)
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

// TestShortSecretIsAWholeToken checks the log and result redaction of a
// secret shorter than session.MinSecretLen: hidden where it stands alone,
// never inside a word ("script exhausted" with the key "x").
func TestShortSecretIsAWholeToken(t *testing.T) {
	live := &session.SecretSet{}
	live.AddKnown("x")
	live.Add("pw42!")
	tests := []struct{ in, want string }{
		{"script exhausted", "script exhausted"},
		{"key=x done", "key=[REDACTED] done"},
		{"apw42! pw42!y", "apw42! [REDACTED]y"}, // '!' ends no word
		{"xpw42!", "xpw42!"},
	}
	for _, tt := range tests {
		var log bytes.Buffer
		slog.New(RedactLogs(slog.NewJSONHandler(&log, nil), live)).Warn(tt.in, "err", errors.New(tt.in))
		var rec struct{ Msg, Err string }
		if err := json.Unmarshal(log.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Msg != tt.want || rec.Err != tt.want {
			t.Errorf("log of %q: msg %q, err %q, want %q", tt.in, rec.Msg, rec.Err, tt.want)
		}
		res := RedactResults(nil, live).(tool.Reviewer).Review(t.Context(), &tool.Call{}, nil, tool.Result{Output: tt.in})
		if res.Output != tt.want {
			t.Errorf("result %q = %q, want %q", tt.in, res.Output, tt.want)
		}
	}
}
