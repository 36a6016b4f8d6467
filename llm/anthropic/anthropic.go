package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// DefaultBaseURL is the API root used when [Config.BaseURL] is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultModel is the model of requests that name none when [Config.Model]
// is empty.
const DefaultModel = "claude-sonnet-4-5"

// APIVersion is sent as the anthropic-version header. A Header entry in
// [Config] replaces it.
const APIVersion = "2023-06-01"

// KeyVar is the environment variable [New] reads the API key from.
const KeyVar = "ANTHROPIC_API_KEY"

// The defaults for zero [Config] fields.
const (
	DefaultTimeout      = wire.DefaultTimeout
	DefaultMaxRetries   = wire.DefaultMaxRetries
	DefaultRetryBase    = wire.DefaultRetryBase
	DefaultMaxRetryWait = wire.DefaultMaxRetryWait
	// DefaultMaxTokens is the output cap of a request when neither the
	// request nor [Config.MaxTokens] sets one, for every model but the
	// claude-3 models before 3.5, whose limit is [Claude3MaxTokens].
	// With thinking on, the default is the thinking budget plus this, so
	// the answer has room after the reasoning.
	DefaultMaxTokens = 8192
	// Claude3MaxTokens is the default output cap of claude-3-opus,
	// claude-3-sonnet and claude-3-haiku, which allow no more.
	Claude3MaxTokens = 4096
	// MinThinkingBudget is the smallest thinking budget the API accepts.
	MinThinkingBudget = 1024
)

// ErrNoKey is returned (wrapped) by [New] when there is no API key: neither
// [Config.APIKey] nor ANTHROPIC_API_KEY is set, and no x-api-key or
// Authorization header is configured.
var ErrNoKey = errors.New("no API key")

// Config configures a [Provider]. Its zero value talks to Anthropic with
// the key in ANTHROPIC_API_KEY and the documented defaults.
type Config struct {
	// BaseURL is the API root that "/v1/messages" is appended to (a root
	// that already ends in "/v1" gets only "/messages"), such as a proxy's
	// or gateway's URL. Empty means [DefaultBaseURL]. The
	// ANTHROPIC_BASE_URL variable is not read: callers that honour it pass
	// it here.
	BaseURL string
	// APIKey is sent in the x-api-key header. Empty means the
	// ANTHROPIC_API_KEY environment variable, read by [New]. The key is
	// never logged and is removed from error messages.
	APIKey string
	// Model is used for requests that name no model; empty means
	// [DefaultModel].
	Model string
	// Header holds extra HTTP headers sent with every request, such as
	// "anthropic-beta". A gateway that authenticates otherwise can set
	// "Authorization" here instead of an API key.
	Header http.Header
	// MaxTokens caps the reply of requests that set no MaxTokens. Zero
	// means [DefaultMaxTokens] ([Claude3MaxTokens] for the older claude-3
	// models), plus the thinking budget when thinking is on. The API
	// requires a cap on every request.
	MaxTokens int
	// ThinkingBudget turns on extended thinking with this many tokens for
	// reasoning ("thinking": {"type": "enabled", "budget_tokens": n}).
	// Zero means off. It must be at least [MinThinkingBudget] and smaller
	// than the reply's cap. With thinking on, no temperature is sent: the
	// API allows none.
	ThinkingBudget int
	// NoCache turns prompt caching off: no cache_control breakpoints are
	// sent. See the package documentation for where they go.
	NoCache bool
	// Timeout bounds how long one attempt waits for the endpoint without
	// receiving anything: for the response headers, and then between the
	// pieces of a streamed reply (the API sends a ping every few seconds).
	// A long reply that keeps streaming is never cut off. Zero means
	// [DefaultTimeout].
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried when retrying may
	// help: rate limits (429), overload (529), other server errors (5xx),
	// 408, 409, timeouts, connection failures and an overloaded_error or
	// api_error event at the start of the stream, and only while nothing
	// of the reply has been passed to the event handler. Zero means
	// [DefaultMaxRetries]; a negative value means no retries.
	MaxRetries int
	// RetryBase is the wait before the first retry; it doubles with each
	// further retry, with random jitter of up to half of it. Zero means
	// [DefaultRetryBase].
	RetryBase time.Duration
	// MaxRetryWait caps one wait between attempts. A retry-after the
	// endpoint asks for is honoured up to this cap; when it asks for
	// longer, the request fails at once and the [llm.APIError] carries the
	// wait in RetryAfter. Zero means [DefaultMaxRetryWait].
	MaxRetryWait time.Duration
	// HTTPClient sends the requests. Nil means a client on
	// [http.DefaultTransport]. Its Timeout, if set, bounds whole streams;
	// prefer [Config.Timeout].
	HTTPClient *http.Client
	// Logger receives a line for each retry; a nil Logger discards them.
	Logger *slog.Logger
}

// A Provider is an [llm.Provider] for Anthropic's Messages API and the
// proxies and gateways that speak it. It is safe for concurrent use.
type Provider struct {
	cfg      Config
	endpoint *url.URL // BaseURL + /v1/messages
	wire     *wire.Client
	// enc keeps the encoding of the messages and tool lists a
	// conversation sends again each round (see request.go).
	enc wire.EncodeCache
	// recent keeps the last request's messages, so that the next round of
	// a conversation finds their encodings by comparing them rather than
	// hashing them.
	recent wire.Recent
}

// New returns a provider for cfg. It reads ANTHROPIC_API_KEY when
// cfg.APIKey is empty, and fails with an error wrapping [ErrNoKey] when
// there is no key, with an error when cfg.BaseURL is not an http or https
// URL, and with an error when the thinking budget does not fit the API's
// rules.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv(KeyVar)
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey) // a key read from a file may end in a newline
	cfg.Header = cfg.Header.Clone()
	if cfg.APIKey == "" && cfg.Header.Get("X-Api-Key") == "" && cfg.Header.Get("Authorization") == "" {
		return nil, fmt.Errorf("anthropic: %w: set %s or the configured API key", ErrNoKey, KeyVar)
	}
	switch {
	case cfg.ThinkingBudget < 0:
		return nil, fmt.Errorf("anthropic: thinking budget %d is negative; use 0 for no thinking", cfg.ThinkingBudget)
	case cfg.ThinkingBudget > 0 && cfg.ThinkingBudget < MinThinkingBudget:
		return nil, fmt.Errorf("anthropic: thinking budget %d is below the API's minimum of %d tokens", cfg.ThinkingBudget, MinThinkingBudget)
	case cfg.MaxTokens < 0:
		return nil, fmt.Errorf("anthropic: max tokens %d is negative; use 0 for the default", cfg.MaxTokens)
	case cfg.ThinkingBudget > 0 && cfg.MaxTokens > 0 && cfg.MaxTokens <= cfg.ThinkingBudget:
		return nil, fmt.Errorf("anthropic: max tokens %d must be larger than the thinking budget %d", cfg.MaxTokens, cfg.ThinkingBudget)
	}
	base, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("anthropic: base URL %q: %w", cfg.BaseURL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("anthropic: base URL %q is not an http or https URL such as %s", cfg.BaseURL, DefaultBaseURL)
	}
	endpoint := *base
	endpoint.Path = strings.TrimSuffix(endpoint.Path, "/")
	if !strings.HasSuffix(endpoint.Path, "/v1") {
		endpoint.Path += "/v1"
	}
	endpoint.Path += "/messages"
	endpoint.RawPath = ""
	p := &Provider{cfg: cfg, endpoint: &endpoint}
	p.wire = wire.New(wire.Client{HTTP: cfg.HTTPClient, Endpoint: endpoint.Redacted(), Key: cfg.APIKey, KeyVar: KeyVar,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, RetryBase: cfg.RetryBase, MaxRetryWait: cfg.MaxRetryWait, Log: cfg.Logger})
	return p, nil
}

// Endpoint returns the URL requests are sent to, with any user information
// redacted.
func (p *Provider) Endpoint() string { return p.endpoint.Redacted() }

// Stream sends req to the Messages endpoint and assembles the reply; see
// [llm.Provider]. Failed attempts are retried as [Config] describes.
// Errors are an [*llm.APIError] when the endpoint failed, could not be
// reached or sent an error event, wrap [llm.ErrProtocol] when its reply
// broke the protocol, and are ctx.Err() when ctx ended first.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	c, err := p.buildRequest(req)
	if err != nil {
		return nil, err
	}
	return p.wire.Do(ctx, handle, func(ctx context.Context, handle func(llm.Event)) (*llm.Response, error) {
		return p.attempt(ctx, c, handle)
	})
}

// attempt makes one request and reads its reply.
func (p *Provider) attempt(ctx context.Context, c *call, handle func(llm.Event)) (*llm.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint.String(), c.body.Reader())
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	// What NewRequest sets for a body in one piece.
	hreq.ContentLength = int64(c.body.Len())
	hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(c.body.Reader()), nil }
	hreq.Header.Set("Anthropic-Version", APIVersion)
	for k, v := range p.cfg.Header {
		hreq.Header[k] = v
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream, application/json")
	if p.cfg.APIKey != "" {
		hreq.Header.Set("X-Api-Key", p.cfg.APIKey)
	}
	reply, err := p.wire.Send(ctx, hreq, func(status int) string { return p.statusHint(status, c.model) })
	if err != nil {
		return nil, err
	}
	defer reply.Close()
	r := reply.Body
	mediaType, _, _ := mime.ParseMediaType(reply.Response.Header.Get("Content-Type"))
	var resp *llm.Response
	if mediaType == "application/json" || wire.StartsJSON(r) {
		resp, err = readResponse(r, c.names, handle)
	} else {
		resp, err = readStream(r, c.names, handle)
	}
	if err != nil {
		if errors.Is(err, errNoEvents) {
			return nil, fmt.Errorf("%w: %s answered with no stream events (Content-Type %q); does it speak Anthropic's Messages API?",
				llm.ErrProtocol, p.Endpoint(), reply.Response.Header.Get("Content-Type"))
		}
		return nil, reply.Err(err)
	}
	return resp, nil
}
