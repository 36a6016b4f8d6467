// Package textcut cuts long text down to a byte budget without splitting
// a UTF-8 sequence: a prefix, a suffix, or the head and tail of a text
// that is too long to show whole.
//
// A cut point falls on a boundary of the runes that ranging over the
// string yields: never inside a valid multi-byte sequence, and anywhere
// in invalid bytes (each of them is a rune of its own). Text that is
// valid UTF-8 stays valid.
package textcut

import "unicode/utf8"

// Head returns the longest prefix of s that is at most n bytes and ends on
// a rune boundary. A negative n counts as zero.
func Head(s string, n int) string {
	if n >= len(s) {
		return s
	}
	return s[:boundaryAtOrBefore(s, max(n, 0))]
}

// Tail returns the longest suffix of s that is at most n bytes and starts
// on a rune boundary. A negative n counts as zero.
func Tail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	return s[boundaryAtOrAfter(s, len(s)-max(n, 0)):]
}

// HeadTail returns the head and tail of s to show within limit bytes: the
// head is [Head] of a fifth of the limit, the tail is [Tail] of what the
// head leaves, because the end of an output (the error, the summary)
// usually matters most. The caller says what lies between
// them: len(s)-len(head)-len(tail) bytes were left out. When s fits, head
// is s and tail is empty. A negative limit counts as zero.
func HeadTail(s string, limit int) (head, tail string) {
	if len(s) <= limit {
		return s, ""
	}
	limit = max(limit, 0)
	head = Head(s, limit/5)
	return head, Tail(s, limit-len(head))
}

// boundaryAtOrBefore returns the largest rune boundary of s at or before
// i, for 0 <= i <= len(s).
func boundaryAtOrBefore(s string, i int) int {
	if start, end := runeAround(s, i); start < i && i < end {
		return start
	}
	return i
}

// boundaryAtOrAfter returns the smallest rune boundary of s at or after
// i, for 0 <= i <= len(s).
func boundaryAtOrAfter(s string, i int) int {
	if start, end := runeAround(s, i); start < i && i < end {
		return end
	}
	return i
}

// runeAround returns the bounds of the valid multi-byte sequence that
// holds byte i of s past its first byte, or i, i when there is none. Only a
// lead byte within utf8.UTFMax-1 bytes before i can start one, and any
// lead byte is a boundary, because a valid sequence holds continuation
// bytes only after its first.
func runeAround(s string, i int) (start, end int) {
	if i >= len(s) || utf8.RuneStart(s[i]) {
		return i, i
	}
	for j := i - 1; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			if _, n := utf8.DecodeRuneInString(s[j:]); j+n > i {
				return j, j + n
			}
			return i, i
		}
	}
	return i, i
}
