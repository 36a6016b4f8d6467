package wield

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

	"github.com/wieldhq/wield/internal/jsonpos"
	"github.com/wieldhq/wield/internal/levenshtein"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/workspace"
)

// Config is the format of wield's configuration files: a workspace's
// .wield/config.json and the user's config.json (in wield's configuration
// directory). It says how to reach a model and how runs go. [LoadConfig]
// merges its sources, strongest first: the caller's own (the wield
// command's flags), the environment (WIELD_MODEL, OPENAI_BASE_URL,
// OPENAI_API_KEY, WIELD_ASK_MODEL), the workspace's file, the user's.
// BaseURL and APIKey outside the caller's are OpenAI settings;
// [ChooseModel] says where each applies.
type Config struct {
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
	// overrides them (prices, windows, base URLs).
	Catalog *catalog.File `json:"catalog,omitempty"`
	// Sandbox runs shell commands in the sandbox ("sandbox": true) and
	// names the hosts sandboxed commands and run_code may reach through
	// wield's proxy ("sandbox": {"network": [...]}); SandboxNetwork lets
	// them reach the whole network, and AskModel is ask_model's default
	// model.
	Sandbox        SandboxSetting `json:"sandbox,omitzero"`
	SandboxNetwork bool           `json:"sandbox_network,omitempty"`
	AskModel       string         `json:"ask_model,omitempty"`
}

// SandboxSetting is the "sandbox" setting of a [Config]: true runs shell
// commands in the sandbox; an object does too, and its "network" lists
// the hosts sandboxed commands may reach through wield's egress proxy
// (patterns as package sandbox/egress takes them: "api.example.com",
// "*.github.com", "host:8443").
//
// "hide" adds absolute paths (~/ for the home directory) to the credential
// locations the sandbox hides from commands, and "show" keeps one of them
// readable on purpose (sandbox.Config's Hide and Show).
type SandboxSetting struct {
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
func (s *SandboxSetting) UnmarshalJSON(data []byte) error {
	var on bool
	if json.Unmarshal(data, &on) == nil {
		*s = SandboxSetting{On: on}
		return nil
	}
	var obj sandboxObject
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf(`"sandbox" is true, false or {"network": ["host", ...], "hide": ["path", ...], "show": ["path", ...]}: %w`, err)
	}
	*s = SandboxSetting{On: true, Network: obj.Network, Hide: obj.Hide, Show: obj.Show}
	return nil
}

// MarshalJSON writes s as UnmarshalJSON reads it.
func (s SandboxSetting) MarshalJSON() ([]byte, error) {
	if s.Network == nil && s.Hide == nil && s.Show == nil {
		return json.Marshal(s.On)
	}
	return json.Marshal(sandboxObject{Network: s.Network, Hide: s.Hide, Show: s.Show})
}

// Paths returns the setting's hide and show lists as absolute paths, "~/"
// taken as the home directory home; a path that is neither is an error.
func (s SandboxSetting) Paths(home string) (hide, show []string, err error) {
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

// Merge fills the zero fields of c from o, a weaker source. A sandbox
// asked for by either stays on, and every source's hidden paths stay
// hidden.
func (c *Config) Merge(o Config) {
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

// LoadConfig returns over merged over the environment (read with getenv)
// over the configuration files of workspace ws and of the user. Of the
// workspace's file, only what restricts applies unless trusted (see
// [Config.Restricting] and [Manifest]). A file that is missing counts as
// empty; one that cannot be read or decoded is an error naming it, and
// the config returned is what was merged before it.
func LoadConfig(over Config, ws string, getenv func(string) string, trusted bool) (Config, error) {
	c := over
	c.Merge(Config{Model: getenv("WIELD_MODEL"), BaseURL: getenv("OPENAI_BASE_URL"), APIKey: getenv("OPENAI_API_KEY"), AskModel: getenv("WIELD_ASK_MODEL")})
	fc, err := ReadConfig(workspace.Layout{Root: ws}.Config())
	if err != nil {
		return c, err
	}
	if !trusted {
		fc = fc.Restricting()
	}
	c.Merge(fc)
	if u, err := workspace.User(); err == nil {
		fc, err := ReadConfig(u.Config())
		if err != nil {
			return c, err
		}
		c.Merge(fc)
	}
	return c, nil
}

// ReadConfig reads the configuration file path. A missing file is a zero
// Config; one that does not decode is an error with its line and column.
func ReadConfig(path string) (Config, error) {
	var c Config
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

// Restricting returns what of c applies from a folder the user has not
// trusted: settings that cannot run anything, choose a model or an
// endpoint, or widen what the agent may do. A field added to Config is
// left out until it is judged here (TestConfigFieldsJudged); what it
// leaves out is what [Manifest] lists as needing trust.
func (c Config) Restricting() Config {
	r := Config{
		MaxRounds:         c.MaxRounds,
		SystemPrompt:      c.SystemPrompt,
		ExpireToolResults: c.ExpireToolResults,
		MaxImages:         c.MaxImages,
		Sandbox:           SandboxSetting{On: c.Sandbox.On, Hide: c.Sandbox.Hide},
	}
	if !slices.ContainsFunc(c.Tools, func(t string) bool { return slices.Contains(OptIn, t) }) {
		r.Tools = c.Tools
	}
	return r
}

// UnknownKeys reports the keys of the configuration, settings and MCP
// files of workspace ws (and of the user's configuration and settings
// files) that wield does not read, one line per key: the file, the key's
// dotted path and, when a known key is near, "did you mean". Decoding
// ignores such keys, so a typo such as "baseUrl" would silently fall back
// to a default. Keys of Claude Code's settings, which wield shares, are
// not reported; neither is a file that is missing or does not parse.
func UnknownKeys(ws string) []string {
	var out []string
	files := []string{workspace.Layout{Root: ws}.Config()}
	if u, err := workspace.User(); err == nil {
		files = append(files, u.Config())
	}
	for _, f := range files {
		out = append(out, fileKeyReports(f, reflect.TypeFor[Config](), nil)...)
	}
	for _, f := range append(policy.SettingsFiles(ws), LocalSettings(ws)) {
		out = append(out, fileKeyReports(f, reflect.TypeFor[policy.Settings](), claudeSettingsKeys)...)
	}
	for _, f := range mcp.ConfigFiles(ws) {
		out = append(out, fileKeyReports(f, reflect.TypeFor[mcpFileKeys](), nil)...)
	}
	return out
}

// unknownKeys returns a report for each key of the JSON document data
// that type t does not decode: its dotted path and, when a known key is
// near, "did you mean". Keys in skip (dotted paths, "*" for any map key)
// are known to other programs that share the file and are not reported.
// A document that does not parse gives none: decoding reports that.
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

// fileKeyReports reads a file and reports its unknown keys, each
// prefixed with the file.
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

// mcpFileKeys is the form of an MCP configuration file, for its key
// report; the servers' own keys are mcp.ServerConfig's.
type mcpFileKeys struct {
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
}
