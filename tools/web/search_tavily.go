package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// TavilyURL is the endpoint of Tavily's search API.
const TavilyURL = "https://api.tavily.com/search"

// Tavily searches with the Tavily API. A Tavily is safe for concurrent use.
type Tavily struct {
	// Key is the API key (TAVILY_API_KEY), sent as a bearer token.
	Key string
	// URL is the endpoint; empty means TavilyURL.
	URL string
	// Client makes the requests; nil means a client with a 20s timeout.
	Client *http.Client
	// Now returns the current time, for Retry-After dates; nil means
	// time.Now.
	Now func() time.Time
}

type tavilyRequest struct {
	Query          string   `json:"query"`
	MaxResults     int      `json:"max_results"`
	SearchDepth    string   `json:"search_depth"`
	TimeRange      string   `json:"time_range,omitempty"`
	IncludeDomains []string `json:"include_domains,omitempty"`
}

// tavilyResponse is the part of Tavily's answer web_search uses.
type tavilyResponse struct {
	Results []struct {
		Title         string `json:"title"`
		URL           string `json:"url"`
		Content       string `json:"content"`
		PublishedDate string `json:"published_date"`
	} `json:"results"`
}

// Search implements [Searcher].
func (t *Tavily) Search(ctx context.Context, q Query) ([]Result, error) {
	endpoint := t.URL
	if endpoint == "" {
		endpoint = TavilyURL
	}
	body := tavilyRequest{Query: q.Text, MaxResults: min(limitOr(q.MaxResults), 20), SearchDepth: "basic", TimeRange: q.TimeRange}
	if q.Site != "" {
		body.IncludeDomains = []string{q.Site}
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return nil, &BackendError{Backend: "tavily", Message: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.Key)
	resp, err := httpClientOr(t.Client).Do(req)
	if err != nil {
		return nil, unreachable("tavily", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := keyHint("TAVILY_API_KEY")
		return nil, statusError("tavily", resp, nowOr(t.Now), func(status int) string {
			if status == 432 || status == 433 {
				return "the plan's search credits are used up"
			}
			return hint(status)
		})
	}
	return decodeTavily(resp.Body, q.MaxResults)
}

func decodeTavily(r io.Reader, max int) ([]Result, error) {
	var body tavilyResponse
	if err := json.NewDecoder(r).Decode(&body); err != nil {
		return nil, &BackendError{Backend: "tavily", Message: "the answer is not the JSON expected: " + err.Error()}
	}
	var out []Result
	for _, r := range body.Results {
		if r.URL == "" || len(out) == limitOr(max) {
			continue
		}
		out = append(out, Result{Title: clean(r.Title), URL: r.URL, Snippet: clean(r.Content), Published: r.PublishedDate, Source: "tavily"})
	}
	return out, nil
}
