// Package levenshtein measures how far apart two strings are: the
// Levenshtein distance, the number of single-byte insertions, deletions
// and substitutions that turn one into the other. Callers use it to
// suggest a near name for a mistyped one.
package levenshtein

// Distance returns the Levenshtein distance between a and b, counted in
// bytes, or limit+1 once the distance is known to exceed limit, so that a
// caller asking "is it within two edits?" pays little for strings that are
// far apart. A negative limit means no limit.
func Distance(a, b string, limit int) int {
	if limit >= 0 {
		if d := len(a) - len(b); d > limit || -d > limit {
			return limit + 1
		}
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if limit >= 0 && low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	if d := prev[len(b)]; limit < 0 || d <= limit {
		return d
	}
	return limit + 1
}
