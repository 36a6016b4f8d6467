package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopword reports whether w is an English word too common to rank by.
func stopword(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "its",
		"of", "on", "or", "that", "the", "this", "to", "was", "with", "which", "can", "if", "not":
		return true
	}
	return false
}

// maxTermBytes bounds a term: longer runs (base64, hashes) are dropped.
const maxTermBytes = 64

// eachTerm calls fn with the terms of s in order: runs of letters and
// digits in lower case, without stopwords, plural endings taken off.
func eachTerm(s string, fn func(term string)) {
	start := -1
	var buf []byte
	emit := func(word string) {
		if len(word) > maxTermBytes {
			return
		}
		w := word
		if !lowerASCII(word) { // the common case needs no copy
			buf = buf[:0]
			for _, r := range word {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
			w = string(buf)
		}
		w = singular(w)
		if !stopword(w) {
			fn(w)
		}
	}
	for i, r := range s {
		if r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// singular takes the plural ending off an English word, as the first
// step of Porter's stemmer does: "queries" → "query", "indexes" →
// "index", "files" → "file"; "class" and "status" stay.
func singular(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}

// lowerASCII reports whether s is ASCII without upper-case letters.
func lowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}
