package viewer

import (
	"strings"
	"testing"
)

func TestRenderMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"paragraph", "hello\nworld", "<p>hello<br>\nworld</p>\n"},
		{"heading sits under the page's", "# Title", "<h3>Title</h3>\n"},
		{"emphasis", "*a* **b** `c<d>`", "<p><em>a</em> <strong>b</strong> <code>c&lt;d&gt;</code></p>\n"},
		{"fence", "```go\nx := <-c\n```", "<pre><code class=\"lang-go\">x := &lt;-c\n</code></pre>\n"},
		{"fence with a hostile language", "```\"><script>\nx\n```", "<pre><code>&#34;&gt;&lt;script&gt;\nx\n</code></pre>\n"},
		{"fence closes on fence characters only", "```\n```x\n```", "<pre><code>```x\n</code></pre>\n"},
		{"unclosed fence runs to the end", "```\na\nb", "<pre><code>a\nb\n</code></pre>\n"},
		{"list", "- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n"},
		{"ordered list", "1. a\n2. b", "<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n"},
		{"quote", "> a\n> b", "<blockquote>\n<p>a<br>\nb</p>\n</blockquote>\n"},
		{"rule", "---", "<hr>\n"},
		{"link", "[go](https://go.dev/x?a=1&b=2)", `<p><a href="https://go.dev/x?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">go</a></p>` + "\n"},
		{"javascript link stays text", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"},
		{"JavaScript link in capitals", "[x](JaVaScRiPt:alert(1))", "<p>[x](JaVaScRiPt:alert(1))</p>\n"},
		{"data link stays text", "[x](data:text/html,<b>)", "<p>[x](data:text/html,&lt;b&gt;)</p>\n"},
		{"relative link stays text", "[x](/etc/passwd)", "<p>[x](/etc/passwd)</p>\n"},
		{"html is text", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
		{"attribute breakout is text", `" onmouseover="x`, "<p>&#34; onmouseover=&#34;x</p>\n"},
		{"link text with quotes", `[a"b](https://x.y/"z)`, `<p><a href="https://x.y/%22z" rel="noopener noreferrer nofollow" target="_blank">a&#34;b</a></p>` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderMarkdown(tt.in); got != tt.want {
				t.Errorf("renderMarkdown(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzRenderMarkdown checks that whatever a model writes, the HTML holds
// only the renderer's own elements and attributes, and links only to
// http(s) and mailto; and that the text survives: every letter of the
// input is in the output.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{
		"# h\n\n*a* **b** `c`\n\n- x\n- [y](https://y.z)\n\n```js\n</code></pre><script>\n```",
		hostileScript + hostileLink + hostileAttr + hostileImg,
		"> > > > > > > > > > deep",
		"[a](https://x)[b](mailto:q@r)**_*x*_**",
		"    indented <b>\n\tcode",
		"1) one\n   more\n2) two",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := renderMarkdown(s)
		if err := checkFragment(out); err != nil {
			t.Fatalf("renderMarkdown(%q): %v\n%s", s, err, out)
		}
		for _, r := range s {
			if r >= 'a' && r <= 'z' && !strings.ContainsRune(out, r) {
				t.Fatalf("renderMarkdown(%q) lost %q:\n%s", s, r, out)
			}
		}
	})
}
