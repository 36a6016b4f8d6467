package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DuckDuckGoURL is the endpoint of DuckDuckGo's HTML results page.
const DuckDuckGoURL = "https://html.duckduckgo.com/html/"

// DuckDuckGo searches by reading DuckDuckGo's HTML results page: no key,
// and the fallback when no other backend is configured. DuckDuckGo limits
// automated use; when it shows its bot check, Search returns a
// *[RateLimitError]. A DuckDuckGo is safe for concurrent use.
type DuckDuckGo struct {
	// URL is the endpoint; empty means DuckDuckGoURL.
	URL string
	// UserAgent is sent with each request; empty means DefaultUserAgent.
	UserAgent string
	// Client makes the requests; nil means a client with a 20s timeout.
	Client *http.Client
	// Now returns the current time, for Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

var ddgTimeRange = map[string]string{"day": "d", "week": "w", "month": "m", "year": "y"}

// Search implements [Searcher].
func (d *DuckDuckGo) Search(ctx context.Context, q Query) ([]Result, error) {
	endpoint := d.URL
	if endpoint == "" {
		endpoint = DuckDuckGoURL
	}
	v := url.Values{"q": {withSite(q)}}
	if t, ok := ddgTimeRange[q.TimeRange]; ok {
		v.Set("df", t)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(v.Encode()))
	if err != nil {
		return nil, &BackendError{Backend: "duckduckgo", Message: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "text/html")
	ua := d.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)
	resp, err := httpClientOr(d.Client).Do(req)
	if err != nil {
		return nil, unreachable("duckduckgo", err)
	}
	defer resp.Body.Close()
	// DuckDuckGo answers its bot check with 202 (or 403).
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusForbidden {
		return nil, &RateLimitError{Backend: "duckduckgo", RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), nowOr(d.Now))}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError("duckduckgo", resp, nowOr(d.Now), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, unreachable("duckduckgo", err)
	}
	if isBotCheck(body) {
		return nil, &RateLimitError{Backend: "duckduckgo"}
	}
	res := parseDuckDuckGo(body)
	return res[:min(len(res), limitOr(q.MaxResults))], nil
}

// isBotCheck reports whether a results page is DuckDuckGo's challenge.
func isBotCheck(body []byte) bool {
	return bytes.Contains(body, []byte("anomaly-modal")) || bytes.Contains(body, []byte("challenge-form")) ||
		bytes.Contains(body, []byte("bots use DuckDuckGo too"))
}

// parseDuckDuckGo reads the results of DuckDuckGo's HTML page (result__a
// and result__snippet) or of its lite page (result-link and
// result-snippet), in order, without ads, with each result's real url
// taken out of DuckDuckGo's redirect link. What it cannot read it skips.
func parseDuckDuckGo(body []byte) []Result {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	var out []Result
	var cur *Result
	seen := map[string]bool{}
	var walk func(n *html.Node, ad bool)
	walk = func(n *html.Node, ad bool) {
		if n.Type == html.ElementNode {
			cls := attr(n, "class")
			ad = ad || hasClass(cls, "result--ad") || hasClass(cls, "result-sponsored")
			switch {
			case n.DataAtom == atom.A && (hasClass(cls, "result__a") || hasClass(cls, "result-link")):
				cur = nil
				u := resultURL(attr(n, "href"))
				if ad || u == "" || seen[u] {
					return
				}
				seen[u] = true
				out = append(out, Result{Title: clean(textOf(n)), URL: u, Source: "duckduckgo"})
				cur = &out[len(out)-1]
				return
			case hasClass(cls, "result__snippet") || hasClass(cls, "result-snippet"):
				if cur != nil && cur.Snippet == "" && !ad {
					cur.Snippet = clean(textOf(n))
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, ad)
		}
	}
	walk(doc, false)
	return out
}

// resultURL returns the page a result link points to: the uddg parameter
// of DuckDuckGo's redirect (/l/?uddg=…), or the link itself. It returns ""
// for ad links and for anything but an absolute http or https url.
func resultURL(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") || u.Host == "" {
		if u.Path == "/y.js" {
			return "" // an ad click
		}
		if target := u.Query().Get("uddg"); target != "" {
			if u, err = url.Parse(target); err != nil {
				return ""
			}
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(classes, c string) bool {
	for f := range strings.FieldsSeq(classes) {
		if f == c {
			return true
		}
	}
	return false
}

// textOf returns the text inside n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// stripTags returns the text of an HTML fragment (Brave marks matches with
// <strong>), whitespace collapsed.
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return clean(s)
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return clean(s)
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(textOf(n))
	}
	return clean(b.String())
}
