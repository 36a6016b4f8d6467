package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

const marker = "[REDACTED]"

func TestReplace(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"a short key inside a word stays", []string{"x"}, "script exhausted", "script exhausted"},
		{"a short key as a token", []string{"x"}, "key=x done", "key=" + marker + " done"},
		{"a short key at the edges", []string{"x"}, "x and x", marker + " and " + marker},
		{"a short key next to a hyphen is in a word", []string{"x"}, "x-ray, tar -x", "x-ray, tar -x"},
		{"a short key next to an underscore is in a word", []string{"key"}, "api_key key_1", "api_key key_1"},
		{"a short key next to a digit is in a word", []string{"x"}, "0x1f x1", "0x1f x1"},
		{"a short key in quotes", []string{"s3cr3t"}, `"s3cr3t" 's3cr3t'`, `"` + marker + `" '` + marker + `'`},
		{"a short key between punctuation", []string{"pw"}, "a.pw/b:pw=c", "a." + marker + "/b:" + marker + "=c"},
		{"a short key twice in one word stays", []string{"s3cr3t"}, "s3cr3ts3cr3t", "s3cr3ts3cr3t"},
		{"a short key after a letter with a combining mark", []string{"x"}, "e\u0301x e\u0301 x", "e\u0301x e\u0301 " + marker},
		{"a short key next to a multibyte letter", []string{"x"}, "жx x中 x", "жx x中 " + marker},
		{"a short key next to a symbol", []string{"x"}, "€x x😀", "€" + marker + " " + marker + "😀"},
		{"a short key starting with punctuation", []string{".x"}, "a.x a.xy", "a" + marker + " a.xy"},
		{"a short key ending with punctuation", []string{"x:"}, "x:y ax:", marker + "y ax:"},
		{"a short key of punctuation alone", []string{"+"}, "a+b", "a" + marker + "b"},
		{"7 bytes is short", []string{"1234567"}, "a1234567b 1234567", "a1234567b " + marker},
		{"8 bytes is replaced anywhere", []string{"12345678"}, "a12345678b", "a" + marker + "b"},
		{"overlapping occurrences are one marker", []string{"aaaaaaaa"}, "xaaaaaaaaaaay", "x" + marker + "y"},
		{"overlapping short tokens are one marker", []string{"a.a"}, "a.a.a b", marker + " b"},
		{"a secret inside another", []string{"abcdefgh", "abcdefgh12345678"}, "<abcdefgh12345678>", "<" + marker + ">"},
		{"adjacent occurrences are one marker", []string{"abcdefgh"}, "abcdefghabcdefgh", marker},
		{"a short key next to a long one", []string{"abcdefgh", "x"}, "abcdefgh x", marker + " " + marker},
		{"an inserted marker is never matched", []string{"12345678", "D]abcdefgh"}, "12345678abcdefgh", marker + "abcdefgh"},
		{"empty secrets are skipped", []string{"", "x"}, "x", marker},
		{"no secrets", nil, "text", "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Replace(tt.in, tt.secrets, marker); got != tt.want {
				t.Errorf("Replace(%q, %q) = %q, want %q", tt.in, tt.secrets, got, tt.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	tests := []struct {
		s, secret string
		want      int
	}{
		{"script exhausted", "x", -1},
		{"exhausted x", "x", 10},
		{"[REDACTED]", "REDACTED", 1},
		{"[REDACTED]", "RED", -1},
		{"[REDACTED]", "]", 9},
		{"a12345678", "12345678", 1},
		{"text", "", -1},
	}
	for _, tt := range tests {
		if got := Index(tt.s, tt.secret); got != tt.want {
			t.Errorf("Index(%q, %q) = %d, want %d", tt.s, tt.secret, got, tt.want)
		}
	}
}

// The oracle below is the specification of the package documentation,
// written without the implementation's search: the text and the secret are
// cut into tokens (each maximal run of word characters is one token, every
// other character is a token of its own), and a short secret counts where
// its tokens appear, in order, among the text's. A long secret counts at
// every byte offset where it occurs.

// wordRune is the package documentation's word character, spelt out.
func wordRune(r rune) bool {
	switch {
	case r == '_', r == '-':
		return true
	case unicode.In(r, unicode.L, unicode.M, unicode.N):
		return true
	}
	return false
}

type tok struct {
	start, end int
	word       bool
}

// tokens cuts s into tokens.
func tokens(s string) []tok {
	var ts []tok
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		w := wordRune(r)
		if w && len(ts) > 0 && ts[len(ts)-1].word {
			ts[len(ts)-1].end = end
		} else {
			ts = append(ts, tok{i, end, w})
		}
		i = end
	}
	return ts
}

// oracleCovered returns, for each byte of s, whether an occurrence of a
// secret that counts covers it.
func oracleCovered(s string, secrets []string) []bool {
	covered := make([]bool, len(s))
	cover := func(from, to int) {
		for j := from; j < to; j++ {
			covered[j] = true
		}
	}
	st := tokens(s)
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		if len(secret) >= 8 {
			for i := 0; i+len(secret) <= len(s); i++ {
				if s[i:i+len(secret)] == secret {
					cover(i, i+len(secret))
				}
			}
			continue
		}
		kt := tokens(secret)
	next:
		for p := 0; p+len(kt) <= len(st); p++ {
			for q, k := range kt {
				if s[st[p+q].start:st[p+q].end] != secret[k.start:k.end] {
					continue next
				}
			}
			cover(st[p].start, st[p+len(kt)-1].end)
		}
	}
	return covered
}

// oracleReplace is Replace as the oracle sees it.
func oracleReplace(s string, secrets []string, marker string) string {
	covered := oracleCovered(s, secrets)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case !covered[i]:
			b.WriteByte(s[i])
		case i == 0 || !covered[i-1]:
			b.WriteString(marker)
		}
	}
	return b.String()
}

// words returns the word tokens of s.
func words(s string) []string {
	var ws []string
	for _, t := range tokens(s) {
		if t.word {
			ws = append(ws, s[t.start:t.end])
		}
	}
	return ws
}

// isSubsequence reports whether sub is a subsequence of seq.
func isSubsequence(sub, seq []string) bool {
	i := 0
	for _, s := range seq {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

// containsTokens reports whether the tokens of secret occur among the
// tokens of s: a whole occurrence, in the oracle's terms.
func containsTokens(s, secret string) bool {
	st, kt := tokens(s), tokens(secret)
next:
	for p := 0; p+len(kt) <= len(st); p++ {
		for q, k := range kt {
			if s[st[p+q].start:st[p+q].end] != secret[k.start:k.end] {
				continue next
			}
		}
		return true
	}
	return false
}

// propMarker is the marker of the property checks: a symbol that none of
// the alphabets holds, so it is neither a word character nor part of a
// secret, and every piece of the result between markers is original text.
const propMarker = "█"

// checkProperty checks Replace(text, {secret}) against the oracle and the
// properties it implies: (a) a secret of 8 bytes or more does not survive
// anywhere; (b) a shorter one does not survive as a whole token, and no
// word of the text is cut (the words of the result are words of the text,
// in order); (c) text with no occurrence that counts is returned as it
// is; (d) valid UTF-8 stays valid.
func checkProperty(t *testing.T, text, secret string) {
	t.Helper()
	got := Replace(text, []string{secret}, propMarker)
	if want := oracleReplace(text, []string{secret}, propMarker); got != want {
		t.Fatalf("Replace(%q, {%q})\n got %q\nwant %q", text, secret, got, want)
	}
	if len(secret) >= MinLen {
		if strings.Contains(got, secret) {
			t.Fatalf("Replace(%q, {%q}) = %q: the secret survives", text, secret, got)
		}
	} else {
		if containsTokens(got, secret) {
			t.Fatalf("Replace(%q, {%q}) = %q: the short secret survives as a whole token", text, secret, got)
		}
		if !isSubsequence(words(got), words(text)) {
			t.Fatalf("Replace(%q, {%q}) = %q: a word is cut (words %q from %q)", text, secret, got, words(got), words(text))
		}
	}
	if !slicesContainsTrue(oracleCovered(text, []string{secret})) && got != text {
		t.Fatalf("Replace(%q, {%q}) = %q: text without the secret changed", text, secret, got)
	}
	if utf8.ValidString(text) && !utf8.ValidString(got) {
		t.Fatalf("Replace(%q, {%q}) = %q: not valid UTF-8", text, secret, got)
	}
	if i := Index(text, secret); (i >= 0) != (got != text) {
		t.Fatalf("Index(%q, %q) = %d, but Replace changed the text: %v", text, secret, i, got != text)
	}
}

func slicesContainsTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}

// alphabets are the characters random texts and secrets are drawn from:
// letters, digits, punctuation, word joiners, multibyte letters, a
// combining mark, symbols and a number that is not a digit.
var alphabets = [][]string{
	{"a", "b", "x"},
	{"a", "1", "0", "_"},
	{".", "-", "=", "/", ":", " ", "\"", "'", "[", "]"},
	{"x", " ", "-", ".", "é", "ж", "中"},
	{"e", "\u0301", " ", "😀", "€", "²"},
	{"a", "b", " ", "\n", "\t", ",", "x", "1", "_", "-", ".", "ж", "😀", "=", "\u0301"},
}

// randomString returns a string of about n bytes drawn from alpha.
func randomString(r *rand.Rand, alpha []string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(alpha[r.IntN(len(alpha))])
	}
	return b.String()
}

// randomText returns a text made of random pieces of alpha, with the
// secret, pieces of it and the secret glued to word characters between
// them, so that whole and partial occurrences both happen.
func randomText(r *rand.Rand, alpha []string, secret string) string {
	var b strings.Builder
	for range r.IntN(12) {
		switch r.IntN(6) {
		case 0, 1:
			b.WriteString(randomString(r, alpha, r.IntN(6)))
		case 2:
			b.WriteString(secret)
		case 3:
			b.WriteString(secret[:r.IntN(len(secret)+1)])
		case 4:
			b.WriteString(alpha[r.IntN(len(alpha))] + secret + alpha[r.IntN(len(alpha))])
		case 5:
			b.WriteString(" ")
		}
	}
	return b.String()
}

// TestReplaceProperty checks the properties of checkProperty on random
// texts and secrets of every length from 1 to 40 bytes, over every
// alphabet, from a fixed seed.
func TestReplaceProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 5))
	for n := 1; n <= 40; n++ {
		for ai, alpha := range alphabets {
			for range 40 {
				secret := randomString(r, alphabets[(ai+r.IntN(2))%len(alphabets)], n)
				text := randomText(r, alpha, secret)
				checkProperty(t, text, secret)
				// (c) again, on text drawn from characters the secret
				// has none of.
				if clean := randomString(r, alpha, r.IntN(30)); !strings.Contains(clean, secret) {
					if got := Replace(clean, []string{secret}, propMarker); got != clean {
						t.Fatalf("Replace(%q, {%q}) = %q, want it unchanged", clean, secret, got)
					}
				}
			}
		}
	}
}

// TestReplaceManySecrets checks Replace with several secrets of mixed
// lengths against the oracle, from a fixed seed.
func TestReplaceManySecrets(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 6))
	for range 2000 {
		alpha := alphabets[r.IntN(len(alphabets))]
		secrets := make([]string, 1+r.IntN(4))
		for i := range secrets {
			secrets[i] = randomString(r, alpha, 1+r.IntN(12))
		}
		text := randomText(r, alpha, secrets[r.IntN(len(secrets))]) + randomText(r, alpha, secrets[r.IntN(len(secrets))])
		got := Replace(text, secrets, propMarker)
		if want := oracleReplace(text, secrets, propMarker); got != want {
			t.Fatalf("Replace(%q, %q)\n got %q\nwant %q", text, secrets, got, want)
		}
		for _, s := range secrets {
			if len(s) >= MinLen && strings.Contains(got, s) {
				t.Fatalf("Replace(%q, %q) = %q: %q survives", text, secrets, got, s)
			}
		}
	}
}

// FuzzReplace checks the properties of checkProperty on any valid UTF-8
// text and secret that do not hold the property marker; on any other
// input, that Replace does not panic and a long secret does not survive.
func FuzzReplace(f *testing.F) {
	f.Add("script exhausted", "x")
	f.Add("key=x done", "x")
	f.Add("a.x a.xy", ".x")
	f.Add("e\u0301x e\u0301 x", "x")
	f.Add("abcdefghabcdefgh", "abcdefgh")
	f.Add("D]abcdefghabcdefgh", "D]abcdefgh")
	f.Fuzz(func(t *testing.T, text, secret string) {
		if secret == "" || strings.Contains(text, propMarker) || strings.Contains(secret, propMarker) {
			return
		}
		if !utf8.ValidString(text) || !utf8.ValidString(secret) {
			got := Replace(text, []string{secret}, propMarker)
			if len(secret) >= MinLen && strings.Contains(got, secret) {
				t.Fatalf("Replace(%q, {%q}) = %q: the secret survives", text, secret, got)
			}
			return
		}
		checkProperty(t, text, secret)
	})
}
