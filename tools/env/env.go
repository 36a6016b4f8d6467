// Package env provides get_env and request_env, the tools that let a
// model read environment variables and ask the user for values, without
// secrets ever reaching the model, the journal, the logs or printed
// output.
//
// # Rules
//
// get_env returns a variable's value only when the rules allow its name:
// by default every name is allowed except those matching [DefaultDeny]
// ("*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", matched without regard
// to case); [Config.Allow] lets chosen names through and [Config.Deny]
// replaces the default list. The patterns are path.Match globs.
//
// # Secrets
//
// request_env asks the user (through the [Asker] given at construction)
// for a value for this session. The value is kept in [Vars], which the
// host gives the tools that need it (a shell's environment). A value is
// secret when the user says so or when its name matches a deny pattern;
// a secret's value goes to the host's [session.SecretSet] at once, so
// the journal hides it, and the model is told only that it is set. The
// host hides it in the rest of what it writes with [RedactResults] (every
// tool result, before the model, the journal and the printed events see
// it) and [RedactLogs].
//
// The host may put the secrets it knows at start (its API keys) in the
// same set ([session.SecretSet.AddKnown]), so that these functions hide
// them as well: one set serves the journal and every other output.
//
// What this does not guarantee: a secret shorter than
// [session.MinLiveSecretLen] bytes is refused (it is more likely a slip
// than a password), and one shorter than [session.MinSecretLen] is hidden
// only where it is a whole token, so it stays visible inside a longer
// word; a tool that transforms a secret (base64, hashing, one character a
// line) before printing it defeats the redaction, and so does a secret
// split across two events of a stream, since each event is redacted
// alone; and the process environment of commands is readable by those
// commands.
package env

import (
	"context"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// DefaultDeny are the name patterns get_env refuses when [Config.Deny] is
// nil.
var DefaultDeny = []string{"*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*"}

// A Request is what request_env asks the user.
type Request struct {
	// Name is the variable; Reason is why the model wants it.
	Name, Reason string
	// Secret reports whether the name looks like a secret's (a deny
	// pattern matches it): the asker should not echo what is typed.
	Secret bool
}

// An Answer is the user's reply to a [Request].
type Answer struct {
	// Value is the value; Declined reports that the user gave none.
	Value    string
	Declined bool
	// Secret reports whether the user marked the value as secret; a
	// Request's Secret makes it secret anyway.
	Secret bool
}

// An Asker asks the user for a variable's value. AskEnv must return when
// ctx is done; it is called for one request at a time.
type Asker interface {
	AskEnv(ctx context.Context, r Request) (Answer, error)
}

// AskerFunc adapts a function to an [Asker].
type AskerFunc func(ctx context.Context, r Request) (Answer, error)

// AskEnv calls f(ctx, r).
func (f AskerFunc) AskEnv(ctx context.Context, r Request) (Answer, error) { return f(ctx, r) }

// Config is what the tools are built with. Its zero value reads the
// process environment under DefaultDeny and cannot ask anyone.
type Config struct {
	// Lookup reads a variable; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
	// Allow are name patterns read even though a deny pattern matches
	// them.
	Allow []string
	// Deny are the name patterns refused; nil means DefaultDeny, an
	// empty list none.
	Deny []string
	// Asker answers request_env; nil means nobody can.
	Asker Asker
	// Vars keeps the values the user gave; nil means request_env fails.
	Vars *Vars
	// Secrets receives every secret value, for the journal and the
	// host's output to hide; nil means secrets cannot be requested.
	Secrets *session.SecretSet
}

// Tools returns get_env and request_env.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{GetEnv(cfg), RequestEnv(cfg)}
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// ValidName reports whether name can be an environment variable's name.
func ValidName(name string) bool { return len(name) <= 256 && namePattern().MatchString(name) }

// Denied reports whether the rules refuse to show the variable name:
// a deny pattern matches it and no allow pattern does.
func (cfg Config) Denied(name string) bool {
	deny := cfg.Deny
	if deny == nil {
		deny = DefaultDeny
	}
	return matchAny(deny, name) && !matchAny(cfg.Allow, name)
}

// looksSecret reports whether a deny pattern matches name, whatever the
// allow list says.
func (cfg Config) looksSecret(name string) bool {
	deny := cfg.Deny
	if deny == nil {
		deny = DefaultDeny
	}
	return matchAny(deny, name)
}

func matchAny(patterns []string, name string) bool {
	n := strings.ToUpper(name)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), n); ok {
			return true
		}
	}
	return false
}

func (cfg Config) lookup(name string) (string, bool) {
	if cfg.Lookup != nil {
		return cfg.Lookup(name)
	}
	return os.LookupEnv(name)
}

// Vars holds the values the user gave for this session. Its zero value is
// empty; it is safe for concurrent use.
type Vars struct {
	mu sync.RWMutex
	m  map[string]value
}

type value struct {
	v      string
	secret bool
}

// Set sets name to v.
func (vs *Vars) Set(name, v string, secret bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.m == nil {
		vs.m = map[string]value{}
	}
	vs.m[name] = value{v, secret}
}

// Lookup returns name's value and whether it is secret.
func (vs *Vars) Lookup(name string) (v string, secret, ok bool) {
	if vs == nil {
		return "", false, false
	}
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	val, ok := vs.m[name]
	return val.v, val.secret, ok
}

// Environ returns the values as "NAME=value" pairs, sorted by name, to
// add to the environment of a command that needs them.
func (vs *Vars) Environ() []string {
	if vs == nil {
		return nil
	}
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(vs.m)) {
		out = append(out, k+"="+vs.m[k].v)
	}
	return out
}
