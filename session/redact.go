package session

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Redacted replaces secrets in what a journal stores.
const Redacted = "[REDACTED]"

// A redactor removes secrets from text before it is written. Its zero value
// applies only the built-in patterns.
type redactor struct {
	// literals are secret values known to the host (the API key in use).
	literals []string
}

var (
	// authPattern matches the credential of an Authorization header or
	// field, keeping the name and scheme.
	authPattern = regexp.MustCompile(`(?i)(authorization\\?["']?\s*[:=]\s*\\?["']?(?:bearer|basic|token)?\s*)[^\s"'\\,;]+`)
	// tokenPattern matches well-known API key formats.
	tokenPattern = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|AIza[0-9A-Za-z_\-]{30,}|xox[abprs]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16})`)
	// assignPattern matches "api_key = value" and similar in free text.
	assignPattern = regexp.MustCompile(`(?i)((?:api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd)\\?["']?\s*[:=]\s*\\?["']?)[^\s"'\\,;}]{4,}`)
	// secretKey matches object keys whose values are secrets.
	secretKey = regexp.MustCompile(`(?i)^(?:authorization|.*(?:api[_-]?key|token|secret|password|passwd|credential).*)$`)
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

// text returns s with secrets replaced.
func (r *redactor) text(s string) string {
	for _, lit := range r.literals {
		if len(lit) >= 8 && strings.Contains(s, lit) {
			s = strings.ReplaceAll(s, lit, Redacted)
		}
	}
	if !maybeSecret(s) {
		return s
	}
	s = authPattern.ReplaceAllString(s, "${1}"+Redacted)
	s = tokenPattern.ReplaceAllString(s, Redacted)
	return assignPattern.ReplaceAllString(s, "${1}"+Redacted)
}

// json returns raw with secrets replaced: string values are redacted as
// text, and the values of keys that name secrets are replaced whole. The
// result is valid JSON whenever raw is.
func (r *redactor) json(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	s := string(raw)
	if !maybeSecret(s) && !r.hasLiteral(s) {
		return raw
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		// Not JSON: it is stored as a string, so redact it as text.
		b, _ := json.Marshal(r.text(s))
		return b
	}
	b, err := json.Marshal(r.value(v))
	if err != nil {
		return raw
	}
	return b
}

func (r *redactor) hasLiteral(s string) bool {
	for _, lit := range r.literals {
		if len(lit) >= 8 && strings.Contains(s, lit) {
			return true
		}
	}
	return false
}

func (r *redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.text(v)
	case []any:
		for i := range v {
			v[i] = r.value(v[i])
		}
	case map[string]any:
		for k, x := range v {
			if _, isString := x.(string); isString && secretKey.MatchString(k) {
				v[k] = Redacted
				continue
			}
			v[k] = r.value(x)
		}
	}
	return v
}

// turn returns t with secrets removed from every field that holds text.
func (r *redactor) turn(t Turn) Turn {
	t.Text = r.text(t.Text)
	t.Reasoning = r.text(t.Reasoning)
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
