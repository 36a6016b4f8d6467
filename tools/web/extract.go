package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
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

// The formats web_fetch returns a page in.
const (
	formatMarkdown = "markdown"
	formatText     = "text"
	formatHTML     = "html"
)

// A page is a fetched document in one format, ready to be cut into
// windows. Pages are kept in the cache and never modified.
type page struct {
	URL         string // the final url
	Title       string
	Byline      string
	SiteName    string
	Published   string // RFC 3339 date, when the page says
	ContentType string // the media type, without parameters
	Content     string
	// Whole reports whether Content is the whole page rather than the
	// article readability found in it.
	Whole bool
	// Truncated reports whether the body was cut at Config.MaxBytes.
	Truncated bool
}

func (p *page) size() int {
	return len(p.URL) + len(p.Title) + len(p.Byline) + len(p.SiteName) + len(p.Published) + len(p.ContentType) + len(p.Content) + 64
}

// kind is what web_fetch does with a body.
type kind int

const (
	kindHTML   kind = iota // extracted and converted
	kindText               // returned as it is
	kindBinary             // saved to a file
)

// sniff returns the media type of a body and what to do with it: the
// Content-Type header when it is specific, else what the bytes look like.
func sniff(header string, body []byte) (string, kind) {
	mt, _, err := mime.ParseMediaType(header)
	if err != nil || mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return mt, kindHTML
	case strings.HasPrefix(mt, "text/"), mt == "application/json", mt == "application/xml",
		mt == "application/javascript", mt == "application/x-yaml", mt == "application/yaml", mt == "application/toml",
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		if bytes.IndexByte(body[:min(len(body), 8<<10)], 0) >= 0 {
			return mt, kindBinary // a NUL byte: it only claims to be text
		}
		return mt, kindText
	}
	return mt, kindBinary
}

// decode returns body as UTF-8, converting from the charset the header
// or (for HTML) the document declares.
func decode(body []byte, contentType string) string {
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

// extractHTML turns an HTML document into a page in format: the article
// readability finds, or the whole body without its scripts, styles and
// navigation when it finds none. ctx bounds the Markdown conversion.
func extractHTML(ctx context.Context, doc string, u *url.URL, format string) (*page, error) {
	p := &page{URL: u.String()}
	if format == formatHTML {
		p.Content = doc
		p.Title = documentTitle(doc)
		return p, nil
	}
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parsing the HTML: %w", err)
	}
	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(root, u)
	node := article.Node
	if err != nil || node == nil || len(strings.TrimSpace(render.InnerText(node))) < minArticleChars {
		if root, err = html.Parse(strings.NewReader(doc)); err != nil {
			return nil, fmt.Errorf("parsing the HTML: %w", err)
		}
		node, p.Whole = stripChrome(root), true
	}
	p.Title = strings.TrimSpace(article.Title())
	if p.Title == "" {
		p.Title = documentTitle(doc)
	}
	p.Byline = strings.TrimSpace(article.Byline())
	p.SiteName = strings.TrimSpace(article.SiteName())
	if t, err := article.PublishedTime(); err == nil && !t.IsZero() {
		p.Published = t.UTC().Format(time.DateOnly)
	}
	if format == formatText {
		p.Content = tidyText(render.InnerText(node))
		return p, nil
	}
	md, err := toMarkdown(ctx, node, u)
	if err != nil {
		return nil, err
	}
	p.Content = md
	return p, nil
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

// documentTitle returns the text of the document's first <title>.
func documentTitle(doc string) string {
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
