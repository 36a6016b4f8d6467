package gemini

import (
	"bufio"
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

// DefaultBaseURL is the Gemini API root used when [Config.BaseURL] is
// empty and [Config.Vertex] is nil.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// The defaults for zero [Config] fields.
const (
	DefaultTimeout      = wire.DefaultTimeout
	DefaultMaxRetries   = wire.DefaultMaxRetries
	DefaultRetryBase    = wire.DefaultRetryBase
	DefaultMaxRetryWait = wire.DefaultMaxRetryWait
)

// The environment variables [New] reads the API key from, in this order.
const (
	KeyVar         = "GEMINI_API_KEY"
	FallbackKeyVar = "GOOGLE_API_KEY"
)

// ErrNoKey is wrapped by the error [New] returns when the Gemini API is to
// be used and there is no API key: none in [Config.APIKey], GEMINI_API_KEY
// or GOOGLE_API_KEY.
var ErrNoKey = errors.New("no API key")

// Config configures a [Provider]. Its zero value talks to the Gemini API
// with the key in GEMINI_API_KEY (or GOOGLE_API_KEY) and the documented
// defaults.
type Config struct {
	// BaseURL is the API root, such as a proxy's. Empty means
	// [DefaultBaseURL] for the Gemini API and
	// https://{location}-aiplatform.googleapis.com for Vertex AI. The path
	// appended to it is "/v1beta/models/{model}:streamGenerateContent" for
	// the Gemini API (or just "/models/..." when BaseURL already ends in
	// /v1beta, /v1 or /v1alpha) and "/v1/projects/{project}/locations/
	// {location}/publishers/google/models/{model}:streamGenerateContent"
	// for Vertex AI.
	BaseURL string
	// APIKey is the Gemini API key, sent in the x-goog-api-key header, never
	// in the URL. Empty means GEMINI_API_KEY, then GOOGLE_API_KEY, read by
	// [New]. The key is never logged and is removed from error messages.
	// Vertex AI does not use it.
	APIKey string
	// Model is used for requests that name no model, such as
	// "gemini-2.5-pro". A "models/" prefix is dropped.
	Model string
	// Vertex, if not nil, sends requests to Vertex AI instead of the Gemini
	// API, authenticated with TokenSource.
	Vertex *Vertex
	// TokenSource returns the OAuth2 access token sent as
	// "Authorization: Bearer" to Vertex AI; it is called for every attempt,
	// so it should cache. It is required with Vertex. An
	// oauth2.TokenSource ts adapts as
	//
	//	func(context.Context) (string, error) {
	//		t, err := ts.Token()
	//		if err != nil {
	//			return "", err
	//		}
	//		return t.AccessToken, nil
	//	}
	//
	// for example with golang.org/x/oauth2/google.DefaultTokenSource and
	// the scope https://www.googleapis.com/auth/cloud-platform.
	TokenSource func(ctx context.Context) (string, error)
	// ThinkingBudget, if not nil, is sent as thinkingConfig.thinkingBudget:
	// the tokens the model may think for; 0 turns thinking off where the
	// model allows it, -1 lets the model decide. Nil means the model's
	// default.
	ThinkingBudget *int
	// ThinkingLevel, if not empty, is sent as thinkingConfig.thinkingLevel
	// ("low", "high"; Gemini 3 models).
	ThinkingLevel string
	// IncludeThoughts asks for thought summaries, which arrive as
	// [llm.EventReasoning] events and in [llm.Message.Reasoning].
	IncludeThoughts bool
	// Header holds extra HTTP headers sent with every request.
	Header http.Header
	// Timeout bounds how long one attempt waits for the endpoint without
	// receiving anything: for the response headers, and then between the
	// pieces of a streamed reply. Zero means [DefaultTimeout].
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried when retrying may
	// help: 429 RESOURCE_EXHAUSTED, server errors (5xx), 408, 409, timeouts
	// and connection failures, and only while nothing of the reply has been
	// passed to the event handler. Zero means [DefaultMaxRetries]; a
	// negative value means no retries.
	MaxRetries int
	// RetryBase is the wait before the first retry; it doubles with each
	// further retry, with jitter. Zero means [DefaultRetryBase].
	RetryBase time.Duration
	// MaxRetryWait caps one wait between attempts. A retry delay the
	// endpoint asks for (Retry-After, or google.rpc.RetryInfo in the error
	// body) is honoured up to this cap; when it asks for longer, the request
	// fails at once and the [llm.APIError] carries the wait in RetryAfter.
	// Zero means [DefaultMaxRetryWait].
	MaxRetryWait time.Duration
	// HTTPClient sends the requests. Nil means a client on
	// [http.DefaultTransport].
	HTTPClient *http.Client
	// Logger receives a line for each retry; a nil Logger discards them.
	Logger *slog.Logger
}

// Vertex selects Vertex AI and the project and location that serve the
// model.
type Vertex struct {
	// Project is the Google Cloud project id.
	Project string
	// Location is the region, such as "us-central1", or "global".
	Location string
}

// A Provider is an [llm.Provider] for Gemini models, on the Gemini API or
// Vertex AI. It is safe for concurrent use.
type Provider struct {
	cfg  Config
	base *url.URL // the API root with the version, without a trailing slash
	wire *wire.Client
	// enc keeps the encoding of the contents and tool lists a
	// conversation sends again each round (see request.go).
	enc wire.EncodeCache
	// recent keeps the last request's messages, so that the next round of
	// a conversation finds their encodings by comparing them rather than
	// hashing them.
	recent wire.Recent
}

// New returns a provider for cfg. It reads GEMINI_API_KEY, then
// GOOGLE_API_KEY, when cfg.APIKey is empty, and fails with an error
// wrapping [ErrNoKey] when there is no key for the Gemini API. It fails
// when cfg.BaseURL is not an http or https URL, or when cfg.Vertex lacks
// its project, location or cfg.TokenSource.
func New(cfg Config) (*Provider, error) {
	keyVar := KeyVar
	if cfg.Vertex == nil && cfg.APIKey == "" {
		cfg.APIKey = os.Getenv(KeyVar)
		if strings.TrimSpace(cfg.APIKey) == "" {
			cfg.APIKey, keyVar = os.Getenv(FallbackKeyVar), FallbackKeyVar
		}
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey) // a key read from a file may end in a newline
	if cfg.Vertex == nil && cfg.APIKey == "" {
		return nil, fmt.Errorf("gemini: %w: set %s (or %s), or the API key in the configuration", ErrNoKey, KeyVar, FallbackKeyVar)
	}
	cfg.Header = cfg.Header.Clone()
	if cfg.Vertex != nil {
		v := *cfg.Vertex
		cfg.Vertex = &v
		switch {
		case v.Project == "" || v.Location == "":
			return nil, errors.New("gemini: Vertex AI needs the project and the location (such as us-central1 or global)")
		case cfg.TokenSource == nil:
			return nil, errors.New("gemini: Vertex AI needs Config.TokenSource, which returns an OAuth2 access token (for example from golang.org/x/oauth2/google.DefaultTokenSource with the cloud-platform scope)")
		}
	}
	base, err := baseURL(cfg)
	if err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, base: base}
	p.wire = wire.New(wire.Client{HTTP: cfg.HTTPClient, Endpoint: base.Redacted(), Key: cfg.APIKey, KeyVar: keyVar,
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, RetryBase: cfg.RetryBase, MaxRetryWait: cfg.MaxRetryWait,
		Log: cfg.Logger})
	p.wire.Inspect = p.inspectError
	if cfg.Vertex != nil {
		p.wire.KeyVar = "the Vertex AI credentials"
	}
	return p, nil
}

// baseURL returns the root that "/models/{model}:..." is appended to.
func baseURL(cfg Config) (*url.URL, error) {
	raw := strings.TrimSpace(cfg.BaseURL)
	if raw == "" {
		raw = DefaultBaseURL
		if v := cfg.Vertex; v != nil {
			raw = "https://" + v.Location + "-aiplatform.googleapis.com"
			if v.Location == "global" {
				raw = "https://aiplatform.googleapis.com"
			}
		}
	}
	base, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("gemini: base URL %q: %w", cfg.BaseURL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("gemini: base URL %q is not an http or https URL such as %s", cfg.BaseURL, DefaultBaseURL)
	}
	base.RawPath, base.RawQuery, base.Fragment = "", "", ""
	path := strings.TrimSuffix(base.Path, "/")
	if v := cfg.Vertex; v != nil {
		path += "/v1/projects/" + url.PathEscape(v.Project) + "/locations/" + url.PathEscape(v.Location) + "/publishers/google"
	} else if !strings.HasSuffix(path, "/v1beta") && !strings.HasSuffix(path, "/v1") && !strings.HasSuffix(path, "/v1alpha") {
		path += "/v1beta"
	}
	base.Path = path
	return base, nil
}

// modelURL returns the streaming endpoint for model.
func (p *Provider) modelURL(model string) string {
	u := *p.base
	u.Path += "/models/" + model + ":streamGenerateContent"
	u.RawQuery = "alt=sse"
	return u.String()
}

// Endpoint returns the URL requests for [Config.Model] are sent to (with
// "{model}" when there is none), with any user information redacted.
func (p *Provider) Endpoint() string {
	model := modelName(p.cfg.Model)
	if model == "" {
		return p.base.Redacted() + "/models/{model}:streamGenerateContent?alt=sse"
	}
	u, err := url.Parse(p.modelURL(model))
	if err != nil {
		return p.base.Redacted()
	}
	return u.Redacted()
}

// modelName drops the "models/" prefix the API's model list uses.
func modelName(m string) string {
	return strings.TrimPrefix(strings.TrimSpace(m), "models/")
}

// Stream sends req to streamGenerateContent and assembles the reply; see
// [llm.Provider]. Failed attempts are retried as [Config] describes.
// Errors are an [*llm.APIError] when the endpoint failed or could not be
// reached, wrap [llm.ErrBlocked] when the prompt or the reply was blocked
// (safety, recitation, blocklists), wrap [llm.ErrProtocol] when the reply
// broke the protocol or the model produced a malformed function call, and
// are ctx.Err() when ctx ended first.
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
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.modelURL(c.model), c.body.Reader())
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	// What NewRequest sets for a body in one piece.
	hreq.ContentLength = int64(c.body.Len())
	hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(c.body.Reader()), nil }
	for k, v := range p.cfg.Header {
		hreq.Header[k] = v
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream, application/json")
	if p.cfg.Vertex != nil {
		token, err := p.cfg.TokenSource(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("gemini: Vertex AI access token: %w", err)
		}
		hreq.Header.Set("Authorization", "Bearer "+strings.TrimSpace(token))
	} else {
		hreq.Header.Set("X-Goog-Api-Key", p.cfg.APIKey)
	}
	reply, err := p.wire.Send(ctx, hreq, func(status int) string { return p.statusHint(status, c.model) })
	if err != nil {
		return nil, err
	}
	defer reply.Close()
	mediaType, _, _ := mime.ParseMediaType(reply.Response.Header.Get("Content-Type"))
	var resp *llm.Response
	if mediaType == "application/json" || startsJSON(reply.Body) {
		resp, err = readResponse(reply.Body, c.names, handle)
	} else {
		resp, err = readStream(reply.Body, c.names, handle)
	}
	if err != nil {
		if errors.Is(err, errNoEvents) {
			return nil, fmt.Errorf("%w: %s answered with no stream events (Content-Type %q); is that the Gemini API?",
				llm.ErrProtocol, p.Endpoint(), reply.Response.Header.Get("Content-Type"))
		}
		return nil, reply.Err(err)
	}
	return resp, nil
}

// startsJSON reports whether r's next byte other than white space starts a
// JSON object or array: a whole reply (streamGenerateContent without
// alt=sse answers with an array), since no event stream starts that way.
func startsJSON(r *bufio.Reader) bool {
	for {
		b, err := r.ReadByte()
		if err != nil {
			return false
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			r.UnreadByte()
			return b == '{' || b == '['
		}
	}
}
