package main

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// TestMarkdownRender renders each Markdown construct without colour, as
// under NO_COLOR: the text stays readable without the Markdown's markers.
func TestMarkdownRender(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		width int
		want  string
	}{
		{"paragraph", "Just words.", 40, "  Just words."},
		{"emphasis and strong", "Let me **read** it, *carefully*, __twice__.", 40, "  Let me read it, carefully, twice."},
		{"inline code", "`main.go` prints `hi`.", 40, "  main.go prints hi."},
		{"headings", "# Found it\n\n## Why\n\ntext", 40, "  # Found it\n\n  ## Why\n\n  text"},
		{"setext heading", "Title\n=====", 40, "  # Title"},
		{"soft and hard breaks", "one\ntwo  \nthree\\\nfour", 40, "  one two\n  three\n  four"},
		{"wrap", "the quick brown fox jumps over the lazy dog", 24, "  the quick brown fox\n  jumps over the lazy\n  dog"},
		{"long word", "a 0123456789012345678901234567 b", 20, "  a\n  012345678901234567\n  8901234567 b"},
		{"list", "- one\n- two\n  - nested\n- three", 40, "  • one\n  • two\n    • nested\n  • three"},
		{"numbered list", "3. three\n4. four\n5. five", 40, "  3. three\n  4. four\n  5. five"},
		{"wide numbers", "9. nine\n10. ten", 40, "  9.  nine\n  10. ten"},
		{"loose list", "- one\n\n- two", 40, "  • one\n\n  • two"},
		{"list item wraps", "- the quick brown fox jumps over the lazy dog", 24, "  • the quick brown fox\n    jumps over the lazy\n    dog"},
		{"list item with paragraphs", "1. first\n\n   more of it\n2. second", 40, "  1. first\n\n     more of it\n\n  2. second"},
		{"block quote", "> quoted\n> text", 40, "  │ quoted text"},
		{"fenced code", "```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```", 40, "    func main() {\n        println(\"hi\")\n    }"},
		{"indented code", "text\n\n    x := 1\n    y := 2", 40, "  text\n\n    x := 1\n    y := 2"},
		{"long code line", "```\n0123456789012345678901234\n```", 20, "    0123456789012345\n    678901234"},
		{"link", "see [the docs](https://go.dev/doc) now", 60, "  see the docs (https://go.dev/doc) now"},
		{"autolink", "see <https://go.dev>", 40, "  see https://go.dev"},
		{"link whose text is its URL", "[https://go.dev](https://go.dev)", 40, "  https://go.dev"},
		{"image", "![a gopher](gopher.png)", 40, "  a gopher (gopher.png)"},
		{"thematic break", "above\n\n---\n\nbelow", 30, "  above\n\n  ────────────────────────────\n\n  below"},
		{"table", "| Name | Size |\n|:-----|-----:|\n| `a.go` | 10 |\n| b \\| c | 2000 |", 40,
			"  Name  │ Size\n  ──────┼─────\n  a.go  │   10\n  b | c │ 2000"},
		{"table wraps its widest column", "| a | b |\n|---|---|\n| x | the quick brown fox jumps |", 24,
			"  a │ b\n  ──┼───────────────────\n  x │ the quick brown\n    │ fox jumps"},
		{"table with missing cells", "| a | b |\n|---|:-:|\n| x |", 40, "  a │ b\n  ──┼──\n  x │"},
		{"not a table", "a | b\nc | d", 40, "  a | b c | d"},
		{"escapes and entities", `\*not em\* &amp; &#65; &copy;`, 40, "  *not em* & A ©"},
		{"html", "<div>\nhi\n</div>", 40, "  <div>\n  hi\n  </div>"},
		{"control characters", "bell\a and \x1b[31mred\x1b[0m", 40, "  bell and [31mred[0m"},
		{"narrow", "- one two three", 5, "•\none\ntwo\nthree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m markdownRenderer
			if got := m.render(tc.in, tc.width); got != tc.want {
				t.Errorf("render(%q, %d) (-want +got):\n%s", tc.in, tc.width, cmp.Diff(tc.want, got))
			}
		})
	}
}

// TestMarkdownRender_Color styles the text with escapes, which leave
// the text as it is without colour.
func TestMarkdownRender_Color(t *testing.T) {
	in := "# Found it\n\n`main.go` prints *hi* and **bold**; see [docs](https://go.dev).\n\n```\ncode\n```"
	m := markdownRenderer{color: true}
	got := m.render(in, 80)
	for _, want := range []string{"\x1b[1;4mFound\x1b[0m", "\x1b[36mmain.go\x1b[0m", "\x1b[3mhi\x1b[0m", "\x1b[1mbold\x1b[0m",
		"\x1b[4mdocs\x1b[0m \x1b[2m(https://go.dev)\x1b[0m", "\x1b[2mcode\x1b[0m"} {
		if !strings.Contains(got, want) {
			t.Errorf("render(color) lacks %q:\n%q", want, got)
		}
	}
	plain := markdownRenderer{}
	if stripped, want := ansi.Strip(got), plain.render(in, 80); stripped != strings.Replace(want, "# Found it", "Found it", 1) {
		t.Errorf("render(color) without its escapes (-plain +color):\n%s", cmp.Diff(want, stripped))
	}
}

// FuzzChatMarkdown renders any text, in colour and not, at any width:
// it never panics, and when no word is as wide as the width, no line
// is wider.
func FuzzChatMarkdown(f *testing.F) {
	for _, s := range []string{
		"# Found it\n\n`main.go` prints *hi*:\n\n- one function\n- one call",
		"| a | b |\n|---|:-:|\n| x | the quick brown fox |",
		"> - 1. deep\n>   > nested `code` and [a link](https://example.com)\n",
		"```\n\tcode\twith tabs\n```\n\n***\n\n<div>html</div>",
		"wide 日本語 characters and emoji 🙂 in *emphasis*",
	} {
		f.Add(s, 30, false)
	}
	f.Fuzz(func(t *testing.T, in string, width int, color bool) {
		width = 1 + int(uint(width)%200)
		m := markdownRenderer{color: color}
		out := m.render(in, width)
		for _, w := range strings.Fields(sanitize(in)) {
			if ansi.StringWidth(w) >= width {
				return // a word as wide as the line may be broken anywhere
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if n := ansi.StringWidth(l); n > width {
				t.Fatalf("render(%q, %d): line %q is %d columns wide", in, width, l, n)
			}
		}
	})
}
