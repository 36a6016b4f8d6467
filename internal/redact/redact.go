// Package redact finds known secret values in text and replaces them with
// a marker, exactly: the one home of the matching rule that the session
// journal, wield's logs, printed events, tool results and the providers'
// error messages share.
//
// # The rule
//
// A secret of [MinLen] bytes or more is replaced wherever it occurs,
// inside a longer word too: a real key is long and random, and nothing
// else spells it. A shorter secret (an API key of "x" for a local server)
// is replaced only where it is a whole token: where the occurrence does
// not continue a word on either side. Replacing it everywhere would
// corrupt ordinary text (with the key "x", "exhausted" would become
// "e[REDACTED]hausted"), so "script exhausted" stays as it is while
// "key=x done" hides the x.
//
// A word is a run of word characters: Unicode letters, combining marks
// and numbers, '_' and '-' (so that "x-ray" and the flag "-x" are words,
// and the key "x" stays in them). Every other character (space,
// punctuation such as '.', '/', '=' and quotes, symbols, a byte that is
// not UTF-8) separates words. An occurrence of a short secret is whole
// when it does not split a word: the character before it is not a word
// character, or the secret's first character is not; and likewise the
// character after it and the secret's last character. So the secret
// ".x" is whole in "a.x" (no word is cut), and "x" is not in "ax".
//
// # Guarantees
//
// [Replace] covers the bytes of every occurrence that counts, overlapping
// ones and one secret inside another included, and each run of covered
// bytes becomes one marker; nothing else changes. Occurrences are found in
// the text as given, before any marker is inserted, so a marker is never
// taken for a secret. In valid UTF-8 text, a valid UTF-8 secret begins and
// ends at character boundaries, so the result stays valid.
//
// What is not guaranteed: a secret is found only as the bytes it is made
// of, not transformed (escaped, encoded, upper-cased, split across two
// pieces of a stream that are redacted one at a time); a short secret is
// visible where it is part of a word; and a secret that begins with the
// marker's last characters (or ends with its first) may be found again
// when redacted text is redacted a second time, which adds a marker but
// reveals nothing.
package redact

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinLen is the length in bytes from which a secret is replaced wherever
// it occurs; a shorter one is replaced only as a whole token (see the
// package documentation).
const MinLen = 8

// IsWord reports whether r is a word character: a Unicode letter,
// combining mark or number, '_' or '-'. [utf8.RuneError] (a byte that is
// not UTF-8) is not.
func IsWord(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

// Index returns the index of the first occurrence of secret in s that
// [Replace] would replace, or -1 if there is none (or secret is empty).
func Index(s, secret string) int {
	m := newMatcher(secret)
	for at := 0; at+len(secret) <= len(s) && secret != ""; {
		i := strings.Index(s[at:], secret)
		if i < 0 {
			break
		}
		if m.counts(s, at+i) {
			return at + i
		}
		at += i + 1
	}
	return -1
}

// Replace returns s with the occurrences of the secrets that count
// replaced by marker: each run of covered bytes becomes one marker (see
// the package documentation). Empty secrets are skipped. When nothing is
// found, s itself is returned.
func Replace(s string, secrets []string, marker string) string {
	var spans [][2]int
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		m := newMatcher(secret)
		for at := 0; at+len(secret) <= len(s); {
			i := strings.Index(s[at:], secret)
			if i < 0 {
				break
			}
			if m.counts(s, at+i) {
				spans = append(spans, [2]int{at + i, at + i + len(secret)})
			}
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
		b.WriteString(marker)
		done = end
	}
	b.WriteString(s[done:])
	return b.String()
}

// A matcher decides which occurrences of one secret count.
type matcher struct {
	n int // the secret's length
	// anywhere is set for a long secret: every occurrence counts.
	anywhere bool
	// wordStart and wordEnd report whether the secret's first and last
	// characters are word characters: only then do its neighbours matter.
	wordStart, wordEnd bool
}

func newMatcher(secret string) matcher {
	first, _ := utf8.DecodeRuneInString(secret)
	last, _ := utf8.DecodeLastRuneInString(secret)
	return matcher{n: len(secret), anywhere: len(secret) >= MinLen, wordStart: IsWord(first), wordEnd: IsWord(last)}
}

// counts reports whether the occurrence of the secret at s[i:] counts.
func (m matcher) counts(s string, i int) bool {
	if m.anywhere {
		return true
	}
	if m.wordStart && i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); IsWord(r) {
			return false
		}
	}
	if j := i + m.n; m.wordEnd && j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); IsWord(r) {
			return false
		}
	}
	return true
}
