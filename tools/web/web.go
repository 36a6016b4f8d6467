package web

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"text/template"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// Limits and defaults of the web tools. The descriptions the model reads
// are rendered from these.
const (
	// MaxRedirects is the number of redirects web_fetch follows.
	MaxRedirects = 5
	// DefaultMaxBytes caps the bytes read of one response.
	DefaultMaxBytes = 10 << 20
	// DefaultTimeout bounds one fetch, redirects included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxChars is how many characters of a page one call returns
	// when max_chars is not given: what fits the runner's output limit
	// beside the header.
	DefaultMaxChars = tool.DefaultOutputLimit - 3_000
	// DefaultHostRate is the number of requests per minute made to one host.
	DefaultHostRate = 20
	// DefaultCacheTTL is how long a fetched page is kept.
	DefaultCacheTTL = 15 * time.Minute
	// DefaultCacheBytes caps the cache of fetched pages.
	DefaultCacheBytes = 50 << 20
	// DefaultSearchCap is the number of searches one session may make.
	DefaultSearchCap = 100
	// DefaultMaxResults is the number of search results when max_results
	// is not given; MaxResults is the most a call may ask for.
	DefaultMaxResults = 8
	MaxResults        = 20
	// DefaultOutputBudget caps the bytes of page text one web_fetch call
	// returns, whatever max_chars says: just under the runner's default
	// output limit, so that the runner never cuts a page in the middle.
	DefaultOutputBudget = tool.DefaultOutputLimit - 3_000
	// DefaultPromptChars caps the characters of a page given to the model
	// that answers a fetch's prompt.
	DefaultPromptChars = 100_000
	// DefaultUserAgent names wield in every request.
	DefaultUserAgent = "wield-web/1 (AI coding agent fetching for its user; +https://github.com/wieldhq/wield)"
)

// A Resolver looks up the addresses of a host name. [*net.Resolver]
// implements it; implementations must be safe for concurrent use.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config configures the web tools. The zero Config is ready to use: every
// zero field means the default documented on it. [New] copies the Config;
// changing it later has no effect.
type Config struct {
	// Dialer makes web_fetch's connections; its timeouts and keep-alive
	// are kept, and its Control hook, if any, runs after the address
	// check (its ControlContext and Resolver are not used: the guard's
	// hook and Resolver replace them). Nil means a net.Dialer with a 10s
	// connect timeout.
	Dialer *net.Dialer
	// Resolver resolves host names for web_fetch; nil means
	// [net.DefaultResolver]. Tests give one that answers what they need.
	Resolver Resolver
	// AllowAddrs are address ranges web_fetch may connect to although the
	// guard would refuse them (a local documentation server, an intranet).
	// Nil means none: only public addresses are reached.
	AllowAddrs []netip.Prefix
	// RedirectHosts are hosts whose redirects web_fetch follows from any
	// other host, in the syntax of permission rules: "go.dev" (and its
	// subdomains), "*.go.dev" (its subdomains), "*" (every host). Nil
	// means none: a redirect to another host is reported to the model.
	RedirectHosts []string
	// UserAgent is sent with every request; empty means DefaultUserAgent.
	UserAgent string
	// MaxBytes caps the bytes read of one response; zero means
	// DefaultMaxBytes. A longer page is cut there, and the result says so.
	MaxBytes int64
	// OutputBudget caps the bytes of page text one web_fetch call returns;
	// zero means DefaultOutputBudget. A window that reaches it ends there
	// and says how to continue.
	OutputBudget int
	// Timeout bounds one fetch; zero means DefaultTimeout.
	Timeout time.Duration
	// HostRate is the number of requests per minute web_fetch makes to
	// one host; zero means DefaultHostRate, negative means no limit.
	HostRate int
	// CacheTTL is how long fetched pages are kept; zero means
	// DefaultCacheTTL, negative means no cache.
	CacheTTL time.Duration
	// CacheBytes caps the cache; zero means DefaultCacheBytes.
	CacheBytes int
	// Model answers the prompt of a web_fetch call about the page, a small
	// fast model; ModelName is the name to ask it for (empty means the
	// provider's default). Nil means prompts are ignored, with a note, and
	// the page itself is returned.
	Model     llm.Provider
	ModelName string
	// Searcher serves web_search; nil means DuckDuckGo's key-less HTML
	// endpoint ([DuckDuckGo]).
	Searcher Searcher
	// SearchCap is the number of searches one session may make; zero
	// means DefaultSearchCap, negative means no cap.
	SearchCap int
	// Now returns the current time, for the cache and the rate limits;
	// nil means time.Now.
	Now func() time.Time
	// Logger receives debug records of fetches; nil discards them.
	Logger *slog.Logger
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.Dialer == nil {
		c.Dialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	}
	if c.Resolver == nil {
		c.Resolver = net.DefaultResolver
	}
	c.AllowAddrs = append([]netip.Prefix(nil), c.AllowAddrs...)
	c.RedirectHosts = append([]string(nil), c.RedirectHosts...)
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.OutputBudget <= 0 {
		c.OutputBudget = DefaultOutputBudget
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HostRate == 0 {
		c.HostRate = DefaultHostRate
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = DefaultCacheTTL
	}
	if c.CacheBytes <= 0 {
		c.CacheBytes = DefaultCacheBytes
	}
	if c.Searcher == nil {
		c.Searcher = &DuckDuckGo{}
	}
	if c.SearchCap == 0 {
		c.SearchCap = DefaultSearchCap
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// check reports a configuration that cannot work.
func (c Config) check() error {
	for _, p := range c.AllowAddrs {
		if !p.IsValid() {
			return fmt.Errorf("web: AllowAddrs holds an invalid prefix %v", p)
		}
	}
	for _, h := range c.RedirectHosts {
		if strings.TrimPrefix(strings.TrimSpace(h), "*.") == "" {
			return fmt.Errorf("web: RedirectHosts holds an empty host %q", h)
		}
	}
	return nil
}

// New returns the web tools built from cfg, in the order a model should
// see them: web_search, web_fetch. It fails only on a Config that cannot
// work (an invalid address prefix, an empty redirect host).
func New(cfg Config) ([]*tool.Tool, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return []*tool.Tool{newSearch(cfg), newFetch(cfg)}, nil
}

// limits are the numbers the tool descriptions quote.
type limits struct {
	MaxRedirects, MaxResults, DefaultMaxResults, MaxChars, SearchCap, OutputBudget int
	MaxMiB                                                                         int64
	CacheMinutes                                                                   int
}

func limitsOf(c Config) limits {
	return limits{MaxRedirects: MaxRedirects, MaxResults: MaxResults, DefaultMaxResults: DefaultMaxResults,
		MaxChars: DefaultMaxChars, SearchCap: c.SearchCap, OutputBudget: c.OutputBudget, MaxMiB: c.MaxBytes >> 20, CacheMinutes: int(c.CacheTTL / time.Minute)}
}

// describe renders a tool description from its template and cfg's limits.
func describe(name, text string, cfg Config) string {
	t := template.Must(template.New(name).Option("missingkey=error").Parse(text))
	var b strings.Builder
	if err := t.Execute(&b, limitsOf(cfg)); err != nil {
		panic(fmt.Sprintf("tools/web: description of %s: %v", name, err))
	}
	return b.String()
}
