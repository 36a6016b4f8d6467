package retrieval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	line := func(c string, n int) string { return strings.Repeat(c, n-1) + "\n" }
	for _, tc := range []struct {
		name string
		text Text
		opts ChunkOptions
		want []Span
	}{
		{
			name: "headings start sections",
			text: Text{Kind: KindMarkdown, Body: "# A\n\nintro\n\n## B\n\nbody\n```\n# code\n```\n"},
			want: []Span{
				{Start: 0, End: 12, StartLine: 1, EndLine: 4, Heading: "A"},
				{Start: 12, End: 38, StartLine: 5, EndLine: 10, Heading: "A > B"},
			},
		},
		{
			name: "a heading with only a subheading joins it",
			text: Text{Kind: KindMarkdown, Body: "# A\n\n## B\ntext\n"},
			want: []Span{{Start: 0, End: 15, StartLine: 1, EndLine: 4, Heading: "A > B"}},
		},
		{
			name: "overlap repeats whole lines",
			text: Text{Kind: KindText, Body: line("a", 40) + line("b", 40) + line("c", 40) + line("d", 40)},
			opts: ChunkOptions{MaxChars: 100, Overlap: 45},
			want: []Span{
				{Start: 0, End: 80, StartLine: 1, EndLine: 2},
				{Start: 40, End: 120, StartLine: 2, EndLine: 3},
				{Start: 80, End: 160, StartLine: 3, EndLine: 4},
			},
		},
		{
			name: "no chunk inside the one before",
			text: Text{Kind: KindText, Body: line("a", 60) + line("b", 40) + line("c", 90)},
			opts: ChunkOptions{MaxChars: 100, Overlap: 40},
			want: []Span{
				{Start: 0, End: 100, StartLine: 1, EndLine: 2},
				{Start: 100, End: 190, StartLine: 3, EndLine: 3},
			},
		},
		{
			name: "long lines are cut at spaces",
			text: Text{Kind: KindText, Body: strings.Repeat("word ", 30)},
			opts: ChunkOptions{MaxChars: 64, Overlap: -1},
			want: []Span{
				{Start: 0, End: 60, StartLine: 1, EndLine: 1},
				{Start: 60, End: 120, StartLine: 1, EndLine: 1},
				{Start: 120, End: 150, StartLine: 1, EndLine: 1},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Split(&tc.text, tc.opts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Split (-want +got):\n%s", diff)
			}
		})
	}
}
