package gitsafe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Options says what a repository may still make git run. The zero
// Options lets it run nothing.
type Options struct {
	// Hooks reports whether git may run hooks: core.hooksPath is then
	// left as configured. Set it only for a repository the user trusts.
	Hooks bool
}

// An Entry is one configuration variable as git config --list
// --show-scope -z reports it.
type Entry struct {
	// Scope is where it was set: system, global, local, worktree or
	// command. An included file's settings have the scope of the file
	// that included it.
	Scope string
	// Key is section.name or section.subsection.name; git writes the
	// section and the name in lower case and the subsection as it is.
	Key string
	// Value is the value; NoValue reports a key written without "=",
	// which git takes as true.
	Value   string
	NoValue bool
}

// user reports whether the user, not the repository, set e.
func (e Entry) user() bool {
	switch e.Scope {
	case "system", "global", "command":
		return true
	}
	return false
}

// value returns e's value as a string, "true" for a key without one.
func (e Entry) value() string {
	if e.NoValue {
		return "true"
	}
	return e.Value
}

// ListArgs returns the arguments of the git command whose output
// [ParseList] reads: config --list --includes --show-scope -z. Reading
// configuration runs no program the configuration names.
func ListArgs() []string {
	return []string{"config", "--list", "--includes", "--show-scope", "-z"}
}

// ErrList is returned (wrapped) by [ParseList] for output it cannot read.
var ErrList = errors.New("malformed git config --list output")

// ParseList reads the output of git with [ListArgs]: for each variable,
// its scope and a NUL, then its key, a newline and its value and a NUL
// (or the key and a NUL when it has no value).
func ParseList(out []byte) ([]Entry, error) {
	var entries []Entry
	for len(out) > 0 {
		scope, rest, ok := bytes.Cut(out, []byte{0})
		if !ok || len(scope) == 0 {
			return nil, fmt.Errorf("%w: a scope at byte %d", ErrList, len(out))
		}
		item, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, fmt.Errorf("%w: no end to the variable of scope %q", ErrList, scope)
		}
		key, value, hasValue := bytes.Cut(item, []byte{'\n'})
		if !validKey(string(key)) {
			return nil, fmt.Errorf("%w: key %q", ErrList, key)
		}
		entries = append(entries, Entry{Scope: string(scope), Key: string(key), Value: string(value), NoValue: !hasValue})
		out = rest
	}
	return entries, nil
}

// validKey reports whether k has a section and a name, with no NUL.
func validKey(k string) bool {
	first, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
	return first > 0 && last < len(k)-1 && !strings.ContainsRune(k, 0)
}

// A key is a configuration key split into its parts: section and name
// in lower case, subsection as it is (it may hold dots).
type key struct {
	section, sub, name string
	hasSub             bool
}

func splitKey(k string) key {
	first, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
	if first < 0 {
		return key{section: strings.ToLower(k)}
	}
	out := key{section: strings.ToLower(k[:first]), name: strings.ToLower(k[last+1:])}
	if last > first {
		out.sub, out.hasSub = k[first+1:last], true
	}
	return out
}

// String returns k as git writes it.
func (k key) String() string {
	if k.hasSub {
		return k.section + "." + k.sub + "." + k.name
	}
	return k.section + "." + k.name
}

// A rule says which keys a repository sets that make git run a program
// and what they become. Subsection: "" means the key has none, "*" that
// it has one (any), anything else that it is exactly that.
type rule struct {
	section, sub string
	names        []string
	neutral      string
	// runs, if set, reports whether a value runs a program; values for
	// which it is false are left alone.
	runs func(value string) bool
}

func (r rule) match(k key) bool {
	if k.section != r.section || !slices.Contains(r.names, k.name) {
		return false
	}
	switch r.sub {
	case "":
		return !k.hasSub
	case "*":
		return k.hasSub
	}
	return k.hasSub && strings.EqualFold(k.sub, r.sub)
}

// repoRules are the keys overridden when a repository sets them; see the
// package documentation.
var repoRules = []rule{
	{section: "filter", sub: "*", names: []string{"clean", "smudge", "process"}},
	{section: "diff", sub: "*", names: []string{"command", "textconv"}},
	{section: "diff", names: []string{"external", "tool", "guitool"}},
	{section: "merge", sub: "*", names: []string{"driver"}},
	{section: "merge", names: []string{"tool", "guitool"}},
	{section: "core", names: []string{"alternaterefscommand"}},
	{section: "gpg", sub: "ssh", names: []string{"defaultkeycommand"}},
	{section: "tar", sub: "*", names: []string{"command"}},
	{section: "man", sub: "*", names: []string{"cmd", "path"}},
	{section: "man", names: []string{"viewer"}, neutral: "man"},
	{section: "help", names: []string{"format"}, neutral: "man"},
	{section: "help", names: []string{"browser"}},
	{section: "web", names: []string{"browser"}},
	{section: "browser", sub: "*", names: []string{"cmd", "path"}},
	{section: "difftool", sub: "*", names: []string{"cmd", "path"}},
	{section: "mergetool", sub: "*", names: []string{"cmd", "path"}},
	{section: "guitool", sub: "*", names: []string{"cmd"}},
	{section: "interactive", names: []string{"difffilter"}},
	{section: "imap", names: []string{"tunnel"}},
	{section: "sendemail", names: []string{"smtpserver", "tocmd", "cccmd", "headercmd", "sendmailcmd"}},
	{section: "sendemail", sub: "*", names: []string{"smtpserver", "tocmd", "cccmd", "headercmd", "sendmailcmd"}},
	{section: "commit", names: []string{"gpgsign"}, neutral: "false"},
	{section: "tag", names: []string{"gpgsign"}, neutral: "false"},
	{section: "push", names: []string{"gpgsign"}, neutral: "false"},
	{section: "log", names: []string{"showsignature"}, neutral: "false"},
	{section: "submodule", names: []string{"recurse"}, neutral: "false"},
	{section: "submodule", sub: "*", names: []string{"update"}, neutral: "none",
		runs: func(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), "!") }},
}

// repoRule returns the rule a repository's key falls under.
func repoRule(k key) (rule, bool) {
	switch {
	case k.section == "alias":
		// alias.<name>, and alias.<name>.command in later gits: an alias
		// may run a shell command or carry -c options of its own.
		return rule{}, true
	case k.section == "pager" && !k.hasSub:
		return rule{neutral: "false"}, true
	case k.section == "lfs" && k.hasSub:
		// lfs.customtransfer.<name>.path, lfs.extension.<name>.clean.
		sub := strings.ToLower(k.sub)
		switch {
		case strings.HasPrefix(sub, "customtransfer.") && k.name == "path",
			strings.HasPrefix(sub, "extension.") && (k.name == "clean" || k.name == "smudge"):
			return rule{}, true
		}
		return rule{}, false
	}
	for _, r := range repoRules {
		if r.match(k) {
			return r, true
		}
	}
	return rule{}, false
}

// A setting is one variable given on git's command line.
type setting struct{ key, value string }

// settings returns the command-line configuration and the environment
// variables ("NAME=VALUE") that neutralise what entries (nil when
// unknown) would make git run, in the order they must be given (later
// ones win). env is the environment git will run with: it supplies the
// fallbacks $GIT_SSH and $SSH_ASKPASS and tells whether
// GIT_PROXY_COMMAND is set. A key may hold '=' (in a URL), so the
// settings are pairs, never "key=value" strings.
func settings(entries []Entry, env []string, opts Options) (config []setting, vars []string) {
	var out []setting
	last := func(names ...string) (string, bool) {
		for _, e := range slices.Backward(entries) {
			if e.user() && slices.ContainsFunc(names, func(n string) bool { return splitKey(n) == splitKey(e.Key) }) {
				return e.value(), true
			}
		}
		return "", false
	}
	userOr := func(k, fallback string, aliases ...string) {
		v, ok := last(append([]string{k}, aliases...)...)
		if !ok {
			v = fallback
		}
		out = append(out, setting{k, v})
	}
	if !opts.Hooks {
		out = append(out, setting{"core.hooksPath", "/dev/null"})
	}
	userOr("core.fsmonitor", "false")
	out = append(out, setting{"core.pager", "cat"}, setting{"core.editor", ":"}, setting{"sequence.editor", ":"})
	ssh := "ssh"
	if p := lookup(env, "GIT_SSH"); p != "" {
		ssh = shellQuote(p)
	}
	userOr("core.sshCommand", ssh)
	userOr("core.askPass", lookup(env, "SSH_ASKPASS"))
	out = append(out, setting{"credential.helper", ""})
	for _, e := range entries {
		if k := splitKey(e.Key); e.user() && k.section == "credential" && k.name == "helper" {
			out = append(out, setting{e.Key, e.value()})
		}
	}
	// gpg.program is the old name of gpg.openpgp.program: the last of
	// either wins, so both get the same value.
	gpg, ok := last("gpg.program", "gpg.openpgp.program")
	if !ok {
		gpg = "gpg"
	}
	out = append(out, setting{"gpg.program", gpg}, setting{"gpg.openpgp.program", gpg})
	userOr("gpg.ssh.program", "ssh-keygen")
	userOr("gpg.x509.program", "gpgsm")
	out = append(out, setting{"protocol.ext.allow", "never"})

	// What the repository set. Each key once, in the order first set.
	seen := map[string]bool{}
	var proxy, packs bool
	for _, e := range entries {
		if e.user() {
			continue
		}
		k := splitKey(e.Key)
		switch {
		case k.section == "core" && !k.hasSub && k.name == "gitproxy":
			proxy = true
			continue
		case k.section == "remote" && k.hasSub && (k.name == "uploadpack" || k.name == "receivepack"):
			packs = true
			continue
		}
		r, ok := repoRule(k)
		if !ok || seen[k.String()] {
			continue
		}
		if r.runs != nil && !r.runs(lastRepo(entries, k)) {
			continue
		}
		seen[k.String()] = true
		userOr(e.Key, r.neutral)
	}
	if packs {
		out = append(out, setting{"protocol.file.allow", "never"})
	}
	if proxy && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_PROXY_COMMAND=") }) {
		vars = append(vars, "GIT_PROXY_COMMAND=")
	}
	return out, vars
}

// lastRepo returns the last value the repository gave k.
func lastRepo(entries []Entry, k key) string {
	for _, e := range slices.Backward(entries) {
		if !e.user() && splitKey(e.Key) == k {
			return e.value()
		}
	}
	return ""
}

// Environ returns a copy of env with the settings that neutralise what
// entries (the output of [ParseList]; nil when unknown, which leaves the
// keys overridden on every command) would make git run: the
// configuration as GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n after any entries env already has (kept, and
// overridden where they name the same keys), and the variables. An
// incomplete set of GIT_CONFIG_ entries in env (a count without all its
// keys and values, which git refuses) is dropped.
func Environ(entries []Entry, env []string, opts Options) []string {
	env = cleanCount(env)
	config, vars := settings(entries, env, opts)
	n, _ := strconv.Atoi(lookup(env, "GIT_CONFIG_COUNT"))
	out := make([]string, 0, len(env)+2*len(config)+len(vars)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") {
			out = append(out, kv)
		}
	}
	for i, s := range config {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, s.key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, s.value))
	}
	out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(config)))
	return append(out, vars...)
}

// cleanCount returns env with its GIT_CONFIG_COUNT entries kept only if
// they are complete, and with no GIT_CONFIG_KEY_n or GIT_CONFIG_VALUE_n
// beyond the count (ours take those numbers).
func cleanCount(env []string) []string {
	n := 0
	if c, ok := lookupOK(env, "GIT_CONFIG_COUNT"); ok {
		var err error
		n, err = strconv.Atoi(c)
		if err != nil || n < 0 {
			n = 0
		}
		for i := range n {
			_, hasKey := lookupOK(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
			_, hasValue := lookupOK(env, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
			if !hasKey || !hasValue {
				n = 0
				break
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		if name == "GIT_CONFIG_COUNT" {
			return n == 0
		}
		for _, p := range []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"} {
			if rest, ok := strings.CutPrefix(name, p); ok {
				i, err := strconv.Atoi(rest)
				return err != nil || i >= n || strconv.Itoa(i) != rest
			}
		}
		return false
	})
}

// maxList bounds the configuration Load reads.
const maxList = 8 << 20

// Load runs git (a path, or a name looked up in PATH) with [ListArgs] in
// dir with the environment env, and returns [Environ] of what it
// printed: env with the settings that keep the repository found from dir
// from making git run programs. The error says why the configuration
// could not be read (git missing, a configuration file git cannot parse,
// ctx done); a directory outside any repository is not an error.
func Load(ctx context.Context, git, dir string, env []string, opts Options) ([]string, error) {
	env = cleanCount(env)
	cmd := exec.CommandContext(ctx, git, ListArgs()...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{&stdout, maxList}, &limited{&stderr, 4 << 10}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git config --list: %w: %s", err, msg)
		}
		return nil, fmt.Errorf("git config --list: %w", err)
	}
	if stdout.Len() >= maxList {
		return nil, fmt.Errorf("git config --list: more than %d MiB of configuration", maxList>>20)
	}
	entries, err := ParseList(stdout.Bytes())
	if err != nil {
		return nil, err
	}
	return Environ(entries, env, opts), nil
}

// A limited writer keeps at most n bytes and discards the rest.
type limited struct {
	buf *bytes.Buffer
	n   int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// lookup returns the value of the last name=value in env, or "".
func lookup(env []string, name string) string {
	v, _ := lookupOK(env, name)
	return v
}

func lookupOK(env []string, name string) (string, bool) {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// shellQuote quotes s for sh, which runs core.sshCommand.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
