package viewer

import (
	"html"
	"net/url"
	"strings"
)

// renderMarkdown renders the common subset of Markdown a model writes
// (paragraphs, ATX headings, fenced and indented code, block quotes,
// lists, rules, inline code, emphasis, strong and links) as HTML. It never
// lets HTML through: every character of src reaches the output escaped,
// and it writes only the tags it names itself, with no attributes but
// href (http, https and mailto links only), class on code blocks, and rel.
// What it does not understand stays visible as text.
func renderMarkdown(src string) string {
	var b strings.Builder
	b.Grow(len(src) + len(src)/4)
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	renderBlocks(&b, lines, 0)
	return b.String()
}

// maxQuoteDepth bounds nested block quotes, so that hostile input cannot
// recurse deeply.
const maxQuoteDepth = 8

func renderBlocks(b *strings.Builder, lines []string, depth int) {
	for i := 0; i < len(lines); {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			i++
		case isFence(trimmed):
			fence := trimmed[:3]
			lang := strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1]))
			j := i + 1
			for j < len(lines) && !closesFence(strings.TrimSpace(lines[j]), fence[0]) {
				j++
			}
			b.WriteString("<pre><code")
			if name := langName(lang); name != "" {
				b.WriteString(` class="lang-`)
				b.WriteString(name)
				b.WriteString(`">`)
			} else {
				b.WriteString(">")
				if lang != "" { // not a language: shown, never dropped
					b.WriteString(html.EscapeString(lang))
					b.WriteByte('\n')
				}
			}
			for k := i + 1; k < j && k < len(lines); k++ {
				b.WriteString(html.EscapeString(lines[k]))
				b.WriteByte('\n')
			}
			b.WriteString("</code></pre>\n")
			i = j + 1
		case strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t"):
			b.WriteString("<pre><code>")
			for i < len(lines) && (strings.HasPrefix(lines[i], "    ") || strings.HasPrefix(lines[i], "\t") || strings.TrimSpace(lines[i]) == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ")) {
				l := strings.TrimPrefix(lines[i], "\t")
				if l == lines[i] {
					l = strings.TrimPrefix(l, "    ")
				}
				b.WriteString(html.EscapeString(l))
				b.WriteByte('\n')
				i++
			}
			b.WriteString("</code></pre>\n")
		case heading(trimmed) > 0:
			n := heading(trimmed)
			tag := "h" + string(rune('0'+min(n+2, 6))) // a model's "#" sits under the page's own headings
			b.WriteString("<" + tag + ">")
			renderInline(b, strings.TrimSpace(strings.TrimRight(trimmed[n:], "#")))
			b.WriteString("</" + tag + ">\n")
			i++
		case isRule(trimmed):
			b.WriteString("<hr>\n")
			i++
		case strings.HasPrefix(trimmed, ">"):
			var quoted []string
			for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">") {
				q := strings.TrimPrefix(strings.TrimSpace(lines[i]), ">")
				quoted = append(quoted, strings.TrimPrefix(q, " "))
				i++
			}
			b.WriteString("<blockquote>\n")
			if depth < maxQuoteDepth {
				renderBlocks(b, quoted, depth+1)
			} else {
				renderParagraph(b, quoted)
			}
			b.WriteString("</blockquote>\n")
		case listItem(trimmed) != "":
			kind := listItem(trimmed)
			b.WriteString("<" + kind + ">\n")
			for i < len(lines) && listItem(strings.TrimSpace(lines[i])) == kind {
				item := []string{itemText(strings.TrimSpace(lines[i]))}
				i++
				// Continuation lines: indented, not a new item.
				for i < len(lines) && strings.TrimSpace(lines[i]) != "" && listItem(strings.TrimSpace(lines[i])) == "" &&
					(strings.HasPrefix(lines[i], " ") || strings.HasPrefix(lines[i], "\t")) {
					item = append(item, strings.TrimSpace(lines[i]))
					i++
				}
				b.WriteString("<li>")
				renderInline(b, strings.Join(item, " "))
				b.WriteString("</li>\n")
			}
			b.WriteString("</" + kind + ">\n")
		default:
			j := i
			for j < len(lines) && startsParagraphLine(lines[j], j == i) {
				j++
			}
			renderParagraph(b, lines[i:j])
			i = j
		}
	}
}

// startsParagraphLine reports whether line continues a paragraph (or, if
// first, starts one).
func startsParagraphLine(line string, first bool) bool {
	t := strings.TrimSpace(line)
	if first {
		return true
	}
	return t != "" && !isFence(t) && heading(t) == 0 && !strings.HasPrefix(t, ">") && listItem(t) == "" && !isRule(t)
}

func renderParagraph(b *strings.Builder, lines []string) {
	b.WriteString("<p>")
	for k, l := range lines {
		if k > 0 {
			b.WriteString("<br>\n")
		}
		renderInline(b, strings.TrimSpace(l))
	}
	b.WriteString("</p>\n")
}

// closesFence reports whether t, a trimmed line, closes a fence of c: three
// or more of c and nothing else.
func closesFence(t string, c byte) bool {
	return len(t) >= 3 && strings.Trim(t, string(c)) == ""
}

func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

// langName keeps a fence's language if it is a plain word.
func langName(s string) string {
	if len(s) == 0 || len(s) > 20 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '+' || r == '_') {
			return ""
		}
	}
	return strings.ToLower(s)
}

// heading returns the level of an ATX heading line, or 0.
func heading(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' {
		return 0
	}
	return n
}

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	for i := range len(t) {
		if t[i] != c && t[i] != ' ' {
			return false
		}
	}
	return true
}

// listItem returns "ul" or "ol" when t starts a list item, else "".
func listItem(t string) string {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return "ul"
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' ' {
		return "ol"
	}
	return ""
}

func itemText(t string) string {
	if listItem(t) == "ul" {
		return strings.TrimSpace(t[2:])
	}
	i := strings.IndexAny(t, ".)")
	return strings.TrimSpace(t[i+1:])
}

// renderInline writes one line of text with its inline markup.
func renderInline(b *strings.Builder, s string) {
	for len(s) > 0 {
		switch {
		case s[0] == '`':
			n := 0
			for n < len(s) && s[n] == '`' {
				n++
			}
			if end := strings.Index(s[n:], s[:n]); end >= 0 {
				b.WriteString("<code>")
				b.WriteString(html.EscapeString(s[n : n+end]))
				b.WriteString("</code>")
				s = s[n+end+n:]
				continue
			}
			b.WriteString(s[:n])
			s = s[n:]
		case strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__"):
			if end := strings.Index(s[2:], s[:2]); end > 0 {
				b.WriteString("<strong>")
				renderInline(b, s[2:2+end])
				b.WriteString("</strong>")
				s = s[2+end+2:]
				continue
			}
			b.WriteString(s[:2])
			s = s[2:]
		case s[0] == '*' || s[0] == '_':
			if end := strings.IndexByte(s[1:], s[0]); end > 0 && s[1] != ' ' {
				b.WriteString("<em>")
				renderInline(b, s[1:1+end])
				b.WriteString("</em>")
				s = s[1+end+1:]
				continue
			}
			b.WriteByte(s[0])
			s = s[1:]
		case s[0] == '[':
			if text, href, rest, ok := link(s); ok {
				if u := safeURL(href); u != "" {
					b.WriteString(`<a href="`)
					b.WriteString(html.EscapeString(u))
					b.WriteString(`" rel="noopener noreferrer nofollow" target="_blank">`)
					renderInline(b, text)
					b.WriteString("</a>")
				} else {
					// An unsafe link stays visible as text.
					b.WriteString(html.EscapeString(s[:len(s)-len(rest)]))
				}
				s = rest
				continue
			}
			b.WriteByte('[')
			s = s[1:]
		default:
			n := strings.IndexAny(s, "`*_[")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				n = 1
			}
			b.WriteString(html.EscapeString(s[:n]))
			s = s[n:]
		}
	}
}

// link parses "[text](href)" at the start of s.
func link(s string) (text, href, rest string, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 {
		return "", "", "", false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", "", false
	}
	text, href = s[1:close], strings.TrimSpace(s[close+2:close+2+end])
	if strings.ContainsAny(href, " \t") || strings.Contains(text, "[") {
		return "", "", "", false
	}
	return text, href, s[close+2+end+1:], true
}

// safeURL returns href if it is an absolute http, https or mailto URL,
// else "".
func safeURL(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
		return u.String()
	case "mailto":
		return u.String()
	}
	return ""
}
