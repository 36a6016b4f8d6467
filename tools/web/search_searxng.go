package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// SearXNG searches through a SearXNG instance's JSON API, the backend of
// choice for people who host their own. The instance must allow the json
// format (search.formats in its settings.yml), or it answers 403.
// A SearXNG is safe for concurrent use.
type SearXNG struct {
	// BaseURL is the instance's url, such as "http://localhost:8888".
	BaseURL string
	// Client makes the requests; nil means a client with a 20s timeout.
	Client *http.Client
	// Now returns the current time, for Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

// searxngResponse is the part of SearXNG's answer web_search uses.
type searxngResponse struct {
	Results []struct {
		URL           string   `json:"url"`
		Title         string   `json:"title"`
		Content       string   `json:"content"`
		Engine        string   `json:"engine"`
		Engines       []string `json:"engines"`
		PublishedDate *string  `json:"publishedDate"`
	} `json:"results"`
}

// Search implements [Searcher].
func (s *SearXNG) Search(ctx context.Context, q Query) ([]Result, error) {
	base, err := url.Parse(strings.TrimSuffix(s.BaseURL, "/") + "/search")
	if err != nil || base.Host == "" {
		return nil, &BackendError{Backend: "searxng", Message: fmt.Sprintf("the instance url %q is not valid", s.BaseURL)}
	}
	v := url.Values{"q": {withSite(q)}, "format": {"json"}}
	if q.TimeRange != "" {
		v.Set("time_range", q.TimeRange)
	}
	base.RawQuery = v.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String(), nil)
	if err != nil {
		return nil, &BackendError{Backend: "searxng", Message: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := httpClientOr(s.Client).Do(req)
	if err != nil {
		return nil, unreachable("searxng", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, statusError("searxng", resp, nowOr(s.Now), func(status int) string {
			if status == http.StatusForbidden {
				return "the instance does not serve JSON: add json to search.formats in its settings.yml"
			}
			return ""
		})
	}
	return decodeSearXNG(resp.Body, q.MaxResults)
}

func decodeSearXNG(r io.Reader, max int) ([]Result, error) {
	var body searxngResponse
	if err := json.NewDecoder(r).Decode(&body); err != nil {
		return nil, &BackendError{Backend: "searxng", Message: "the answer is not the JSON expected: " + err.Error()}
	}
	var out []Result
	for _, r := range body.Results {
		if r.URL == "" || len(out) == limitOr(max) {
			continue
		}
		src := "searxng"
		if len(r.Engines) > 0 {
			src += ": " + strings.Join(r.Engines, ", ")
		} else if r.Engine != "" {
			src += ": " + r.Engine
		}
		res := Result{Title: clean(r.Title), URL: r.URL, Snippet: clean(r.Content), Source: src}
		if r.PublishedDate != nil {
			res.Published = *r.PublishedDate
		}
		out = append(out, res)
	}
	return out, nil
}

// limitOr returns max, or DefaultMaxResults when it is not positive.
func limitOr(max int) int {
	if max <= 0 {
		return DefaultMaxResults
	}
	return max
}
