package levenshtein

import "testing"

// naive is the textbook recursive definition, the oracle for Distance.
func naive(a, b string) int {
	switch {
	case a == "":
		return len(b)
	case b == "":
		return len(a)
	}
	cost := 1
	if a[0] == b[0] {
		cost = 0
	}
	return min(naive(a[1:], b)+1, naive(a, b[1:])+1, naive(a[1:], b[1:])+cost)
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", -1, 0},
		{"read", "read", -1, 0},
		{"read", "raed", -1, 2},
		{"kitten", "sitting", -1, 3},
		{"read_file", "reed_fil", -1, 2},
		{"", "abc", -1, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"a", "abcdefgh", 2, 3},     // lengths alone exceed it
		{"abcdef", "uvwxyz", 1, 2},  // every row exceeds it early
		{"é", "e", -1, 2},           // bytes, not runes
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

// FuzzDistance checks Distance against the recursive definition, with and
// without a limit.
func FuzzDistance(f *testing.F) {
	f.Add("kitten", "sitting", 2)
	f.Add("read_file", "reed_fil", -1)
	f.Add("", "abc", 0)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		if len(a) > 8 || len(b) > 8 { // the oracle is exponential
			return
		}
		want := naive(a, b)
		if got := Distance(a, b, -1); got != want {
			t.Fatalf("Distance(%q, %q, -1) = %d, want %d", a, b, got, want)
		}
		limit %= 10
		if limit >= 0 {
			if got := Distance(a, b, limit); got != min(want, limit+1) {
				t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, got, min(want, limit+1))
			}
		}
	})
}
