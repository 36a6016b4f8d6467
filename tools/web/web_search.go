package web

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wieldhq/wield/tool"
)

//go:embed web_search.md
var searchDescription string

// SearchInput is the argument object of web_search.
type SearchInput struct {
	Query      string `json:"query" jsonschema:"what to search for"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"how many results to return"`
	Site       string `json:"site,omitempty" jsonschema:"keep results to this site, such as go.dev"`
	TimeRange  string `json:"time_range,omitempty" enum:"day,week,month,year" jsonschema:"keep results to pages from this recent period"`
}

// SearchData is the structured result of web_search.
type SearchData struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	// Remaining is how many more searches this session may make; absent
	// without a cap.
	Remaining *int `json:"remaining,omitempty"`
}

// maxSnippetChars caps one result's snippet in the output.
const maxSnippetChars = 400

// newSearch returns the web_search tool.
func newSearch(cfg Config) *tool.Tool {
	s := &searcher{cfg: cfg, counts: newSessionCounts(4096)}
	return tool.New(tool.Spec{
		Name:         "web_search",
		Effect:       tool.EffectNetwork,
		KeyArgs:      []string{"query"},
		Aliases:      []string{"WebSearch"},
		Description:  describe("web_search", searchDescription, cfg),
		OutputSchema: tool.SchemaOf[SearchData](),
		Annotations:  tool.Annotations{OpenWorld: true, ParallelSafe: true},
	}, s.search)
}

// searcher is web_search.
type searcher struct {
	cfg    Config
	counts *sessionCounts
}

func (s *searcher) search(ctx context.Context, c *tool.Call, in SearchInput) (tool.Result, error) {
	q := Query{Text: strings.TrimSpace(in.Query), MaxResults: in.MaxResults, Site: strings.TrimSpace(in.Site), TimeRange: in.TimeRange}
	if q.Text == "" {
		return tool.Failure("query is empty: give the words to search for"), nil
	}
	if q.MaxResults < 0 || q.MaxResults > MaxResults {
		return tool.Failure(fmt.Sprintf("max_results must be between 1 and %d", MaxResults)), nil
	}
	if q.MaxResults == 0 {
		q.MaxResults = DefaultMaxResults
	}
	var remaining *int
	if s.cfg.SearchCap > 0 {
		session := ""
		if c != nil {
			session = c.SessionID
		}
		n, ok := s.counts.take(session, s.cfg.SearchCap)
		if !ok {
			return tool.Failure(fmt.Sprintf("this session has made its %d searches, the most allowed; work with the pages found, or read them with web_fetch", s.cfg.SearchCap)), nil
		}
		left := s.cfg.SearchCap - n
		remaining = &left
	}
	results, err := s.cfg.Searcher.Search(ctx, q)
	if err != nil {
		return searchFailure(err), nil
	}
	results = results[:min(len(results), q.MaxResults)]
	data := SearchData{Query: q.Text, Results: results, Remaining: remaining}
	if data.Results == nil {
		data.Results = []Result{}
	}
	return tool.Result{Success: true, Output: renderResults(q, results, remaining), Data: data}, nil
}

// searchFailure tells the model what a backend's failure means for it.
func searchFailure(err error) tool.Result {
	if r, ok := errors.AsType[*RateLimitError](err); ok {
		return tool.Failure(r.Error())
	}
	if b, ok := errors.AsType[*BackendError](err); ok {
		return tool.Failure("search failed: " + b.Error())
	}
	return tool.Failure("search failed: " + err.Error())
}

// renderResults writes the results as a numbered list inside the
// untrusted-content element.
func renderResults(q Query, results []Result, remaining *int) string {
	what := "web search: " + q.Text
	if q.Site != "" {
		what += " (site " + q.Site + ")"
	}
	if len(results) == 0 {
		return "No results for " + strconv.Quote(q.Text) + ". Try other words, fewer of them, or no site and time_range."
	}
	var b strings.Builder
	for i, r := range results {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, oneLineOr(r.Title, "(no title)"), r.URL)
		if r.Snippet != "" {
			b.WriteString("   " + shorten(r.Snippet, maxSnippetChars) + "\n")
		}
		if r.Published != "" {
			b.WriteString("   published: " + r.Published + "\n")
		}
	}
	out := wrapUntrusted(what, b.String())
	out += "\n[" + strconv.Itoa(len(results)) + " results from " + results[0].Source + "; read a page with web_fetch"
	if remaining != nil {
		out += "; " + strconv.Itoa(*remaining) + " searches left in this session"
	}
	return out + "]"
}

func oneLineOr(s, empty string) string {
	if s = clean(s); s == "" {
		return empty
	}
	return s
}

// shorten cuts s to at most n characters, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := byteIndex(s, 0, n)
	return s[:i] + "…"
}

// sessionCounts counts the searches of each session. It remembers at
// most limit sessions, forgetting the one counted longest ago, so a
// process that serves many sessions stays bounded. It is safe for
// concurrent use.
type sessionCounts struct {
	limit int
	mu    sync.Mutex
	n     map[string]int
	order []string // sessions by first search, oldest first
}

func newSessionCounts(limit int) *sessionCounts {
	return &sessionCounts{limit: limit, n: map[string]int{}}
}

// take counts one search of session if it has made fewer than cap, and
// returns the count with it.
func (s *sessionCounts) take(session string, cap int) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.n[session]
	if n >= cap {
		return n, false
	}
	if !ok {
		if len(s.order) >= s.limit {
			delete(s.n, s.order[0])
			s.order = s.order[1:]
		}
		s.order = append(s.order, session)
	}
	s.n[session] = n + 1
	return n + 1, true
}
