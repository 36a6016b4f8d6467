package wield

import (
	"cmp"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/tools/github"
)

// EnvSessions names a session store that overrides the workspace's: a
// folder, or a PostgreSQL URL (the wield command opens it with package
// session/pgstore). Its password is a secret.
const EnvSessions = "WIELD_SESSIONS"

// The secrets wield knows of
//
// Every secret wield holds is hidden, by value, in everything it writes:
// the session journal, the log, the --json events, traces, the viewer
// (which reads the journal) and the tool results the model reads. They
// all go into the process's one session.SecretSet (Options.Secrets),
// which the session store hides in journals (Store.Live) and the run
// hides in logs, events and results (env.RedactLogs, env.RedactEvent,
// env.RedactResults). [KnownSecrets] lists them; [AddSecrets] adds them.
//
// A value of session.MinSecretLen bytes or more is replaced wherever it
// occurs; a shorter one (an API key of "x" for a local server) only where
// it is a whole token, never inside a word, and the user is told once,
// by the variable's name, that it is too short to redact reliably.

// A Secret is a secret value and where it comes from (a variable's or a
// setting's name), which warnings show instead of the value.
type Secret struct {
	Name, Value string
}

// githubTokenVars are the variables the GitHub tools read their token from
// (see package wield): all of them are hidden, whichever is used.
var githubTokenVars = []string{"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}

// searchKeyVars are the web search backends' keys (see webSearcher in
// package wield); searchURLVars are endpoints whose URL may hold a password.
var (
	searchKeyVars = []string{"BRAVE_API_KEY", "TAVILY_API_KEY"}
	searchURLVars = []string{"SEARXNG_URL"}
)

// otlpHeaderVars carry the OTLP exporter's headers ("key=value,…"),
// where a tracing service's API key goes (otel/otlp reads them).
var otlpHeaderVars = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"}

// KnownSecrets returns the secrets wield knows of from its environment
// (read with getenv), the providers of cat (nil means the built-in
// catalogue) and the MCP servers configured in servers:
//
//   - every key variable of every provider in the catalogue that is set
//     (ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENAI_API_KEY, …), and the
//     embeddings key of memory search;
//   - the GitHub tokens (GITHUB_TOKEN, GH_TOKEN and the Enterprise
//     variables) and the token gh keeps in its hosts.yml for the
//     configured host and for github.com;
//   - the web search keys (BRAVE_API_KEY, TAVILY_API_KEY) and the
//     password of a SearXNG URL;
//   - the bearer token of wield's own MCP server (WIELD_MCP_TOKEN), the
//     password of a PostgreSQL session store's URL ([EnvSessions]) and
//     the values of the OTLP exporter's headers;
//   - the secrets of the MCP servers' configuration (see [MCPSecrets]).
//
// The key in use when it comes from a config file rather than a variable
// (api_key) is not in the environment: add it too. Values are
// trimmed of surrounding space, as wield trims them before use; empty
// values are left out. The same value may be listed under two names.
func KnownSecrets(getenv func(string) string, cat *catalog.Catalog, servers map[string]mcp.ServerConfig) []Secret {
	out := envSecrets(getenv, providerKeyVars(cat)...)
	out = append(out, envSecrets(getenv, EnvEmbeddingsKey, "WIELD_MCP_TOKEN")...)
	out = append(out, envSecrets(getenv, githubTokenVars...)...)
	out = append(out, envSecrets(getenv, searchKeyVars...)...)
	add := func(name, value string) {
		if v := strings.TrimSpace(value); v != "" {
			out = append(out, Secret{name, v})
		}
	}
	for _, n := range append(slices.Clone(searchURLVars), EnvSessions) {
		add(n+" (its password)", urlPassword(getenv(n)))
	}
	for _, n := range otlpHeaderVars {
		for _, v := range otlpHeaderValues(getenv(n)) {
			add(n, v)
		}
	}
	host := GitHubHost(getenv)
	for _, h := range slices.Compact([]string{host, "github.com"}) {
		add("the token gh keeps for "+h, ghKeptToken(getenv, h))
	}
	return append(out, MCPSecrets(servers)...)
}

// envSecrets returns the values of the variables names that are set,
// trimmed of surrounding space.
func envSecrets(getenv func(string) string, names ...string) []Secret {
	var out []Secret
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			out = append(out, Secret{n, v})
		}
	}
	return out
}

// providerKeyVars returns the key variables of the providers of cat (nil
// means the built-in catalogue), without duplicates, in catalogue order.
func providerKeyVars(cat *catalog.Catalog) []string {
	var names []string
	for _, p := range cmp.Or(cat, catalog.Default()).Providers() {
		for _, v := range p.KeyEnv {
			if !slices.Contains(names, v) {
				names = append(names, v)
			}
		}
	}
	return names
}

// ghKeptToken returns the token gh keeps for host in its hosts.yml, or
// "" when there is none or it cannot be read (githubToken warns about
// that when the GitHub tools are built).
func ghKeptToken(getenv func(string) string, host string) string {
	p, err := github.GHHostsPath(getenv, runtime.GOOS)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	t, _ := github.GHToken(data, host)
	return t
}

// urlPassword returns the password in a URL's user information, or "".
func urlPassword(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

// otlpHeaderValues returns the values of an OTLP headers variable
// ("k1=v1,k2=v2", values URL-encoded), decoded.
func otlpHeaderValues(raw string) []string {
	var vs []string
	for kv := range strings.SplitSeq(raw, ",") {
		_, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if d, err := url.PathUnescape(v); err == nil {
			v = d
		}
		vs = append(vs, v)
	}
	return vs
}

// authHeaders are header names whose values are credentials although
// they do not look like a secret's name to get_env's rules.
var authHeaders = []string{"authorization", "proxy-authorization", "cookie"}

// MCPSecrets returns the secrets in the configuration of MCP servers
// (after ${VAR} expansion): the value of each env variable and header
// whose name looks like a secret's (get_env's deny patterns, "*KEY*",
// "*TOKEN*", "*SECRET*", "*PASSWORD*", and the Authorization,
// Proxy-Authorization and Cookie headers), the credentials of an
// Authorization value without its scheme ("Bearer TOKEN" gives TOKEN
// too), and the password of any URL in a value or in the server's url.
//
// Values under other names are not secrets wield can tell apart from
// ordinary settings (NODE_ENV=production, a HOME or PATH, an Accept
// header), and hiding them would garble every text that mentions them.
func MCPSecrets(servers map[string]mcp.ServerConfig) []Secret {
	var out []Secret
	add := func(name, value string) {
		if v := strings.TrimSpace(value); v != "" {
			out = append(out, Secret{name, v})
		}
	}
	secretName := env.Config{}.Denied // get_env's default rules
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		sc := servers[name]
		where := "MCP server " + name
		add(where+" url (its password)", urlPassword(sc.URL))
		for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
			v := sc.Env[k]
			if secretName(k) {
				add(where+" env "+k, v)
			}
			add(where+" env "+k+" (its password)", urlPassword(v))
		}
		for _, k := range slices.Sorted(maps.Keys(sc.Headers)) {
			v := sc.Headers[k]
			if !secretName(k) && !slices.Contains(authHeaders, strings.ToLower(k)) {
				continue
			}
			add(where+" header "+k, v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(where+" header "+k+" (its credentials)", cred)
			}
		}
	}
	return out
}

// AddSecrets adds secrets to set, which the session store, the log, the
// events and the tool results hide. It warns, through log, about each
// value it cannot hide reliably, naming where it comes from, never the
// value: one too short to be hidden inside words, or one that cannot be
// hidden at all (not UTF-8, or part of the redaction marker). A value the
// set already has is skipped: it was warned about when added.
func AddSecrets(set *session.SecretSet, secrets []Secret, log *slog.Logger) {
	for _, s := range secrets {
		if set.Has(s.Value) {
			continue
		}
		switch {
		case !set.AddKnown(s.Value):
			log.Warn("a secret cannot be redacted (it is not UTF-8 text, or part of the marker "+session.Redacted+"); it may appear in the journal, the log and the model's input", "secret", s.Name)
		case len(s.Value) < session.MinSecretLen:
			log.Warn("a secret is too short to redact reliably: it is hidden only where it stands alone as a word, and stays visible inside longer words", "secret", s.Name, "min_bytes", session.MinSecretLen)
		}
	}
}

// ModelKeys returns the keys of a run's models as secrets: the set key
// variables of the providers of cat (nil means the built-in catalogue),
// read with getenv, and keys, the keys in use, which a config file may
// give rather than a variable.
func ModelKeys(getenv func(string) string, cat *catalog.Catalog, keys ...string) []Secret {
	secrets := envSecrets(getenv, providerKeyVars(cat)...)
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			secrets = append(secrets, Secret{"the API key in use", k})
		}
	}
	return secrets
}

// WorkspaceSecrets returns the secrets wield knows of in workspace ws:
// [KnownSecrets] of the environment, the built-in catalogue and the MCP
// servers configured for ws (loaded as the MCP manager loads them; a
// problem there is the manager's to report).
func WorkspaceSecrets(ws string) []Secret {
	servers, _ := mcp.LoadConfig(mcp.ConfigFiles(ws), nil)
	return KnownSecrets(os.Getenv, nil, servers)
}
