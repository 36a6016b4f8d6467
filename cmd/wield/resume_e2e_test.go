package main

import (
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/gemini/geminitest"
	"github.com/wieldhq/wield/llm/openai/openaitest"
	"github.com/wieldhq/wield/llm/replay"
)

// resumeScript answers a session's first task and, resumed, its second.
var resumeScript = []replay.Entry{
	{Turn: 1, Round: 1, Text: "First answer.", Usage: llm.Usage{InputTokens: 100, OutputTokens: 5}},
	{Turn: 2, Round: 1, Text: "Second answer.", Usage: llm.Usage{InputTokens: 120, OutputTokens: 5}},
}

// TestResumeEveryProvider starts a session with each kind of model and
// goes on with it (--continue, the model taken from the session): the
// same server gets the same model name both times, and the model's name
// is printed once, as given.
func TestResumeEveryProvider(t *testing.T) {
	type server struct {
		url    string
		models func() []string
	}
	openAI := func(t *testing.T) server {
		srv := openaitest.NewServer(t, resumeScript)
		return server{srv.URL, func() (out []string) {
			for _, r := range srv.Requests() {
				out = append(out, r.Model)
			}
			return out
		}}
	}
	tests := []struct {
		name string
		// start returns the server and the flags and environment both
		// runs are given.
		start func(t *testing.T) (server, []string, map[string]string)
		model string // the name the server gets
		shown string // the name the session records and prints
	}{
		{"anthropic", func(t *testing.T) (server, []string, map[string]string) {
			srv := anthropictest.NewServer(t, resumeScript, &anthropictest.Options{Key: "ak-test-key-1234"})
			s := server{srv.URL, func() (out []string) {
				for _, r := range srv.Requests() {
					out = append(out, r.Model)
				}
				return out
			}}
			return s, []string{"--model", "anthropic:claude-sonnet-4-5", "--base-url", srv.URL}, map[string]string{"ANTHROPIC_API_KEY": "ak-test-key-1234"}
		}, "claude-sonnet-4-5", "anthropic:claude-sonnet-4-5"},
		{"gemini", func(t *testing.T) (server, []string, map[string]string) {
			srv := geminitest.NewServer(t, resumeScript, nil)
			s := server{srv.URL, func() (out []string) {
				for _, r := range srv.Requests() {
					out = append(out, r.Model)
				}
				return out
			}}
			return s, []string{"--model", "gemini:gemini-2.5-flash", "--base-url", srv.URL}, map[string]string{"GEMINI_API_KEY": "gk-test-key-1234"}
		}, "gemini-2.5-flash", "gemini:gemini-2.5-flash"},
		{"openai", func(t *testing.T) (server, []string, map[string]string) {
			s := openAI(t)
			return s, []string{"--model", "openai:gpt-4.1-mini", "--base-url", s.url}, nil
		}, "gpt-4.1-mini", "openai:gpt-4.1-mini"},
		{"a catalogued local server", func(t *testing.T) (server, []string, map[string]string) {
			s := openAI(t)
			return s, []string{"--model", "ollama:qwen3", "--base-url", s.url}, nil
		}, "qwen3", "ollama:qwen3"},
		{"an unprefixed model on OPENAI_BASE_URL", func(t *testing.T) (server, []string, map[string]string) {
			s := openAI(t)
			return s, nil, map[string]string{"WIELD_MODEL": "my-model", "OPENAI_BASE_URL": s.url}
		}, "my-model", "openai-compatible:my-model"},
		{"an unprefixed model at --base-url", func(t *testing.T) (server, []string, map[string]string) {
			s := openAI(t)
			return s, []string{"--model", "fake", "--base-url", s.url}, nil
		}, "fake", "openai-compatible:fake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, flags, env := tt.start(t)
			all := map[string]string{"WIELD_MODEL": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_API_KEY": "", "GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}
			for k, v := range env {
				all[k] = v
			}
			ws := workspaceDir(t)
			code, stdout, stderr := runWield(t, ws, all, append(append([]string{"run"}, flags...), "--tools", "echo", "first task")...)
			if code != 0 || !strings.Contains(stdout, "First answer.") {
				t.Fatalf("first run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			// --continue takes the model from the session; a flag that
			// names it is dropped so that it must.
			var resume []string
			for i := 0; i < len(flags); i++ {
				if flags[i] == "--model" {
					i++
					continue
				}
				resume = append(resume, flags[i])
			}
			code, stdout, stderr = runWield(t, ws, all, append(append([]string{"run", "--continue"}, resume...), "--tools", "echo", "second task")...)
			if code != 0 || !strings.Contains(stdout, "Second answer.") {
				t.Fatalf("resumed run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if got := srv.models(); len(got) != 2 || got[0] != tt.model || got[1] != tt.model {
				t.Errorf("the server got models %q, want %q twice", got, tt.model)
			}
			if !strings.Contains(stderr, tt.shown+":") || strings.Contains(stderr, tt.shown+":"+tt.shown) || strings.Contains(stderr, "openai-compatible:openai-compatible") {
				t.Errorf("the resumed run's usage line does not name %s once:\n%s", tt.shown, stderr)
			}
			if strings.Contains(stderr, "recorded against") {
				t.Errorf("a resume to the same endpoint warned:\n%s", stderr)
			}
		})
	}
}

// TestResumeElsewhere: a session started at --base-url is never sent
// elsewhere silently. Resumed without the URL, a model only that server
// knows fails, naming where the session was; a catalogued one goes to
// the provider's own endpoint with a warning that says so.
func TestResumeElsewhere(t *testing.T) {
	srv := openaitest.NewServer(t, resumeScript)
	env := map[string]string{"WIELD_MODEL": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "ANTHROPIC_API_KEY": "ak-test-key-1234"}
	ws := workspaceDir(t)
	if code, _, stderr := runWield(t, ws, env, "run", "--model", "fake", "--base-url", srv.URL+"?key=secret-in-url", "--tools", "echo", "first task"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	code, _, stderr := runWield(t, ws, env, "run", "--continue", "--tools", "echo", "second task")
	if code != exitUsage || !strings.Contains(stderr, "no URL says where") || !strings.Contains(stderr, "recorded against "+srv.URL+": pass --base-url "+srv.URL) {
		t.Errorf("resumed without the URL: exit %d, want %d and the recorded endpoint:\n%s", code, exitUsage, stderr)
	}
	if strings.Contains(stderr, "secret-in-url") {
		t.Errorf("the URL's query reached the output:\n%s", stderr)
	}

	anth := anthropictest.NewServer(t, resumeScript, &anthropictest.Options{Key: "ak-test-key-1234"})
	ws = workspaceDir(t)
	if code, _, stderr := runWield(t, ws, env, "run", "--model", "anthropic:claude-sonnet-4-5", "--base-url", anth.URL, "--tools", "echo", "first task"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	// The resumed run is pointed at a server that refuses, so nothing
	// leaves the machine; what matters is the warning before it.
	env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:1"
	_, _, stderr = runWield(t, ws, env, "run", "--continue", "--tools", "echo", "second task")
	if !strings.Contains(stderr, "was recorded against "+anth.URL+"; this run sends anthropic:claude-sonnet-4-5 to the provider's own endpoint (pass --base-url "+anth.URL) {
		t.Errorf("no warning that the resumed run goes elsewhere:\n%s", stderr)
	}
}
