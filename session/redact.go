package session

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/redact"
)

// Redacted replaces secrets in what a journal stores.
const Redacted = "[REDACTED]"

// MinSecretLen is the length in bytes from which a secret is replaced
// wherever it occurs, inside a longer word too. A shorter value (an API
// key of "x" for a local server) is replaced only where it is a whole
// token, never inside a word: replacing every occurrence of it would
// corrupt ordinary text (with the key "x", "exhausted" would become
// "e[REDACTED]hausted"). See the package documentation, "Secrets", for
// what a word is.
const MinSecretLen = redact.MinLen

// A redactor removes secrets from text before it is written. Its zero value
// applies only the built-in patterns. It is not modified after it is made,
// so it is safe for concurrent use.
type redactor struct {
	// secrets are the secret values known to the host (the API key in
	// use): each valid UTF-8 that [redact.Index] does not find in
	// Redacted, without duplicates.
	secrets []string
	// live is the host's SecretSet, read at each use: it grows while
	// the host runs. Nil means none.
	live *SecretSet
}

// MinLiveSecretLen is the length in bytes below which [SecretSet.Add]
// refuses a value the user typed: a secret that short is more likely a
// slip than a password. A kept value shorter than [MinSecretLen] is
// hidden only where it is a whole token, like any other short secret.
const MinLiveSecretLen = 4

// A SecretSet holds the secret values a host knows: those it starts with
// (its API keys, see [SecretSet.AddKnown]) and those it learns while it
// runs, such as a value the user typed when a tool asked for it
// ([SecretSet.Add]). Given as [Store.Live], every journal of the store
// replaces them with [Redacted] from the moment they are added, like
// [Store.Secrets]; [SecretSet.Redact] and [SecretSet.RedactJSON] hide
// them, by the same rule, in the other text the host writes (logs,
// printed events, tool results before the model sees them), so that one
// set serves every output. Its zero value is empty; it is safe for
// concurrent use. A value is never removed.
//
// What it does not guarantee: a value is found only as the bytes it is
// made of, in each piece of text passed at once, so a secret split across
// two pieces redacted apart (two chunks of a stream) or transformed
// (encoded, escaped in a way the text is not decoded from, one character
// a line) is not found; and a value shorter than [MinSecretLen] bytes is
// visible where it is part of a longer word.
type SecretSet struct {
	mu     sync.RWMutex
	values []string
}

// Add adds a secret value the user typed and reports whether it is kept:
// a value shorter than [MinLiveSecretLen] bytes is not, nor is one
// [SecretSet.AddKnown] refuses (the caller should then not use it as a
// secret).
func (s *SecretSet) Add(v string) bool {
	return len(v) >= MinLiveSecretLen && s.AddKnown(v)
}

// AddKnown adds a secret value the host knows, such as an API key from its
// environment, whatever its length, and reports whether it is kept. A
// value that is empty, not valid UTF-8 or found in [Redacted] itself (the
// marker would hide it again each time text is redacted) is not; a value
// shorter than [MinSecretLen] bytes is kept but hidden only where it is a
// whole token, so the host should tell the user so (naming where the
// value comes from, never the value).
func (s *SecretSet) AddKnown(v string) bool {
	if !hideable(v) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.values, v) {
		s.values = append(s.values, v)
	}
	return true
}

// Has reports whether v is one of the values held.
func (s *SecretSet) Has(v string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Contains(s.values, v)
}

// hideable reports whether v can be hidden: it is not empty, it is valid
// UTF-8 (the journal's text is), and the marker does not hold it.
func hideable(v string) bool {
	return v != "" && utf8.ValidString(v) && redact.Index(Redacted, v) < 0
}

// Len returns the number of values held.
func (s *SecretSet) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values)
}

// Redact returns text with the values replaced by [Redacted]: a value of
// [MinSecretLen] bytes or more wherever it occurs, a shorter one where it
// is a whole token. A nil set returns text unchanged.
func (s *SecretSet) Redact(text string) string {
	if s.Len() == 0 {
		return text
	}
	r := redactor{live: s}
	return r.hide(validUTF8(text))
}

// RedactJSON returns raw with the values replaced in its strings, as the
// journal stores them; see [SecretSet.Redact].
func (s *SecretSet) RedactJSON(raw json.RawMessage) json.RawMessage {
	if s.Len() == 0 {
		return raw
	}
	r := redactor{live: s}
	return r.json(raw)
}

// all returns the static secrets and a copy of the live ones.
func (r *redactor) all() []string {
	if r.live == nil {
		return r.secrets
	}
	r.live.mu.RLock()
	defer r.live.mu.RUnlock()
	if len(r.live.values) == 0 {
		return r.secrets
	}
	return append(slices.Clip(r.secrets), r.live.values...)
}

// newRedactor returns the redactor of the secret values. It also returns
// how many values it ignored because they are not UTF-8 or found in
// [Redacted], and how many it keeps that are shorter than [MinSecretLen]
// (hidden only as whole tokens), so that the caller can warn.
func newRedactor(values []string) (r redactor, ignored, short int) {
	for _, v := range values {
		switch {
		case v == "":
		case !hideable(v):
			// Not text, or found in the marker itself (which would then
			// be redacted again each time).
			ignored++
		case !slices.Contains(r.secrets, v):
			r.secrets = append(r.secrets, v)
			if len(v) < MinSecretLen {
				short++
			}
		}
	}
	return r, ignored, short
}

var (
	// authPattern matches the credential of an Authorization header or
	// field, keeping the name and scheme.
	authPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(authorization\\?["']?\s*[:=]\s*\\?["']?(?:bearer|basic|token)?\s*)[^\s"'\\,;]+`)
	})
	// tokenPattern matches well-known API key formats.
	tokenPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AIza[0-9A-Za-z_\-]{30,}|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})`)
	})
	// assignPattern matches "api_key = value" and similar in free text.
	assignPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd)\\?["']?\s*[:=]\s*\\?["']?)[^\s"'\\,;}]{4,}`)
	})
	// secretKey matches object keys whose values are secrets.
	secretKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:authorization|.*(?:api[_-]?key|token|secret|password|passwd|credential).*)$`)
	})
)

// maybeSecret is a cheap test that lets most text skip the patterns.
func maybeSecret(s string) bool {
	l := strings.ToLower(s)
	for _, w := range [...]string{"auth", "key", "token", "secret", "passw", "sk-", "gh", "aiza", "xox", "akia", "credential"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// text returns s with secrets replaced: first what the built-in patterns
// match, then every occurrence of a known secret (see [redactor.hide]).
// Bytes that are not UTF-8 become U+FFFD first, as the journal's JSON
// would have them.
func (r *redactor) text(s string) string {
	s = validUTF8(s)
	if maybeSecret(s) {
		s = authPattern().ReplaceAllString(s, "${1}"+Redacted)
		s = tokenPattern().ReplaceAllString(s, Redacted)
		s = assignPattern().ReplaceAllString(s, "${1}"+Redacted)
	}
	return r.hide(s)
}

// hide replaces the occurrences of the known secrets in s, and nothing
// else, by the rule of package internal/redact: a secret of
// [MinSecretLen] bytes or more wherever it occurs (inside a longer word it
// is replaced alone, the rest of the word stays), a shorter one only as a
// whole token. The bytes of every occurrence are covered, overlapping ones
// and one secret inside another included; each run of covered bytes
// becomes one [Redacted]. Occurrences are found in s as given, before any
// marker is inserted, so a marker already in s, or one hide inserts, is
// never taken for a secret. Valid UTF-8 stays valid: a secret is valid
// UTF-8, so its occurrences in valid text begin and end at character
// boundaries.
func (r *redactor) hide(s string) string {
	return redact.Replace(s, r.all(), Redacted)
}

// mayHold reports whether raw JSON text may hold something to redact. It
// errs on the side of yes: an escape sequence can spell a secret, and so
// can the U+FFFD that decoding makes of bytes that are not UTF-8. Without
// either, each string's text is the bytes between its quotes, and a quote
// is not a word character, so an occurrence that counts in a string
// counts in raw too.
func (r *redactor) mayHold(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		return true
	}
	s := string(raw)
	if maybeSecret(s) {
		return true
	}
	for _, secret := range r.all() {
		if redact.Index(s, secret) >= 0 {
			return true
		}
	}
	return false
}

// json returns raw with secrets replaced in every string it holds, object
// keys included, as [redactor.text] replaces them, and with each string
// value of a key that names a secret ("api_key", "Authorization") replaced
// whole. Only the strings that change are rewritten (decoded, redacted and
// encoded again); every other byte of raw, key order, numbers and spacing
// included, is kept. Secrets are looked for in strings only: numbers,
// true, false and null are never changed, so a secret made of digits alone
// is not hidden where it is a number. The result is valid JSON: raw that
// is not is stored as a JSON string, redacted as text.
func (r *redactor) json(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	if !json.Valid(raw) {
		return quote(r.text(string(raw)))
	}
	if !r.mayHold(raw) {
		return raw
	}
	var out []byte // nil until a string changes
	done := 0      // raw[:done] is in out
	var key string // the last object key
	prev := byte(0)
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '"' {
			if !isJSONSpace(c) {
				prev = c
			}
			i++
			continue
		}
		end := stringEnd(raw, i)
		lit := raw[i:end]
		value := prev == ':'
		isKey := nextNonSpace(raw, end) == ':'
		prev = '"'
		s := unquote(lit)
		redacted := r.text(s)
		if value && secretKey().MatchString(key) {
			redacted = Redacted
		}
		if isKey {
			key = s
		}
		if redacted != s {
			out = append(append(out, raw[done:i]...), quote(redacted)...)
			done = end
		}
		i = end
	}
	if out == nil {
		return raw
	}
	return append(out, raw[done:]...)
}

// stringEnd returns the index just past the JSON string literal that
// starts at raw[i], in valid JSON.
func stringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// nextNonSpace returns the first byte of raw[i:] that is not JSON
// whitespace, or 0.
func nextNonSpace(raw []byte, i int) byte {
	for ; i < len(raw); i++ {
		if !isJSONSpace(raw[i]) {
			return raw[i]
		}
	}
	return 0
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// quote returns s as a JSON string literal, as journal lines spell it
// (without escaping <, > and &).
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes it, so that secrets are
// looked for in the text the journal will hold.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unquote decodes a valid JSON string literal.
func unquote(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 && utf8.Valid(lit) {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	_ = json.Unmarshal(lit, &s)
	return s
}

// turn returns t with secrets removed from every field that holds text.
func (r *redactor) turn(t Turn) Turn {
	t.Text = r.text(t.Text)
	t.Reasoning = r.text(t.Reasoning)
	if len(t.Thinking) > 0 {
		th := slices.Clone(t.Thinking)
		for i := range th {
			if text := r.text(th[i].Text); text != th[i].Text {
				// The provider's signature no longer matches the text:
				// the block can be read but not sent back.
				th[i].Text, th[i].Signature = text, ""
			}
		}
		t.Thinking = th
	}
	t.Output = r.text(t.Output)
	t.Arguments = r.json(t.Arguments)
	t.Data = r.json(t.Data)
	if len(t.Calls) > 0 {
		cs := append(t.Calls[:0:0], t.Calls...)
		for i := range cs {
			cs[i].Arguments = r.json(cs[i].Arguments)
		}
		t.Calls = cs
	}
	return t
}
