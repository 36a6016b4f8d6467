// Package readable turns HTML documents into readable text: the article
// readability finds in a page (or the whole page without its scripts,
// styles and navigation), as Markdown or plain text. The web tools use it
// for fetched pages and retrieval for HTML files on disk.
package readable

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// A Format is the form [Extract] returns a document's content in.
type Format int

// The formats of [Extract].
const (
	Markdown Format = iota // headings, links, lists and tables as Markdown
	Text                   // the visible text, blank lines collapsed
)

// An Article is the readable content of an HTML document.
type Article struct {
	Title     string
	Byline    string
	SiteName  string
	Published string // an RFC 3339 date, when the page says
	Content   string
	// Whole reports whether Content is the whole page rather than the
	// article readability found in it.
	Whole bool
}

// Decode returns body as UTF-8, converting from the charset the content
// type or (for HTML) the document declares. Bytes that are not valid
// UTF-8 become U+FFFD.
func Decode(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// minArticleChars is the text below which readability's article is taken
// to be a miss, and the whole page is converted instead.
const minArticleChars = 250

// Extract returns the readable content of the HTML document doc in
// format: the article readability finds, or the whole body without its
// scripts, styles and navigation when it finds none. Relative links are
// resolved against u, which must not be nil. ctx bounds the Markdown
// conversion.
func Extract(ctx context.Context, doc string, u *url.URL, format Format) (*Article, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parsing the HTML: %w", err)
	}
	a := &Article{}
	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(root, u)
	node := article.Node
	if err != nil || node == nil || len(strings.TrimSpace(render.InnerText(node))) < minArticleChars {
		if root, err = html.Parse(strings.NewReader(doc)); err != nil {
			return nil, fmt.Errorf("parsing the HTML: %w", err)
		}
		node, a.Whole = stripChrome(root), true
	}
	a.Title = strings.TrimSpace(article.Title())
	if a.Title == "" {
		a.Title = Title(doc)
	}
	a.Byline = strings.TrimSpace(article.Byline())
	a.SiteName = strings.TrimSpace(article.SiteName())
	if t, err := article.PublishedTime(); err == nil && !t.IsZero() {
		a.Published = t.UTC().Format(time.DateOnly)
	}
	if format == Text {
		a.Content = tidyText(render.InnerText(node))
		return a, nil
	}
	md, err := toMarkdown(ctx, node, u)
	if err != nil {
		return nil, err
	}
	a.Content = md
	return a, nil
}

// toMarkdown converts node, resolving relative links against u.
func toMarkdown(ctx context.Context, node *html.Node, u *url.URL) (string, error) {
	conv := htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(node, htmltomarkdown.WithContext(ctx), htmltomarkdown.WithDomain(u.String()))
	if err != nil {
		return "", fmt.Errorf("converting the page to Markdown: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// chrome lists the elements dropped from a page converted whole: code
// that never shows, and the navigation around the content.
var chrome = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Iframe: true,
	atom.Svg: true, atom.Canvas: true, atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Link: true, atom.Meta: true,
}

// stripChrome removes the chrome elements (and hidden ones) from the
// document and returns its body, or the document when it has none.
func stripChrome(root *html.Node) *html.Node {
	var body *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.CommentNode || c.Type == html.ElementNode && (chrome[c.DataAtom] || hidden(c)) {
				n.RemoveChild(c)
			} else {
				if c.DataAtom == atom.Body && body == nil {
					body = c
				}
				walk(c)
			}
			c = next
		}
	}
	walk(root)
	if body == nil {
		return root
	}
	return body
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// Title returns the text of the document's first <title>, or "".
func Title(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "title" {
				if z.Next() == html.TextToken {
					return strings.Join(strings.Fields(html.UnescapeString(string(z.Text()))), " ")
				}
				return ""
			}
		}
	}
}

// tidyText trims trailing spaces from lines and collapses runs of blank
// lines to one.
func tidyText(s string) string {
	var b strings.Builder
	blank := 0
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteString(strings.Repeat("\n", min(blank, 1)+1))
		}
		b.WriteString(line)
		blank = 0
	}
	return b.String()
}
