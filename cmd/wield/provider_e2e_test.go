package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

// twoRounds is the script every provider plays in the CLI's end-to-end
// test: a tool call, then an answer, each with usage.
var twoRounds = []replay.Entry{
	{Round: 1, Text: "Let me echo.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "echo", Arguments: json.RawMessage(`{"text":"from the tool"}`)}},
		Usage: llm.Usage{InputTokens: 1000, OutputTokens: 20, CachedTokens: 800}},
	{Round: 2, Text: "The tool said: from the tool.", Usage: llm.Usage{InputTokens: 1100, OutputTokens: 10, CachedTokens: 1000}},
}

// runWield runs the CLI in-process in workspace ws with env set, and
// returns its exit code, stdout and stderr.
func runWield(t *testing.T, ws string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"--workdir", ws, "--no-mcp"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkRun checks a two-round run's output, its usage line, and that the
// session journal holds each round's usage with its cost.
func checkRun(t *testing.T, ws string, code int, stdout, stderr, model, cost string) {
	t.Helper()
	if code != 0 || !strings.Contains(stdout, "The tool said: from the tool.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := regexp.MustCompile(regexp.QuoteMeta(model+": 2 rounds, 2,100 tokens in (1,800 cached), 30 out, ") + cost)
	if !want.MatchString(stderr) {
		t.Errorf("stderr %q does not match %q", stderr, want)
	}
	files, _ := filepath.Glob(filepath.Join(ws, ".wield", "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("sessions: %v", files)
	}
	st, err := (&session.Store{Dir: filepath.Dir(files[0])}).Load(t.Context(), strings.TrimSuffix(filepath.Base(files[0]), ".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Header.Model != model {
		t.Errorf("session model %q, want %q", st.Header.Model, model)
	}
	var rounds int
	for _, turn := range st.Turns {
		if turn.Kind == session.TurnModelResponse {
			rounds++
			if turn.Usage == nil || turn.Usage.InputTokens == 0 || (cost != "cost unknown" && turn.Usage.Cost <= 0) {
				t.Errorf("round %d usage %+v: want tokens and cost recorded", rounds, turn.Usage)
			}
		}
	}
	if rounds != 2 {
		t.Errorf("%d model responses in the journal, want 2", rounds)
	}
}

func workspaceDir(t *testing.T) string {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestRunOpenAIChatEndToEnd(t *testing.T) {
	srv := openaitest.NewServer(t, twoRounds)
	ws := workspaceDir(t)
	code, stdout, stderr := runWield(t, ws, map[string]string{"OPENAI_API_KEY": "", "WIELD_MODEL": ""},
		"run", "--model", "openai:gpt-4.1-mini", "--base-url", srv.URL, "--tools", "echo", "say it")
	// gpt-4.1-mini: 300 plain input at $0.40/M, 1,800 cached at $0.10/M, 30 out at $1.60/M.
	checkRun(t, ws, code, stdout, stderr, "openai:gpt-4.1-mini", `\$0.0003`)
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].API != openaitest.ChatCompletions || reqs[0].Model != "gpt-4.1-mini" {
		t.Fatalf("requests %+v: want two chat completions for gpt-4.1-mini", reqs)
	}
	if a := reqs[0].Header.Get("Authorization"); a != "" {
		t.Errorf("Authorization %q sent to a server that was given no key", a)
	}
}

func TestRunOpenAIResponsesEndToEnd(t *testing.T) {
	srv := openaitest.NewServer(t, twoRounds)
	ws := workspaceDir(t)
	// A catalogue entry in config says the server speaks the Responses API.
	cfg := `{"catalog": {"providers": [{"name": "openai", "api": "openai-responses", "base_url": "` + srv.URL + `", "key_env": ["OPENAI_API_KEY"]}]}}`
	if err := os.MkdirAll(filepath.Join(ws, ".wield"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".wield", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runWield(t, ws, map[string]string{"OPENAI_API_KEY": "sk-test-responses-key", "WIELD_MODEL": "", "WIELD_TRUST": "1"},
		"run", "--model", "openai:gpt-5", "--tools", "echo", "say it")
	// gpt-5: 300 plain input at $1.25/M, 1,800 cached at $0.125/M, 30 out at $10/M: $0.0009.
	checkRun(t, ws, code, stdout, stderr, "openai:gpt-5", `\$0.0009`)
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].API != openaitest.Responses {
		t.Fatalf("requests %+v: want two Responses API requests", reqs)
	}
	if a := reqs[0].Header.Get("Authorization"); a != "Bearer sk-test-responses-key" {
		t.Errorf("Authorization %q", a)
	}
}

func TestRunGeminiEndToEnd(t *testing.T) {
	entries := slices.Clone(twoRounds)
	entries[0].ToolCalls = []llm.ToolCall{{ID: "call_1", Name: "echo", Arguments: json.RawMessage(`{"text":"from the tool"}`), Signature: "c2lnbmVkLWNhbGw="}}
	srv := geminitest.NewServer(t, entries, nil)
	ws := workspaceDir(t)
	code, stdout, stderr := runWield(t, ws, map[string]string{"GEMINI_API_KEY": "", "GOOGLE_API_KEY": "gk-test-key-1234", "WIELD_MODEL": ""},
		"run", "--model", "gemini:gemini-2.5-flash", "--base-url", srv.URL, "--tools", "echo", "say it")
	// gemini-2.5-flash: 300 plain input at $0.30/M, 1,800 cached at $0.03/M, 30 out at $2.50/M.
	checkRun(t, ws, code, stdout, stderr, "gemini:gemini-2.5-flash", `\$0.0002`)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if k := reqs[0].Header.Get("X-Goog-Api-Key"); k != "gk-test-key-1234" {
		t.Errorf("key header %q: want the key from GOOGLE_API_KEY", k)
	}
	// The call's thought signature went back unchanged with the call.
	var sig string
	for _, m := range reqs[1].Messages {
		for _, c := range m.ToolCalls {
			sig = c.Signature
		}
	}
	if sig != "c2lnbmVkLWNhbGw=" {
		t.Errorf("signature sent back %q", sig)
	}
}

func TestRunAnthropicEndToEnd(t *testing.T) {
	entries := slices.Clone(twoRounds)
	entries[0].Thinking = []llm.Thinking{{Provider: "anthropic", Text: "The echo tool will do.", Signature: "EqQBCkYIARgCIkB"}}
	for i := range entries {
		entries[i].Usage = llm.Usage{} // the server reports what its simulated cache saw
	}
	srv := anthropictest.NewServer(t, entries, &anthropictest.Options{Key: "ak-test-key-1234"})
	ws := workspaceDir(t)
	rec := filepath.Join(t.TempDir(), "claude.jsonl")
	code, stdout, stderr := runWield(t, ws, map[string]string{"ANTHROPIC_API_KEY": "ak-test-key-1234", "WIELD_MODEL": ""},
		"run", "--model", "anthropic:claude-sonnet-4-5", "--base-url", srv.URL, "--tools", "echo", "--record", rec, "say it")
	if code != 0 || !strings.Contains(stdout, "The tool said: from the tool.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !regexp.MustCompile(`anthropic:claude-sonnet-4-5: 2 rounds, [0-9,]+ tokens in \([0-9,]+ cached, [0-9,]+ written to the cache\), [0-9,]+ out, \$0\.[0-9]{4}`).MatchString(stderr) {
		t.Errorf("usage line missing or wrong in %q", stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Breakpoints == 0 {
		t.Fatalf("%d requests (breakpoints %d): want 2, with prompt caching on", len(reqs), reqs[0].Breakpoints)
	}
	// The signed thinking block went back unchanged in round 2.
	var back []llm.Thinking
	for _, m := range reqs[1].Conversation {
		back = append(back, m.Thinking...)
	}
	if len(back) != 1 || back[0].Signature != "EqQBCkYIARgCIkB" || back[0].Text != "The echo tool will do." {
		t.Errorf("thinking sent back: %+v", back)
	}
	if reqs[1].Usage.CachedTokens == 0 {
		t.Errorf("round 2 read nothing from the cache: %+v", reqs[1].Usage)
	}

	// The recording replays offline: same answer, thinking included.
	code, stdout, stderr = runWield(t, workspaceDir(t), nil, "run", "--replay", rec, "--tools", "echo", "say it")
	if code != 0 || !strings.Contains(stdout, "The tool said: from the tool.") {
		t.Fatalf("replay of the recording: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(rec)
	if err != nil || !strings.Contains(string(data), `"signature":"EqQBCkYIARgCIkB"`) || !strings.Contains(string(data), `"model":"claude-sonnet-4-5`) {
		t.Errorf("recording %s lacks the thinking signature or the model: %v", data, err)
	}
}
