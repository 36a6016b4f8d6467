package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// BraveURL is the endpoint of Brave's web search API.
const BraveURL = "https://api.search.brave.com/res/v1/web/search"

// Brave searches with the Brave Search API. A Brave is safe for concurrent
// use.
type Brave struct {
	// Key is the subscription token (BRAVE_API_KEY).
	Key string
	// URL is the endpoint; empty means BraveURL.
	URL string
	// Client makes the requests; nil means a client with a 20s timeout.
	Client *http.Client
	// Now returns the current time, for Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

// braveResponse is the part of Brave's answer web_search uses.
type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
			PageAge     string `json:"page_age"`
		} `json:"results"`
	} `json:"web"`
}

var braveFreshness = map[string]string{"day": "pd", "week": "pw", "month": "pm", "year": "py"}

// Search implements [Searcher].
func (b *Brave) Search(ctx context.Context, q Query) ([]Result, error) {
	endpoint := b.URL
	if endpoint == "" {
		endpoint = BraveURL
	}
	v := url.Values{"q": {withSite(q)}, "count": {strconv.Itoa(min(limitOr(q.MaxResults), 20))}}
	if f, ok := braveFreshness[q.TimeRange]; ok {
		v.Set("freshness", f)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+v.Encode(), nil)
	if err != nil {
		return nil, &BackendError{Backend: "brave", Message: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.Key)
	resp, err := httpClientOr(b.Client).Do(req)
	if err != nil {
		return nil, unreachable("brave", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError("brave", resp, nowOr(b.Now), keyHint("BRAVE_API_KEY"))
	}
	return decodeBrave(resp.Body, q.MaxResults)
}

func decodeBrave(r io.Reader, max int) ([]Result, error) {
	var body braveResponse
	if err := json.NewDecoder(r).Decode(&body); err != nil {
		return nil, &BackendError{Backend: "brave", Message: "the answer is not the JSON expected: " + err.Error()}
	}
	var out []Result
	for _, r := range body.Web.Results {
		if r.URL == "" || len(out) == limitOr(max) {
			continue
		}
		pub := r.PageAge
		if pub == "" {
			pub = r.Age
		}
		out = append(out, Result{Title: stripTags(r.Title), URL: r.URL, Snippet: stripTags(r.Description), Published: pub, Source: "brave"})
	}
	return out, nil
}

// keyHint returns a hint for statuses that mean a bad or missing key.
func keyHint(env string) func(int) string {
	return func(status int) string {
		if status == http.StatusUnauthorized || status == http.StatusForbidden {
			return "the API key is missing or not valid: check " + env
		}
		return ""
	}
}
