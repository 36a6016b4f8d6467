package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/env"
)

// hiddenEverywhere checks that secret is hidden by the secrets of g for
// workspace ws in a session journal, in a tool result (what the model and
// the printed events see) and in the log.
func hiddenEverywhere(t *testing.T, g *globals, ws, secret string) {
	t.Helper()
	set := g.extensions(ws).secrets
	if !set.Has(secret) {
		t.Fatalf("the secret set does not hold %q", secret)
	}
	text := "the value is " + secret + " here"

	st := &session.Store{Dir: t.TempDir(), Live: set, Logger: slog.New(slog.DiscardHandler)}
	s, err := st.Create(t.Context(), session.Header{ID: "s", Purpose: text})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	c := &tool.Call{ID: "c1", Tool: "run_shell_command"}
	args, _ := json.Marshal(map[string]string{"command": "echo " + secret})
	for _, err := range []error{
		s.Begin(ctx, text),
		s.RecordCall(ctx, c, args),
		s.RecordResult(ctx, c, tool.Result{Success: true, Output: text}),
		s.Commit(ctx),
		s.Close(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	journal, err := os.ReadFile(st.Path("s"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(journal, []byte(secret)) || !bytes.Contains(journal, []byte(session.Redacted)) {
		t.Errorf("the journal holds %q or no marker:\n%s", secret, journal)
	}

	gate := env.RedactResults(nil, set).(tool.Reviewer)
	res := gate.Review(ctx, c, args, tool.Result{Success: true, Output: text, Data: map[string]any{"v": secret}})
	if got, want := res.Output, "the value is "+session.Redacted+" here"; got != want {
		t.Errorf("tool result = %q, want %q", got, want)
	}
	if b, _ := json.Marshal(res.Data); bytes.Contains(b, []byte(secret)) {
		t.Errorf("tool result data holds the secret: %s", b)
	}

	var log bytes.Buffer
	slog.New(env.RedactLogs(slog.NewTextHandler(&log, nil), set)).Warn(text, "err", text)
	if strings.Contains(log.String(), secret) {
		t.Errorf("the log holds the secret: %s", log.String())
	}
}

// TestKnownSecretsAreHiddenEverywhere takes each source of secrets in
// turn (every key variable of the catalogue's providers, the GitHub
// tokens and gh's, the search keys, MCP servers' env and header values,
// the other settings wield reads) and checks that its value is hidden in
// the journal, in tool results and in the log.
func TestKnownSecretsAreHiddenEverywhere(t *testing.T) {
	const value = "s3cr3t-v4lu3-0123456789"
	ghDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ghDir, "hosts.yml"), []byte("github.com:\n    oauth_token: gho_"+value+"\n    user: me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type source struct {
		name    string
		env     map[string]string
		servers map[string]mcp.ServerConfig
		secret  string
	}
	var tests []source
	for _, p := range catalog.Default().Providers() {
		for _, v := range p.KeyEnv {
			tests = append(tests, source{name: p.Name + " " + v, env: map[string]string{v: value}, secret: value})
		}
	}
	if len(tests) < 5 {
		t.Fatalf("only %d key variables in the catalogue", len(tests))
	}
	for _, v := range []string{"WIELD_EMBEDDINGS_KEY", "WIELD_MCP_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "BRAVE_API_KEY", "TAVILY_API_KEY"} {
		tests = append(tests, source{name: v, env: map[string]string{v: " " + value + "\n"}, secret: value})
	}
	tests = append(tests,
		source{name: "gh's hosts.yml", env: map[string]string{"GH_CONFIG_DIR": ghDir}, secret: "gho_" + value},
		source{name: "SEARXNG_URL password", env: map[string]string{"SEARXNG_URL": "https://me:" + value + "@search.example/"}, secret: value},
		source{name: "WIELD_SESSIONS password", env: map[string]string{"WIELD_SESSIONS": "postgres://wield:" + value + "@db.example/wield"}, secret: value},
		source{name: "OTLP header", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-team=" + value + ",y=z"}, secret: value},
		source{name: "MCP header value", servers: map[string]mcp.ServerConfig{"api": {URL: "https://mcp.example/", Headers: map[string]string{"X-API-Key": value}}}, secret: value},
		source{name: "MCP Authorization credentials", servers: map[string]mcp.ServerConfig{"api": {URL: "https://mcp.example/", Headers: map[string]string{"Authorization": "Bearer " + value}}}, secret: value},
		source{name: "MCP env value", servers: map[string]mcp.ServerConfig{"gh": {Command: "server", Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": value}}}, secret: value},
		source{name: "MCP env URL password", servers: map[string]mcp.ServerConfig{"db": {Command: "server", Env: map[string]string{"DATABASE_URL": "postgres://u:" + value + "@h/db"}}}, secret: value},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(n string) string { return tt.env[n] }
			g := &globals{stderr: io.Discard}
			ws := t.TempDir()
			g.hideSecrets(ws, wield.KnownSecrets(getenv, nil, tt.servers))
			hiddenEverywhere(t, g, ws, tt.secret)
		})
	}
}

// TestMCPSecretsLeaveSettingsAlone checks that values under names that
// are not a secret's stay visible: hiding them would garble every text
// that mentions them.
func TestMCPSecretsLeaveSettingsAlone(t *testing.T) {
	servers := map[string]mcp.ServerConfig{"s": {Command: "server",
		Env:     map[string]string{"NODE_ENV": "production", "HOME": "/home/me", "DEBUG": "1"},
		Headers: map[string]string{"Accept": "application/json"}}}
	if got := wield.MCPSecrets(servers); len(got) != 0 {
		t.Errorf("MCPSecrets = %q, want none", got)
	}
}

// TestShortKeyDoesNotGarbleText is the regression of "script exhausted"
// journaled as "script e[redacted]hausted" with OPENAI_API_KEY=x: the
// text stays whole in the journal, in tool results and in the log, the
// key is still hidden where it stands alone, and one warning names the
// variable.
func TestShortKeyDoesNotGarbleText(t *testing.T) {
	for _, v := range []string{"WIELD_SESSIONS", "WIELD_HOME", "GITHUB_TOKEN", "GH_TOKEN", "BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL"} {
		t.Setenv(v, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "x")
	var stderr bytes.Buffer
	g := &globals{stderr: &stderr}
	ws := t.TempDir()
	st := g.store(ws)
	g.store(ws) // a second store warns no more
	set := g.extensions(ws).secrets

	ctx := t.Context()
	s, err := st.Create(ctx, session.Header{ID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	const text = "script exhausted; key=x done"
	const want = "script exhausted; key=" + session.Redacted + " done"
	if err := s.Begin(ctx, text); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	loaded, err := st.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Turns[0].Text; got != want {
		t.Errorf("journaled task = %q, want %q", got, want)
	}
	res := env.RedactResults(nil, set).(tool.Reviewer).Review(ctx, &tool.Call{}, nil, tool.Result{Error: text})
	if res.Error != want {
		t.Errorf("tool result error = %q, want %q", res.Error, want)
	}
	var log bytes.Buffer
	slog.New(env.RedactLogs(slog.NewTextHandler(&log, nil), set)).Error("script exhausted")
	if !strings.Contains(log.String(), `msg="script exhausted"`) {
		t.Errorf("log = %s, want the message whole", log.String())
	}
	if n := strings.Count(stderr.String(), "too short to redact reliably"); n != 1 || !strings.Contains(stderr.String(), "secret=OPENAI_API_KEY") {
		t.Errorf("warnings:\n%s\nwant one naming OPENAI_API_KEY", stderr.String())
	}
}

// TestModelKeysAreHidden checks hideModelKeys: the key in use, which a
// config file may give (api_key), and the key variables of a provider
// the config adds to the catalogue.
func TestModelKeysAreHidden(t *testing.T) {
	const inUse, added = "cfg-key-0123456789", "added-key-0123456789"
	t.Setenv("WIELD_TEST_PROVIDER_KEY", added)
	cat, err := catalog.Default().Merge(catalog.File{Providers: []catalog.Provider{
		{Name: "mine", API: catalog.APIOpenAIChat, BaseURL: "http://127.0.0.1:1/v1", KeyEnv: []string{"WIELD_TEST_PROVIDER_KEY"}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := &globals{stderr: io.Discard}
	ws := t.TempDir()
	g.hideModelKeys(ws, cat, inUse, "")
	hiddenEverywhere(t, g, ws, inUse)
	hiddenEverywhere(t, g, ws, added)
}
