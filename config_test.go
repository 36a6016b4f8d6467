package wield

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzUnknownKeys: on any document, the key report never panics, names
// only keys the document has, and reports nothing for a document made of
// known keys only (the document re-encoded from its decoded form).
func FuzzUnknownKeys(f *testing.F) {
	f.Add(`{"model": "x", "baseUrl": "y"}`)
	f.Add(`{"catalog": {"providers": [{"name": "p", "baseurl": 1}]}, "tools": ["a"]}`)
	f.Add(`{"permissions": {"allow": ["x"], "defaultmode": "plan"}, "hooks": {"PreToolUse": [{"hook": []}]}}`)
	f.Add(`[1, 2]`)
	f.Add(`not json`)
	typ := reflect.TypeFor[Config]() // the richest: nested structs, lists, a catalogue
	f.Fuzz(func(t *testing.T, doc string) {
		reports := unknownKeys([]byte(doc), typ, nil)
		for _, r := range reports {
			key, _, _ := strings.Cut(strings.TrimPrefix(r, `unknown key "`), `"`)
			last := key[strings.LastIndex(key, ".")+1:]
			if i := strings.IndexByte(last, '['); i > 0 {
				last = last[:i]
			}
			// A key written with escapes, or with bytes that are not UTF-8
			// (decoded as U+FFFD), is reported as decoded.
			if !strings.Contains(doc, last) && !strings.Contains(doc, `\`) && utf8.ValidString(doc) {
				t.Errorf("reported %q, which %q does not have", r, doc)
			}
		}
		// Decoding keeps only known keys; their report is empty.
		v := reflect.New(typ)
		if json.Unmarshal([]byte(doc), v.Interface()) != nil {
			return
		}
		known, err := json.Marshal(v.Interface())
		if err != nil {
			return
		}
		if r := unknownKeys(known, typ, nil); len(r) > 0 {
			t.Errorf("the known keys of %q, %s, are reported: %q", doc, known, r)
		}
	})
}

func TestUnknownKeysNearest(t *testing.T) {
	tests := []struct{ key, want string }{
		{"baseUrl", "base_url"},
		{"max_round", "max_rounds"},
		{"systemPrompt", "system_prompt"},
		{"colour", ""},
	}
	names := []string{"model", "base_url", "api_key", "max_rounds", "tools", "system_prompt", "expire_tool_results", "catalog"}
	for _, tt := range tests {
		if got := nearest(tt.key, names); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestConfigFieldsJudged keeps Config.Restricting honest: every
// field of Config is either kept for untrusted folders (it cannot run
// anything, choose a model or endpoint, or widen what the agent may do) or
// listed by configItems (the manifest) as needing trust. A new field fails here until it
// is judged.
func TestConfigFieldsJudged(t *testing.T) {
	kept := []string{"max_rounds", "system_prompt", "expire_tool_results", "max_images", "sandbox", "tools"}
	needsTrust := []string{"model", "base_url", "api_key", "catalog", "sandbox_network", "ask_model"}
	for f := range reflect.TypeFor[Config]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !slices.Contains(kept, name) && !slices.Contains(needsTrust, name) {
			t.Errorf("Config field %s (%q) is not judged: add it to Restricting or to configItems", f.Name, name)
		}
	}
	full := Config{Model: "m", BaseURL: "http://x", APIKey: "k", MaxRounds: 3, Tools: []string{"read_file"}, SystemPrompt: "p",
		ExpireToolResults: 2, MaxImages: 1, Sandbox: SandboxSetting{On: true, Network: []string{"evil.example"}, Hide: []string{"/secret"}, Show: []string{"/root/.ssh"}}, SandboxNetwork: true, AskModel: "a"}
	want := Config{MaxRounds: 3, Tools: []string{"read_file"}, SystemPrompt: "p", ExpireToolResults: 2, MaxImages: 1, Sandbox: SandboxSetting{On: true, Hide: []string{"/secret"}}}
	if diff := cmp.Diff(want, full.Restricting(), cmp.AllowUnexported(Config{})); diff != "" {
		t.Errorf("restricting (-want +got):\n%s", diff)
	}
	full.Tools = []string{"read_file", "register_mcp_server"}
	if got := full.Restricting().Tools; got != nil {
		t.Errorf("restricting kept tools %v that opt in to register_mcp_server", got)
	}
}

func TestSandboxSetting(t *testing.T) {
	tests := []struct {
		doc     string
		want    SandboxSetting
		wantErr string
	}{
		{`true`, SandboxSetting{On: true}, ""},
		{`false`, SandboxSetting{}, ""},
		{`{"network": ["api.example.com"]}`, SandboxSetting{On: true, Network: []string{"api.example.com"}}, ""},
		{`{"hide": ["~/.secrets"], "show": ["~/.npmrc"]}`, SandboxSetting{On: true, Hide: []string{"~/.secrets"}, Show: []string{"~/.npmrc"}}, ""},
		{`{"networks": []}`, SandboxSetting{}, `unknown field "networks"`},
		{`"yes"`, SandboxSetting{}, `"sandbox" is true, false or`},
	}
	for _, tt := range tests {
		var got SandboxSetting
		err := json.Unmarshal([]byte(tt.doc), &got)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.doc, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.doc, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.doc, diff)
		}
		back, _ := json.Marshal(got)
		var again SandboxSetting
		if err := json.Unmarshal(back, &again); err != nil || !cmp.Equal(got, again) {
			t.Errorf("%s: round trip %s gives %+v, %v", tt.doc, back, again, err)
		}
	}
	hide, show, err := SandboxSetting{Hide: []string{"~/.secrets", "/opt/keys/"}, Show: []string{"~/.npmrc"}}.Paths("/home/u")
	if err != nil || !cmp.Equal(hide, []string{"/home/u/.secrets", "/opt/keys"}) || !cmp.Equal(show, []string{"/home/u/.npmrc"}) {
		t.Errorf("paths = %v, %v, %v", hide, show, err)
	}
	if _, _, err := (SandboxSetting{Show: []string{"relative"}}).Paths("/home/u"); err == nil {
		t.Error("a relative path was accepted")
	}
}

// TestUnknownKeys: keys wield does not read in config, settings and MCP
// files are reported with the nearest known key; keys of Claude Code's
// settings are not.
func TestUnknownKeys(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".wield"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".wield/config.json":   `{"model": "my-model", "baseUrl": "http://127.0.0.1:1/v1", "max_round": 3, "catalog": {"providers": [{"name": "x", "api": "openai-chat", "baseurl": "y"}]}}`,
		".wield/settings.json": `{"permisions": {"allow": []}, "env": {"A": "1"}, "hooks": {"PreToolUse": [{"matcher": "x", "hook": []}]}}`,
		".mcp.json":            `{"mcpServers": {"gh": {"command": "gh-mcp", "arg": ["x"]}}}`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		filepath.Join(ws, ".wield/config.json") + `: unknown key "baseUrl"; did you mean "base_url"?`,
		filepath.Join(ws, ".wield/config.json") + `: unknown key "catalog.providers[0].baseurl"; did you mean "base_url"?`,
		filepath.Join(ws, ".wield/config.json") + `: unknown key "max_round"; did you mean "max_rounds"?`,
		filepath.Join(ws, ".wield/settings.json") + `: unknown key "hooks.PreToolUse[0].hook"; did you mean "hooks"?`,
		filepath.Join(ws, ".wield/settings.json") + `: unknown key "permisions"; did you mean "permissions"?`,
		filepath.Join(ws, ".mcp.json") + `: unknown key "mcpServers.gh.arg"; did you mean "args"?`,
	}
	got := UnknownKeys(ws)
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UnknownKeys (-want +got):\n%s", diff)
	}
}

// TestLoadConfig: the caller's settings win over the environment, which
// wins over the workspace's file, which wins over the user's; of an
// untrusted workspace's file only what restricts applies; a file that
// does not decode is an error naming it.
func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name      string
		over      Config
		env       map[string]string
		workspace string // .wield/config.json
		user      string // the user's config.json
		trusted   bool
		want      Config
		wantErr   string
	}{
		{name: "nothing", want: Config{}},
		{
			name:      "strongest first",
			over:      Config{Model: "flag"},
			env:       map[string]string{"WIELD_MODEL": "env", "OPENAI_BASE_URL": "http://env/v1"},
			workspace: `{"model": "ws", "base_url": "http://ws/v1", "max_rounds": 3, "ask_model": "ws-ask"}`,
			user:      `{"model": "user", "max_rounds": 9, "system_prompt": "be brief", "api_key": "user-key"}`,
			trusted:   true,
			want:      Config{Model: "flag", BaseURL: "http://env/v1", APIKey: "user-key", MaxRounds: 3, SystemPrompt: "be brief", AskModel: "ws-ask"},
		},
		{
			name:      "untrusted workspace restricts only",
			workspace: `{"model": "ws", "base_url": "http://ws/v1", "max_rounds": 3, "sandbox": {"hide": ["/secret"], "show": ["/root/.ssh"]}}`,
			user:      `{"model": "user"}`,
			want:      Config{Model: "user", MaxRounds: 3, Sandbox: SandboxSetting{On: true, Hide: []string{"/secret"}}},
		},
		{
			name:      "a sandbox asked for anywhere stays on, hidden paths add up",
			over:      Config{Sandbox: SandboxSetting{Hide: []string{"/a"}}},
			workspace: `{"sandbox": {"hide": ["/b"]}}`,
			user:      `{"sandbox": true, "sandbox_network": true}`,
			trusted:   true,
			want:      Config{Sandbox: SandboxSetting{On: true, Hide: []string{"/a", "/b"}}, SandboxNetwork: true},
		},
		{
			name:      "a file that does not decode",
			workspace: `{"model": 7}`,
			trusted:   true,
			wantErr:   filepath.Join(".wield", "config.json"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			ws := t.TempDir()
			write := func(path, text string) {
				t.Helper()
				if text == "" {
					return
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(ws, ".wield", "config.json"), tt.workspace)
			write(filepath.Join(home, ".config", "wield", "config.json"), tt.user)
			got, err := LoadConfig(tt.over, ws, func(k string) string { return tt.env[k] }, tt.trusted)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadConfig: error %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LoadConfig (-want +got):\n%s", diff)
			}
		})
	}
}
