package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A Searcher finds web pages for a query. Implementations must be safe for
// concurrent use and return promptly when ctx is done.
//
// Search returns at most q.MaxResults results, best first. It returns a
// *[RateLimitError] when the backend throttles, and a *[BackendError]
// when it answers with another error; web_search tells the model both
// plainly.
type Searcher interface {
	Search(ctx context.Context, q Query) ([]Result, error)
}

// A Query is one search.
type Query struct {
	// Text is what to search for.
	Text string
	// MaxResults caps the results; zero means DefaultMaxResults.
	MaxResults int
	// Site, if set, keeps results to one site ("go.dev").
	Site string
	// TimeRange, if set, keeps results to a recent period: "day",
	// "week", "month" or "year".
	TimeRange string
}

// A Result is one search result, the same for every backend.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
	// Published is the date the backend gives for the page, as it gives
	// it ("2024-05-01", "3 days ago"); empty when unknown.
	Published string `json:"published,omitempty"`
	// Source names the backend, and for a meta-search engine the engines
	// that found the page ("searxng: google, bing").
	Source string `json:"source"`
}

// A RateLimitError is returned by a [Searcher] whose backend is throttling.
type RateLimitError struct {
	// Backend names the backend.
	Backend string
	// RetryAfter is how long the backend asks to wait; zero when it does
	// not say.
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	wait := e.RetryAfter
	if wait <= 0 {
		wait = time.Minute
	}
	return fmt.Sprintf("%s is rate-limiting searches; do not retry for %d s, and do not rephrase the query to get around it", e.Backend, int(wait.Round(time.Second)/time.Second))
}

// A BackendError is returned by a [Searcher] whose backend failed.
type BackendError struct {
	// Backend names the backend.
	Backend string
	// Status is the HTTP status, or 0 when the backend was not reached or
	// its answer could not be read.
	Status int
	// Message says what went wrong, with the backend's own words.
	Message string
}

func (e *BackendError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s answered %d: %s", e.Backend, e.Status, e.Message)
	}
	return e.Backend + ": " + e.Message
}

// statusError turns an error answer of a backend into a
// *RateLimitError or a *BackendError, with hint appended for statuses the
// user can fix (a key, a setting).
func statusError(backend string, resp *http.Response, now time.Time, hint func(int) string) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	if resp.StatusCode == http.StatusTooManyRequests {
		return &RateLimitError{Backend: backend, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), now)}
	}
	msg := strings.Join(strings.Fields(string(body)), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	if hint != nil {
		if h := hint(resp.StatusCode); h != "" {
			msg += " (" + h + ")"
		}
	}
	return &BackendError{Backend: backend, Status: resp.StatusCode, Message: msg}
}

// parseRetryAfter reads a Retry-After header: seconds, or an HTTP date.
// It returns zero when the header says nothing usable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, 86_400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// unreachable wraps a transport error of a backend.
func unreachable(backend string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &BackendError{Backend: backend, Message: "no answer in time; try again later"}
	}
	return &BackendError{Backend: backend, Message: "could not be reached: " + err.Error()}
}

// clean collapses whitespace in a title or snippet.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// httpClientOr returns c, or a client with a timeout.
func httpClientOr(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: 20 * time.Second}
}

// nowOr returns now(), or the time when now is nil.
func nowOr(now func() time.Time) time.Time {
	if now != nil {
		return now()
	}
	return time.Now()
}

// withSite returns the query text narrowed to site with the site:
// operator, for backends that have no parameter for it.
func withSite(q Query) string {
	if q.Site == "" {
		return q.Text
	}
	return q.Text + " site:" + q.Site
}
