package egress

import (
	"strings"
	"testing"
)

func TestAllowList_Allows(t *testing.T) {
	tests := []struct {
		pattern string
		host    string
		port    int
		want    bool
	}{
		{"api.example.com", "api.example.com", 443, true},
		{"api.example.com", "api.example.com", 80, true},
		{"api.example.com", "API.Example.COM.", 443, true},
		{"API.example.com.", "api.example.com", 443, true},
		{"api.example.com", "api.example.com", 8443, false},
		{"api.example.com", "www.api.example.com", 443, false},
		{"api.example.com", "example.com", 443, false},
		{"api.example.com", "api.example.com.evil", 443, false},
		{"api.example.com", "evilapi.example.com", 443, false},
		{"*.github.com", "api.github.com", 443, true},
		{"*.github.com", "a.b.github.com", 443, true},
		{"*.github.com", "github.com", 443, false},
		{"*.github.com", "evilgithub.com", 443, false},
		{"*.github.com", "github.com.evil", 443, false},
		{"*.github.com:22", "ssh.github.com", 22, true},
		{"*.github.com:22", "ssh.github.com", 443, false},
		{"api.example.com:8443", "api.example.com", 8443, true},
		{"api.example.com:8443", "api.example.com", 443, false},
		{"*", "anything.test", 443, true},
		{"*", "anything.test", 22, false},
		{"*:22", "anything.test", 22, true},
		{"bücher.example", "xn--bcher-kva.example", 443, true},
		{"xn--bcher-kva.example", "BÜCHER.example", 443, true},
		{"*.bücher.example", "www.xn--bcher-kva.example", 443, true},
		{"my_host.example", "My_Host.example", 443, true},
		{"203.0.113.7", "203.0.113.7", 443, true},
		{"203.0.113.7", "0xcb007107", 443, true},
		{"203.0.113.7", "[::ffff:203.0.113.7]", 443, true},
		{"203.0.113.7", "203.0.113.8", 443, false},
		{"2001:db8::1", "[2001:db8::1]", 443, true},
		{"[2001:db8::1]:22", "2001:db8::1", 22, true},
		{"[2001:db8::1]:22", "2001:db8::1", 443, false},
		{"api.example.com", "", 443, false},
		{"api.example.com", "a..example.com", 443, false},
		{"api.example.com", "api.example.com/x", 443, false},
	}
	for _, tt := range tests {
		l, err := ParseAllowList([]string{tt.pattern})
		if err != nil {
			t.Errorf("ParseAllowList(%q) = %v", tt.pattern, err)
			continue
		}
		if got := l.Allows(tt.host, tt.port); got != tt.want {
			t.Errorf("%q.Allows(%q, %d) = %v, want %v", tt.pattern, tt.host, tt.port, got, tt.want)
		}
	}
}

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		patterns []string
		want     string // the normalised list, or the error
	}{
		{nil, ""},
		{[]string{"API.example.com.", "*.GitHub.com", "bücher.example:8080", "[2001:DB8::1]:22", "2001:db8::2", "*", "0x7f.1"},
			"api.example.com, *.github.com, xn--bcher-kva.example:8080, [2001:db8::1]:22, 2001:db8::2, *, 127.0.0.1"},
		{[]string{""}, `pattern "": empty`},
		{[]string{"*example.com"}, "a wildcard is allowed only"},
		{[]string{"a.*.example.com"}, "a wildcard is allowed only"},
		{[]string{"*.203.0.113.7"}, "an IP address has no subdomains"},
		{[]string{"example.com:0"}, `port "0" is not a number from 1 to 65535`},
		{[]string{"example.com:https"}, `port "https" is not a number`},
		{[]string{"example.com:1:2"}, "want a host"},
		{[]string{"exa mple.com"}, `has the character ' '`},
		{[]string{"a..b"}, "empty or overlong label"},
		{[]string{"http://example.com"}, "not a URL"},
	}
	for _, tt := range tests {
		l, err := ParseAllowList(tt.patterns)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = l.String()
		}
		if !strings.Contains(got, tt.want) || (err == nil) != (l != nil && got == tt.want) {
			t.Errorf("ParseAllowList(%q) = %q, want %q", tt.patterns, got, tt.want)
		}
	}
}

// FuzzAllowList checks properties of any pattern and host: matching
// ignores ASCII case and one trailing dot of the host; "*.d" never
// matches d itself, and what it matches ends in ".d"; a pattern without
// a port matches only ports 80 and 443; and a pattern's normalised form
// parses back to a list that decides alike.
func FuzzAllowList(f *testing.F) {
	for _, s := range [][2]string{
		{"api.example.com", "api.example.com"},
		{"*.github.com", "a.b.github.com"},
		{"*.github.com", "github.com"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"[2001:db8::1]:22", "2001:db8::1"},
		{"203.0.113.7", "0xcb007107"},
		{"*", "x.test"},
		{"*.xn--bcher-kva.example:8080", "A.Bücher.example."},
	} {
		f.Add(s[0], s[1], uint16(443))
	}
	f.Fuzz(func(t *testing.T, pattern, host string, port16 uint16) {
		l, err := ParseAllowList([]string{pattern})
		if err != nil {
			return
		}
		port := int(port16)
		got := l.Allows(host, port)
		if up := asciiUpper(host); l.Allows(up, port) != got {
			t.Fatalf("%q: Allows(%q) = %v but Allows(%q) = %v", pattern, host, got, up, !got)
		}
		if host != "" && !strings.HasSuffix(host, ".") && !strings.ContainsAny(host, "[]") {
			if l.Allows(host+".", port) != got {
				t.Fatalf("%q: Allows(%q) = %v but with a trailing dot %v", pattern, host, got, !got)
			}
		}
		r := l.rules[0]
		if got && r.port == 0 && port != 80 && port != 443 {
			t.Fatalf("%q allows port %d", pattern, port)
		}
		if r.sub {
			if l.Allows(r.host, 443) || l.Allows(r.host, 80) {
				t.Fatalf("%q allows %q itself", pattern, r.host)
			}
			if h, ok := l.match(host, port); ok && !strings.HasSuffix(h, "."+r.host) {
				t.Fatalf("%q allows %q, which is not a subdomain of %q", pattern, h, r.host)
			}
		}
		back, err := ParseAllowList([]string{l.String()})
		if err != nil {
			t.Fatalf("%q normalises to %q, which does not parse: %v", pattern, l.String(), err)
		}
		if back.String() != l.String() || back.Allows(host, port) != got {
			t.Fatalf("%q normalises to %q, which decides %q differently", pattern, back.String(), host)
		}
	})
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
