package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// boundaries returns the rune boundaries of s as ranging over it yields
// them, plus len(s): the oracle every cut is checked against.
func boundaries(s string) []int {
	var out []int
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// wantHead and wantTail compute the expected cuts from the oracle.
func wantHead(s string, n int) string {
	best := 0
	for _, b := range boundaries(s) {
		if b <= n {
			best = b
		}
	}
	return s[:best]
}

func wantTail(s string, n int) string {
	for _, b := range boundaries(s) {
		if len(s)-b <= n {
			return s[b:]
		}
	}
	return ""
}

func TestHeadAndTail(t *testing.T) {
	cuts := map[string]func(string, int) string{"Head": Head, "Tail": Tail}
	tests := []struct {
		cut  string
		s    string
		n    int
		want string
	}{
		{"Head", "hello", 10, "hello"},
		{"Head", "hello", 5, "hello"},
		{"Head", "hello", 3, "hel"},
		{"Head", "hello", 0, ""},
		{"Head", "hello", -1, ""},
		{"Head", "aé", 2, "a"},  // é is two bytes
		{"Head", "a€b", 3, "a"}, // € is three
		{"Head", "a😀", 4, "a"},  // 😀 is four
		{"Head", "a😀", 5, "a😀"},
		{"Head", "a\xffb", 2, "a\xff"},     // an invalid byte is a rune of its own
		{"Head", "a\x80\x80b", 2, "a\x80"}, // so are stray continuation bytes
		{"Head", "a\xe2\x82b", 2, "a\xe2"}, // and a truncated sequence
		{"Tail", "hello", 10, "hello"},
		{"Tail", "hello", 2, "lo"},
		{"Tail", "hello", 0, ""},
		{"Tail", "hello", -3, ""},
		{"Tail", "éa", 2, "a"},
		{"Tail", "€ab", 4, "ab"},
		{"Tail", "😀a", 4, "a"},
		{"Tail", "b\x80\x80a", 2, "\x80a"},
	}
	for _, tt := range tests {
		if got := cuts[tt.cut](tt.s, tt.n); got != tt.want {
			t.Errorf("%s(%q, %d) = %q, want %q", tt.cut, tt.s, tt.n, got, tt.want)
		}
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name       string
		s          string
		limit      int
		head, tail string
	}{
		{"fits", "short", 10, "short", ""},
		{"exactly", "12345", 5, "12345", ""},
		{"ascii", strings.Repeat("a", 10) + strings.Repeat("b", 10), 10, "aa", "bbbbbbbb"},
		{"runes", strings.Repeat("é", 10), 10, "é", "éééé"},
		{"zero limit", "abc", 0, "", ""},
		{"negative limit", "abc", -5, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := HeadTail(tt.s, tt.limit)
			if head != tt.head || tail != tt.tail {
				t.Errorf("HeadTail(%q, %d) = %q, %q; want %q, %q", tt.s, tt.limit, head, tail, tt.head, tt.tail)
			}
		})
	}
}

// FuzzCuts checks Head, Tail and HeadTail against cuts computed from the
// boundaries that ranging over the string yields.
func FuzzCuts(f *testing.F) {
	f.Add("hello, world", 5)
	f.Add("aé€😀", 3)
	f.Add("a\xe2\x82\xffb\x80\x80c", 4)
	f.Add(strings.Repeat("é", 40), 17)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= len(s) + 3
		if got, want := Head(s, n), wantHead(s, n); got != want {
			t.Fatalf("Head(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got, want := Tail(s, n), wantTail(s, n); got != want {
			t.Fatalf("Tail(%q, %d) = %q, want %q", s, n, got, want)
		}
		head, tail := HeadTail(s, n)
		if len(s) <= n {
			if head != s || tail != "" {
				t.Fatalf("HeadTail(%q, %d) = %q, %q; want the whole text", s, n, head, tail)
			}
			return
		}
		lim := max(n, 0)
		wh := wantHead(s, lim/5)
		if wt := wantTail(s, lim-len(wh)); head != wh || tail != wt {
			t.Fatalf("HeadTail(%q, %d) = %q, %q; want %q, %q", s, n, head, tail, wh, wt)
		}
		if len(head)+len(tail) > lim {
			t.Fatalf("HeadTail(%q, %d) keeps %d bytes", s, n, len(head)+len(tail))
		}
		if utf8.ValidString(s) && (!utf8.ValidString(head) || !utf8.ValidString(tail)) {
			t.Fatalf("HeadTail(%q, %d) = %q, %q: a valid text cut into invalid pieces", s, n, head, tail)
		}
	})
}
