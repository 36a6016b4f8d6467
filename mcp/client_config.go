package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/workspace"
)

// Defaults for the per-server timeouts of a [ServerConfig].
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultCallTimeout    = 10 * time.Minute
)

// MaxServerNameLength is the longest server name a configuration may use.
const MaxServerNameLength = 64

// A ServerConfig describes one MCP server, in the "mcpServers" format of
// .mcp.json files (Claude Code, Claude Desktop, Cursor) plus wield's own
// keys. A server is reached over standard input and output when Command is
// set, and over HTTP when URL is set; exactly one of the two must be given.
//
// The zero value of every optional field means its documented default.
type ServerConfig struct {
	// Type is "stdio", "http" (streamable HTTP, falling back to the older
	// HTTP+SSE transport), "streamable-http" (the same) or "sse" (only the
	// older transport). Empty means "stdio" when Command is set and "http"
	// when URL is set.
	Type string `json:"type,omitempty"`

	// Command, Args and Env start a stdio server. The child runs in the
	// manager's directory with wield's environment plus Env.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	// URL and Headers reach an HTTP server; Headers are sent with every
	// request (typically Authorization).
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// Enabled, when false, keeps the server out of the manager's tools
	// without removing it from the file. Nil means enabled. "disabled":
	// true (Cline's spelling) means the same as "enabled": false.
	Enabled  *bool `json:"enabled,omitempty"`
	Disabled bool  `json:"disabled,omitempty"`

	// Include, if not empty, keeps only the server's tools whose names
	// match one of its patterns; Exclude then drops those that match one
	// of its. Patterns are path.Match globs over the server's own tool
	// names ("read_*").
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`

	// StartupTimeout bounds starting the server and its initialize
	// handshake; zero means DefaultStartupTimeout. CallTimeout bounds one
	// tool call; zero means DefaultCallTimeout. In a file, either is a
	// number of seconds or a Go duration string ("90s", "5m").
	StartupTimeout Duration `json:"startup_timeout,omitzero"`
	CallTimeout    Duration `json:"call_timeout,omitzero"`

	// Trust reports whether the user trusts the server: only then are the
	// annotations its tools claim (readOnlyHint and the others) the
	// tools' [tool.Annotations], so that a policy may run a read-only one
	// without asking; the tools of other servers are annotated as
	// destructive and open-world, whatever they claim. See [Origin].
	//
	// Only the user's own configuration may set it: [LoadConfig] and
	// [ParseConfig] ignore it, with an error, in any other file, since a
	// project's .mcp.json or .wield/mcp.json comes with the repository.
	Trust bool `json:"trust,omitempty"`

	// Transport, when set, connects to an in-process server instead of
	// Command or URL. It is called once per (re)start and must return a
	// fresh transport. It cannot be set from a file.
	Transport func(context.Context) (sdk.Transport, error) `json:"-"`

	// Source is the file the configuration was read from; empty for
	// servers added in code.
	Source string `json:"-"`
}

// IsEnabled reports whether the server is enabled.
func (c *ServerConfig) IsEnabled() bool {
	return !c.Disabled && (c.Enabled == nil || *c.Enabled)
}

// transport returns "stdio", "http", "sse" or "inproc".
func (c *ServerConfig) transport() string {
	switch {
	case c.Transport != nil:
		return "inproc"
	case c.Command != "":
		return "stdio"
	case c.Type == "sse":
		return "sse"
	default:
		return "http"
	}
}

func (c *ServerConfig) startupTimeout() time.Duration {
	return cmp.Or(time.Duration(c.StartupTimeout), DefaultStartupTimeout)
}

func (c *ServerConfig) callTimeout() time.Duration {
	return cmp.Or(time.Duration(c.CallTimeout), DefaultCallTimeout)
}

// Validate checks the configuration of the server called name and returns
// an error listing every problem. A disabled server need not say how to
// reach it.
func (c *ServerConfig) Validate(name string) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := checkServerName(name); err != nil {
		errs = append(errs, err)
	}
	switch c.Type {
	case "", "stdio", "http", "streamable-http", "sse":
	default:
		add(`type %q is not one of "stdio", "http", "streamable-http" or "sse"`, c.Type)
	}
	switch {
	case c.Transport != nil:
	case c.Command != "" && c.URL != "":
		add(`give either "command" (a stdio server) or "url" (an HTTP server), not both`)
	case c.Command == "" && c.URL == "" && c.IsEnabled():
		add(`missing "command" (a stdio server) or "url" (an HTTP server)`)
	case c.Command != "" && c.Type != "" && c.Type != "stdio":
		add(`type %q needs "url", not "command"`, c.Type)
	case c.URL != "" && c.Type == "stdio":
		add(`type "stdio" needs "command", not "url"`)
	case c.URL != "":
		if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
			add(`url %q must start with http:// or https://`, c.URL)
		}
	}
	if c.Command == "" && (len(c.Args) > 0 || len(c.Env) > 0) && c.Transport == nil {
		add(`"args" and "env" need "command"`)
	}
	if c.URL == "" && len(c.Headers) > 0 {
		add(`"headers" need "url"`)
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			add("env: invalid variable name %q", k)
		}
	}
	for k, v := range c.Headers {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == ':' }) {
			add("headers: invalid header name %q", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			add("headers: value of %s contains a line break or NUL", k)
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"include", c.Include}, {"exclude", c.Exclude}} {
		for _, p := range list.patterns {
			if _, err := path.Match(p, ""); err != nil {
				add("%s: bad pattern %q: %w", list.key, p, err)
			}
		}
	}
	if c.StartupTimeout < 0 || c.CallTimeout < 0 {
		add("timeouts must not be negative")
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("mcp server %q: %w", name, errors.Join(errs...))
}

func checkServerName(name string) error {
	switch {
	case name == "":
		return errors.New("empty server name")
	case len(name) > MaxServerNameLength:
		return fmt.Errorf("server name is %d bytes long, at most %d allowed", len(name), MaxServerNameLength)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '/' || r == '\\' }):
		return fmt.Errorf("server name %q contains a control character or a slash", name)
	}
	return nil
}

// keeps reports whether the server's tool called name passes Include and
// Exclude.
func (c *ServerConfig) keeps(name string) bool {
	match := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool {
			ok, _ := path.Match(p, name)
			return ok
		})
	}
	if len(c.Include) > 0 && !match(c.Include) {
		return false
	}
	return !match(c.Exclude)
}

// Duration is a time.Duration that a configuration file writes as a number
// of seconds (30, 0.5) or as a Go duration string ("30s", "10m").
type Duration time.Duration

// UnmarshalJSON accepts a number of seconds or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		if v < 0 || v > float64(1<<63-1)/float64(time.Second) {
			return fmt.Errorf("duration %v seconds is out of range", v)
		}
		*d = Duration(v * float64(time.Second))
	case string:
		p, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("duration %q: use a number of seconds or a string like \"30s\" or \"5m\"", v)
		}
		*d = Duration(p)
	default:
		return fmt.Errorf("duration %s: use a number of seconds or a string like \"30s\"", b)
	}
	return nil
}

// String formats the duration as time.Duration does ("1m30s").
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// ConfigFiles returns the files wield reads MCP servers from for the
// workspace ws, lowest precedence first, as [LoadConfig] wants them:
//
//  1. the user's wield configuration, ~/.config/wield/mcp.json (the
//     directory is [os.UserConfigDir]);
//  2. the project's .mcp.json at the workspace root, the file Claude Code
//     and other clients share;
//  3. the workspace's own .wield/mcp.json.
//
// A server defined in a later file replaces the whole definition of the
// same name in an earlier one, so a project can override or disable
// ("enabled": false) a server of the user's. This is the order wield's
// other settings use: the workspace beats the user.
//
// Only the first is the user's own: "trust" is honoured there and nowhere
// else (see [ServerConfig.Trust]).
func ConfigFiles(ws string) []string {
	var files []string
	if f := userConfigFile(nil); f != "" {
		files = append(files, f)
	}
	l := workspace.Layout{Root: ws}
	return append(files, l.SharedMCP(), l.MCP())
}

// LoadOptions configures [LoadConfig] and [ParseConfig]. A nil
// *LoadOptions means the defaults.
type LoadOptions struct {
	// LookupEnv resolves ${VAR} references; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// UserConfig is the user's own configuration file, the only file in
	// which [LoadConfig] honours "trust". Empty means the user's file of
	// [ConfigFiles], ~/.config/wield/mcp.json.
	UserConfig string
	// FromUser reports whether the data given to [ParseConfig] is the
	// user's own configuration, in which "trust" is honoured. LoadConfig
	// ignores it and decides for each file by UserConfig.
	FromUser bool
}

// userConfigFile returns the user's own configuration file, or "" if
// there is none.
func userConfigFile(opts *LoadOptions) string {
	if opts != nil && opts.UserConfig != "" {
		return opts.UserConfig
	}
	u, err := workspace.User()
	if err != nil {
		return ""
	}
	return u.MCP()
}

// samePath reports whether a and b name the same file, comparing their
// absolute, cleaned forms.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// LoadConfig reads the MCP server definitions of the files that exist
// among paths, lowest precedence first: a later definition of a server
// replaces an earlier one whole. A missing file is skipped.
//
// Each file is a JSON object whose "mcpServers" member maps server names to
// [ServerConfig]s; other members are ignored. ${VAR} and ${VAR:-default}
// in command, args, env, url and headers are replaced by environment
// variables; an unset variable without a default is an error.
//
// "trust" is honoured only in the user's own configuration
// (opts.UserConfig); in any other file it is ignored, with an error, and
// the server is kept, untrusted.
//
// LoadConfig returns every server it could read, even when it also returns
// an error: a file that cannot be read or parsed, or a server whose
// definition is invalid, is reported (by file and server name) and left
// out, and the others are kept.
func LoadConfig(paths []string, opts *LoadOptions) (map[string]ServerConfig, error) {
	out := map[string]ServerConfig{}
	var errs []error
	user := userConfigFile(opts)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp config: %w", err))
			continue
		}
		fileOpts := LoadOptions{FromUser: samePath(p, user)}
		if opts != nil {
			fileOpts.LookupEnv = opts.LookupEnv
		}
		servers, err := ParseConfig(data, &fileOpts)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp config %s: %w", p, err))
		}
		for name, sc := range servers {
			sc.Source = p
			out[name] = sc
		}
	}
	return out, errors.Join(errs...)
}

// ParseConfig parses one configuration file's contents; see [LoadConfig].
// "trust" is honoured only when opts.FromUser is set. It returns the valid
// servers even when it also returns an error.
func ParseConfig(data []byte, opts *LoadOptions) (map[string]ServerConfig, error) {
	lookup := os.LookupEnv
	if opts != nil && opts.LookupEnv != nil {
		lookup = opts.LookupEnv
	}
	fromUser := opts != nil && opts.FromUser
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, jsonError(data, err)
	}
	out := map[string]ServerConfig{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		raw := file.MCPServers[name]
		var sc ServerConfig
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&sc); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %q: %w", name, err))
			continue
		}
		if err := sc.expand(lookup); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %q: %w", name, err))
			continue
		}
		if err := sc.Validate(name); err != nil {
			errs = append(errs, err)
			continue
		}
		if sc.Trust && !fromUser {
			sc.Trust = false
			errs = append(errs, fmt.Errorf(`mcp server %q: "trust" is ignored: only the user's own mcp.json may trust a server, not a project's file; its tools' annotations are taken as untrusted hints`, name))
		}
		out[name] = sc
	}
	return out, errors.Join(errs...)
}

// jsonError adds the line and column to a syntax error.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:min(int(se.Offset), len(data))], '\n') - 1
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	return err
}

// expand replaces ${VAR} references in the fields that may hold them.
func (c *ServerConfig) expand(lookup func(string) (string, bool)) error {
	var errs []error
	do := func(where string, s *string) {
		v, err := Expand(*s, lookup)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
		}
		*s = v
	}
	do("command", &c.Command)
	for i := range c.Args {
		do("args["+strconv.Itoa(i)+"]", &c.Args[i])
	}
	do("url", &c.URL)
	for _, m := range []struct {
		key string
		m   map[string]string
	}{{"env", c.Env}, {"headers", c.Headers}} {
		for k, v := range m.m {
			do(m.key+"."+k, &v)
			m.m[k] = v
		}
	}
	return errors.Join(errs...)
}

// Expand replaces each ${VAR} in s by the value lookup gives for VAR, and
// each ${VAR:-default} by that value, or by default when VAR is unset or
// empty. A "$" not followed by "{" is kept. An unset variable without a
// default, or an unterminated or empty reference, is an error.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("invalid variable reference ${%s}", ref)
		}
		v, ok := lookup(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} for a default)", name, name)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
