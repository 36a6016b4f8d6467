package web

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/wieldhq/wield/internal/readable"
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

// extractHTML turns an HTML document into a page in format: the article
// readability finds, or the whole body without its scripts, styles and
// navigation when it finds none. ctx bounds the Markdown conversion.
func extractHTML(ctx context.Context, doc string, u *url.URL, format string) (*page, error) {
	p := &page{URL: u.String()}
	if format == formatHTML {
		p.Content = doc
		p.Title = readable.Title(doc)
		return p, nil
	}
	f := readable.Markdown
	if format == formatText {
		f = readable.Text
	}
	a, err := readable.Extract(ctx, doc, u, f)
	if err != nil {
		return nil, err
	}
	p.Title, p.Byline, p.SiteName, p.Published = a.Title, a.Byline, a.SiteName, a.Published
	p.Content, p.Whole = a.Content, a.Whole
	return p, nil
}

// decode returns body as UTF-8; see [readable.Decode].
func decode(body []byte, contentType string) string { return readable.Decode(body, contentType) }
