package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/internal/jsonpos"
	"github.com/wieldhq/wield/internal/levenshtein"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/workspace"
)

// runConfig is what `wield run` and `wield chat` need to reach a model.
// Sources, strongest first: flags, the environment (WIELD_MODEL,
// OPENAI_BASE_URL, OPENAI_API_KEY), the workspace's .wield/config.json, the
// user's ~/.config/wield/config.json. BaseURL and APIKey outside the flag
// are OpenAI settings; [chooseModel] says where each applies.
type runConfig struct {
	Model        string   `json:"model,omitempty"`
	BaseURL      string   `json:"base_url,omitempty"`
	APIKey       string   `json:"api_key,omitempty"`
	MaxRounds    int      `json:"max_rounds,omitempty"`
	Tools        []string `json:"tools,omitempty"`
	SystemPrompt string   `json:"system_prompt,omitempty"`
	// ExpireToolResults replaces, in prompts, tool results older than this
	// many tasks with a short note; zero keeps them all.
	ExpireToolResults int `json:"expire_tool_results,omitempty"`
	// MaxImages is how many tool images (screenshots, pictures read) a
	// prompt keeps, the newest; zero means agent.DefaultMaxImages, and a
	// negative number none.
	MaxImages int `json:"max_images,omitempty"`
	// Catalog adds providers and models to the built-in catalogue or
	// overrides them (prices, windows, base URLs); see `wield models`.
	Catalog *catalog.File `json:"catalog,omitempty"`
	// Sandbox runs shell commands in the sandbox ("sandbox": true) and
	// names the hosts sandboxed commands and run_code may reach through
	// wield's proxy ("sandbox": {"network": [...]}); SandboxNetwork lets
	// them reach the whole network, and AskModel is ask_model's default
	// model: see code.go.
	Sandbox        sandboxSetting `json:"sandbox,omitzero"`
	SandboxNetwork bool           `json:"sandbox_network,omitempty"`
	AskModel       string         `json:"ask_model,omitempty"`
}

// sandboxSetting is the "sandbox" setting: true runs shell commands in
// the sandbox; an object does too, and its "network" lists the hosts
// sandboxed commands may reach through wield's egress proxy (patterns as
// package sandbox/egress takes them: "api.example.com", "*.github.com",
// "host:8443").
//
// "hide" adds absolute paths (~/ for the home directory) to the credential
// locations the sandbox hides from commands, and "show" keeps one of them
// readable on purpose (sandbox.Config's Hide and Show).
type sandboxSetting struct {
	On      bool
	Network []string
	Hide    []string
	Show    []string
}

// sandboxObject is the object form of "sandbox".
type sandboxObject struct {
	Network []string `json:"network,omitempty"`
	Hide    []string `json:"hide,omitempty"`
	Show    []string `json:"show,omitempty"`
}

// UnmarshalJSON reads true, false or {"network": [...], "hide": [...],
// "show": [...]}.
func (s *sandboxSetting) UnmarshalJSON(data []byte) error {
	var on bool
	if json.Unmarshal(data, &on) == nil {
		*s = sandboxSetting{On: on}
		return nil
	}
	var obj sandboxObject
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf(`"sandbox" is true, false or {"network": ["host", ...], "hide": ["path", ...], "show": ["path", ...]}: %w`, err)
	}
	*s = sandboxSetting{On: true, Network: obj.Network, Hide: obj.Hide, Show: obj.Show}
	return nil
}

// MarshalJSON writes s as UnmarshalJSON reads it.
func (s sandboxSetting) MarshalJSON() ([]byte, error) {
	if s.Network == nil && s.Hide == nil && s.Show == nil {
		return json.Marshal(s.On)
	}
	return json.Marshal(sandboxObject{Network: s.Network, Hide: s.Hide, Show: s.Show})
}

// paths returns the setting's hide and show lists as absolute paths, "~/"
// taken as the home directory home; a path that is neither is an error.
func (s sandboxSetting) paths(home string) (hide, show []string, err error) {
	abs := func(list []string) ([]string, error) {
		var out []string
		for _, p := range list {
			if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
				p = filepath.Join(home, rest)
			}
			if !filepath.IsAbs(p) {
				return nil, fmt.Errorf(`"sandbox": path %q is not absolute (start it with / or ~/)`, p)
			}
			out = append(out, filepath.Clean(p))
		}
		return out, nil
	}
	if hide, err = abs(s.Hide); err != nil {
		return nil, nil, err
	}
	show, err = abs(s.Show)
	return hide, show, err
}

// merge fills the zero fields of c from o.
func (c *runConfig) merge(o runConfig) {
	// A sandbox asked for anywhere is never turned off by a weaker source.
	c.Sandbox.On = c.Sandbox.On || o.Sandbox.On
	if c.Sandbox.Network == nil {
		c.Sandbox.Network = o.Sandbox.Network
	}
	// Every source's hidden paths stay hidden; a path is shown only by
	// the strongest source that shows any.
	c.Sandbox.Hide = append(c.Sandbox.Hide, o.Sandbox.Hide...)
	if c.Sandbox.Show == nil {
		c.Sandbox.Show = o.Sandbox.Show
	}
	c.SandboxNetwork = c.SandboxNetwork || o.SandboxNetwork
	if c.AskModel == "" {
		c.AskModel = o.AskModel
	}
	if c.Model == "" {
		c.Model = o.Model
	}
	if c.BaseURL == "" {
		c.BaseURL = o.BaseURL
	}
	if c.APIKey == "" {
		c.APIKey = o.APIKey
	}
	if c.MaxRounds == 0 {
		c.MaxRounds = o.MaxRounds
	}
	if c.Tools == nil {
		c.Tools = o.Tools
	}
	if c.SystemPrompt == "" {
		c.SystemPrompt = o.SystemPrompt
	}
	if c.ExpireToolResults == 0 {
		c.ExpireToolResults = o.ExpireToolResults
	}
	if c.MaxImages == 0 {
		c.MaxImages = o.MaxImages
	}
	if c.Catalog == nil {
		c.Catalog = o.Catalog
	}
}

// loadRunConfig merges flags over the environment over the config files.
// Of the workspace's file, only what restricts applies unless trusted
// (see [runConfig.restricting] and project.go).
func loadRunConfig(flags runConfig, ws string, getenv func(string) string, trusted bool) (runConfig, error) {
	c := flags
	c.merge(runConfig{Model: getenv("WIELD_MODEL"), BaseURL: getenv("OPENAI_BASE_URL"), APIKey: getenv("OPENAI_API_KEY"), AskModel: getenv("WIELD_ASK_MODEL")})
	fc, err := readConfigFile(workspace.Layout{Root: ws}.Config())
	if err != nil {
		return c, err
	}
	if !trusted {
		fc = fc.restricting()
	}
	c.merge(fc)
	if u, err := workspace.User(); err == nil {
		fc, err := readConfigFile(u.Config())
		if err != nil {
			return c, err
		}
		c.merge(fc)
	}
	return c, nil
}

func readConfigFile(path string) (runConfig, error) {
	var c runConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("config %w", jsonpos.Wrap(path, data, err))
	}
	return c, nil
}

// noModelHelp says how to configure a model.
const noModelHelp = `no model configured. Choose one of:

  Claude, Gemini or OpenAI, with the provider's usual key:
    export WIELD_MODEL=anthropic:claude-sonnet-4-5 ANTHROPIC_API_KEY=...
    export WIELD_MODEL=gemini:gemini-2.5-pro GEMINI_API_KEY=...
    export WIELD_MODEL=openai:gpt-5 OPENAI_API_KEY=sk-...

  a local model with Ollama (https://ollama.com):
    ollama pull qwen3
    export WIELD_MODEL=ollama:qwen3

  any OpenAI-compatible endpoint:
    export WIELD_MODEL=my-model OPENAI_BASE_URL=http://127.0.0.1:8080/v1

  or the same in .wield/config.json of the workspace, or in
  ~/.config/wield/config.json:
    {"model": "ollama:qwen3"}

  Flags --model and --base-url override all of these; wield models lists the
  models and providers wield knows; --replay FILE plays a scripted model.`

// helpError is an error whose text is a paragraph of help.
type helpError string

func (e helpError) Error() string { return string(e) }

// unknownKeys returns a report for each key of the JSON document data
// that type t does not decode (json.Unmarshal ignores them, so a typo such
// as "baseUrl" would silently fall back to a default): its dotted path
// and, when a known key is near, "did you mean". Keys in skip (dotted
// paths, "*" for any map key) are known to other programs that share the
// file and are not reported. A document that does not parse gives none:
// decoding reports that.
func unknownKeys(data []byte, t reflect.Type, skip map[string]bool) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []string
	walkKeys(v, t, "", skip, &out)
	return out
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

func walkKeys(v any, t reflect.Type, path string, skip map[string]bool, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return // its own decoder judges it
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if arr, ok := v.([]any); ok {
			for i, x := range arr {
				walkKeys(x, t.Elem(), fmt.Sprintf("%s[%d]", path, i), skip, out)
			}
		}
	case reflect.Map:
		if obj, ok := v.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				walkKeys(obj[k], t.Elem(), join(k), skip, out)
			}
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields := jsonFields(t)
		var names []string
		for n := range fields {
			names = append(names, n)
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if ft, ok := fields[k]; ok {
				walkKeys(obj[k], ft, join(k), skip, out)
				continue
			}
			if skip[join(k)] {
				continue
			}
			msg := fmt.Sprintf("unknown key %q", join(k))
			if near := nearest(k, names); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			*out = append(*out, msg)
		}
	}
}

// jsonFields maps the JSON names of struct type t's fields, embedded
// structs' included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				maps.Copy(m, jsonFields(ft))
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}

// nearest returns the name among names closest to k, ignoring case and
// the difference between camelCase, snake_case and kebab-case, if it is
// within a third of k's length; else "".
func nearest(k string, names []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	best, bestD := "", max(1, len(k)/3)+1
	for _, n := range names {
		d := levenshtein.Distance(norm(k), norm(n), bestD)
		if d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if bestD > max(1, len(k)/3) {
		return ""
	}
	return best
}

// configKeyReports reads a config file and reports its unknown keys,
// each prefixed with the file.
func fileKeyReports(path string, t reflect.Type, skip map[string]bool) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range unknownKeys(data, t, skip) {
		out = append(out, path+": "+r)
	}
	return out
}

// claudeSettingsKeys are keys of Claude Code's settings files, which wield
// shares, that wield does not read: they are not typos.
var claudeSettingsKeys = map[string]bool{
	"$schema": true, "apiKeyHelper": true, "cleanupPeriodDays": true, "env": true, "includeCoAuthoredBy": true,
	"model": true, "statusLine": true, "outputStyle": true, "enableAllProjectMcpServers": true,
	"enabledMcpjsonServers": true, "disabledMcpjsonServers": true, "forceLoginMethod": true,
	"forceLoginOrgUUID": true, "awsAuthRefresh": true, "awsCredentialExport": true, "enabledPlugins": true,
	"extraKnownMarketplaces": true, "spinnerTipsEnabled": true, "alwaysThinkingEnabled": true,
	"sandbox": true, "companyAnnouncements": true, "disableAllHooks": true, "otelHeadersHelper": true,
	"permissions.additionalDirectories": true, "permissions.disableBypassPermissionsMode": true,
}

// unknownSettingsKeys reports the unknown keys of a settings file.
func unknownSettingsKeys(path string) []string {
	return fileKeyReports(path, reflect.TypeFor[policy.Settings](), claudeSettingsKeys)
}

// mcpFileKeys is the form of an MCP configuration file, for its key
// report; the servers' own keys are mcp.ServerConfig's.
type mcpFileKeys struct {
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
}

// configReports lists the unknown keys of every config, settings and MCP
// file of workspace ws.
func configReports(ws string) []string {
	var out []string
	files := []string{workspace.Layout{Root: ws}.Config()}
	if u, err := workspace.User(); err == nil {
		files = append(files, u.Config())
	}
	for _, f := range files {
		out = append(out, fileKeyReports(f, reflect.TypeFor[runConfig](), nil)...)
	}
	for _, f := range append(policy.SettingsFiles(ws), wield.LocalSettings(ws)) {
		out = append(out, unknownSettingsKeys(f)...)
	}
	for _, f := range mcp.ConfigFiles(ws) {
		out = append(out, fileKeyReports(f, reflect.TypeFor[mcpFileKeys](), nil)...)
	}
	return out
}
