package policy

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRule_webFetchDomain checks what a web_fetch(domain:…) rule covers,
// including the forms of a url that name the same host differently.
func TestRule_webFetchDomain(t *testing.T) {
	tests := []struct {
		rule, url string
		want      bool
	}{
		{"domain:go.dev", "https://go.dev/doc", true},
		{"domain:go.dev", "https://pkg.go.dev/net", true},
		{"domain:go.dev", "https://a.b.go.dev/", true},
		{"domain:go.dev", "https://notgo.dev/", false},
		{"domain:go.dev", "https://go.dev.evil.com/", false},
		{"domain:go.dev", "https://GO.Dev./x", true},
		{"domain:go.dev", "https://go.dev:8443/x", true},
		{"domain:go.dev", "https://go.dev@evil.com/", false},
		{"domain:go.dev", "go.dev/doc", true},
		{"domain:go.dev", "", false},
		{"domain:*.go.dev", "https://pkg.go.dev/net", true},
		{"domain:*.go.dev", "https://x.pkg.go.dev/", true},
		{"domain:*.go.dev", "https://go.dev/", false},
		{"domain:*.go.dev", "https://evilgo.dev/", false},
		{"domain:*.GO.DEV", "https://pkg.go.dev/", true},
		{"domain:*", "https://anything.example/", true},
		{"domain:*", "not a url at all", false},
		{"domain:localhost", "http://localhost:8080/", true},
		{"domain:localhost", "http://127.0.0.1/", false},
		{"domain:127.0.0.1", "http://127.0.0.1:9/", true},
		{"domain:bücher.de", "https://xn--bcher-kva.de/", true},
		{"domain:xn--bcher-kva.de", "https://bücher.de/", true},
		{"domain:", "https://go.dev/", false},
		{"domain:*.", "https://go.dev/", false},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"url": tt.url})
		r := Rule{Tool: "web_fetch", Specifier: tt.rule}
		if got := r.matchesArgs("", args); got != tt.want {
			t.Errorf("web_fetch(%s) on %q = %v, want %v", tt.rule, tt.url, got, tt.want)
		}
	}
}

// TestRule_webFetchDomainNeedsURL checks that a domain rule never matches
// a call without a url string.
func TestRule_webFetchDomainNeedsURL(t *testing.T) {
	r := Rule{Tool: "web_fetch", Specifier: "domain:*"}
	for _, args := range []string{`{}`, `{"url": 3}`, `not json`, `{"query":"go.dev"}`} {
		if r.matchesArgs("", json.RawMessage(args)) {
			t.Errorf("web_fetch(domain:*) matched %s", args)
		}
	}
}

// FuzzMatchesDomain checks that a plain domain pattern only covers the
// host itself and names that end in "."+pattern.
func FuzzMatchesDomain(f *testing.F) {
	f.Add("go.dev", "https://pkg.go.dev/x")
	f.Add("*.go.dev", "https://go.dev./")
	f.Add("a.b", "a.b@c.d")
	f.Fuzz(func(t *testing.T, dom, raw string) {
		host, ok := urlHost(raw)
		if !ok || !matchesDomain(dom, host) {
			return
		}
		if strings.TrimSpace(dom) == "*" {
			return
		}
		d := normalHost(strings.TrimPrefix(strings.TrimSpace(dom), "*."))
		if host != d && !strings.HasSuffix(host, "."+d) {
			t.Fatalf("matchesDomain(%q, %q) = true for a host outside the domain", dom, host)
		}
	})
}
