package memory

import (
	"strings"
	"unicode"
)

// stopword reports whether w is an English word too common to rank by.
func stopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it",
		"of", "on", "or", "that", "the", "this", "to", "was", "with":
		return true
	}
	return false
}

// words returns the words of s in order, in lower case: runs of letters
// and digits. Nothing is stemmed.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// terms returns the words of s that rank: words without stopwords.
func terms(s string) []string {
	w := words(s)
	out := w[:0]
	for _, t := range w {
		if !stopword(t) {
			out = append(out, t)
		}
	}
	return out
}

// normalText is the text two exact duplicates share: their words joined
// by single spaces.
func normalText(s string) string { return strings.Join(words(s), " ") }
