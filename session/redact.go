package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted replaces secrets in what a journal stores.
const Redacted = "[REDACTED]"

// MinSecretLen is the length in bytes below which a value in
// [Store.Secrets] is not redacted. Such a value is not a real secret (an
// API key of "x" for a local server), and replacing every occurrence of it
// would corrupt ordinary text: with the key "x", "exhausted" would become
// "e[REDACTED]hausted".
const MinSecretLen = 8

// A redactor removes secrets from text before it is written. Its zero value
// applies only the built-in patterns. It is not modified after it is made,
// so it is safe for concurrent use.
type redactor struct {
	// secrets are the secret values known to the host (the API key in
	// use): each at least MinSecretLen bytes of valid UTF-8, not part of
	// Redacted, without duplicates.
	secrets []string
	// live holds the secrets learnt while the host runs; nil means none.
	live *SecretSet
}

// MinLiveSecretLen is the length in bytes below which [SecretSet.Add]
// refuses a value. It is lower than [MinSecretLen]: a value the user typed
// as a secret (a short password) is known to be one, so it is worth
// hiding even at the cost of a word that happens to contain it.
const MinLiveSecretLen = 4

// A SecretSet holds secret values learnt while the host runs, such as a
// value the user typed when a tool asked for it: given as [Store.Live],
// every journal of the store replaces them with [Redacted] from the moment
// they are added, like [Store.Secrets]. [SecretSet.Redact] hides them in
// other text the host writes (logs, printed results). Its zero value is
// empty; it is safe for concurrent use. A value is never removed.
type SecretSet struct {
	mu     sync.RWMutex
	values []string
}

// Add adds a secret value and reports whether it is kept: a value shorter
// than [MinLiveSecretLen] bytes, not valid UTF-8 or part of [Redacted] is
// not (the caller should then not use it as a secret).
func (s *SecretSet) Add(v string) bool {
	if len(v) < MinLiveSecretLen || !utf8.ValidString(v) || strings.Contains(Redacted, v) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.values, v) {
		s.values = append(s.values, v)
	}
	return true
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

// Redact returns text with every occurrence of the values replaced by
// [Redacted]. A nil set returns text unchanged.
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
// how many values it ignored because they are too short, not UTF-8 or
// part of [Redacted], so that the caller can warn: such a value looks
// wrong.
func newRedactor(values []string) (r redactor, ignored int) {
	for _, v := range values {
		switch {
		case v == "":
		case len(v) < MinSecretLen || !utf8.ValidString(v) || strings.Contains(Redacted, v):
			// Too short to be a key, not text, or part of the marker
			// itself (which would then never hide it).
			ignored++
		case !slices.Contains(r.secrets, v):
			r.secrets = append(r.secrets, v)
		}
	}
	return r, ignored
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
// else. The bytes of every occurrence are covered, overlapping ones and
// one secret inside another included; each run of covered bytes becomes
// one [Redacted]. A secret inside a longer word is replaced alone: the rest
// of the word is not the secret and stays (an API key is matched exactly,
// not as a prefix). Occurrences are found in s as given, before any marker
// is inserted, so a marker already in s, or one hide inserts, is never
// taken for a secret. Valid UTF-8 stays valid: a secret is valid UTF-8, so
// its occurrences in valid text begin and end at character boundaries.
func (r *redactor) hide(s string) string {
	var spans [][2]int
	for _, secret := range r.all() {
		for at := 0; at+len(secret) <= len(s); {
			i := strings.Index(s[at:], secret)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{at + i, at + i + len(secret)})
			at += i + 1
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	var b strings.Builder
	b.Grow(len(s))
	done := 0 // s[:done] is written
	for i := 0; i < len(spans); {
		start, end := spans[i][0], spans[i][1]
		for i++; i < len(spans) && spans[i][0] <= end; i++ {
			end = max(end, spans[i][1])
		}
		b.WriteString(s[done:start])
		b.WriteString(Redacted)
		done = end
	}
	b.WriteString(s[done:])
	return b.String()
}

// mayHold reports whether raw JSON text may hold something to redact. It
// errs on the side of yes: an escape sequence can spell a secret, and so
// can the U+FFFD that decoding makes of bytes that are not UTF-8.
func (r *redactor) mayHold(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) || maybeSecret(string(raw)) {
		return true
	}
	for _, secret := range r.all() {
		if bytes.Contains(raw, []byte(secret)) {
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
