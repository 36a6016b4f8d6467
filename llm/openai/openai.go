package openai

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
const DefaultBaseURL = "https://api.openai.com/v1"

// An API is one of the two OpenAI APIs a [Provider] can speak.
type API int

// The APIs. The zero value is chat completions, which every
// OpenAI-compatible server speaks.
const (
	// ChatCompletions is POST {BaseURL}/chat/completions, spoken by OpenAI
	// and by Ollama, vLLM, LM Studio, OpenRouter and the other compatible
	// servers.
	ChatCompletions API = iota
	// Responses is POST {BaseURL}/responses, OpenAI's newer API, which
	// keeps a reasoning model's reasoning between rounds (see the package
	// documentation).
	Responses
)

// String returns "chat completions" or "responses".
func (a API) String() string {
	switch a {
	case ChatCompletions:
		return "chat completions"
	case Responses:
		return "responses"
	}
	return fmt.Sprintf("API(%d)", int(a))
}

// The defaults for zero [Config] fields.
const (
	DefaultTimeout      = wire.DefaultTimeout
	DefaultMaxRetries   = wire.DefaultMaxRetries
	DefaultRetryBase    = wire.DefaultRetryBase
	DefaultMaxRetryWait = wire.DefaultMaxRetryWait
)

// Config configures a [Provider]. Its zero value talks to OpenAI with the key
// in OPENAI_API_KEY and the documented defaults.
type Config struct {
	// API selects the API: [ChatCompletions] (the zero value) or
	// [Responses].
	API API
	// BaseURL is the API root that "/chat/completions" (or "/responses")
	// is appended to, such as "http://localhost:11434/v1" for Ollama. Empty means
	// [DefaultBaseURL]. The OPENAI_BASE_URL variable is not read: callers
	// that honour it pass it here.
	BaseURL string
	// APIKey is sent as a bearer token. Empty means the OPENAI_API_KEY
	// environment variable, read by [New], unless NoKey is set; when that
	// is empty too, no Authorization header is sent, which local servers
	// accept. The key is never logged and is removed from error messages.
	APIKey string
	// NoKey sends no key at all and leaves OPENAI_API_KEY unread: for a
	// local or third-party server that must never see an OpenAI key.
	NoKey bool
	// Model is used for requests that name no model.
	Model string
	// Header holds extra HTTP headers sent with every request, such as
	// OpenRouter's "HTTP-Referer" and "X-Title".
	Header http.Header
	// Timeout bounds how long one attempt waits for the endpoint without
	// receiving anything: for the response headers, and then between the
	// pieces of a streamed reply. A long reply that keeps streaming is
	// never cut off. Zero means [DefaultTimeout].
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried when retrying may
	// help: rate limits (429), server errors (5xx), 408, 409, timeouts and
	// connection failures, and only while nothing of the reply has been
	// passed to the event handler. Zero means [DefaultMaxRetries]; a
	// negative value means no retries.
	MaxRetries int
	// RetryBase is the wait before the first retry; it doubles with each
	// further retry, with random jitter of up to half of it. Zero means
	// [DefaultRetryBase].
	RetryBase time.Duration
	// MaxRetryWait caps one wait between attempts. A Retry-After the
	// endpoint asks for is honoured up to this cap; when it asks for longer,
	// the request fails at once and the [llm.APIError] carries the wait in
	// RetryAfter. Zero means [DefaultMaxRetryWait].
	MaxRetryWait time.Duration
	// NoStream makes requests ask for the whole reply at once ("stream":
	// false). Events are then delivered after the reply arrived. It serves
	// servers that cannot stream tool calls.
	NoStream bool
	// ReasoningEffort asks a reasoning model to think less or more:
	// "minimal", "low", "medium", "high" and so on, as the model accepts.
	// It is sent as reasoning.effort to the Responses API and as
	// reasoning_effort to chat completions. Empty sends nothing: the
	// model's default.
	ReasoningEffort string
	// ReasoningSummary asks the Responses API for a summary of the
	// reasoning ("auto", "concise" or "detailed"), delivered as
	// [llm.EventReasoning] and kept in the [llm.Thinking] blocks. Empty
	// asks for none. Chat completions ignore it.
	ReasoningSummary string
	// PreviousResponseID makes the Responses API keep the conversation on
	// OpenAI's servers: responses are stored ("store": true), and a request
	// whose last assistant message came from a stored response of this
	// package sends only the items after it, with previous_response_id.
	// Off by default: each request carries the whole conversation, with
	// the encrypted reasoning, and nothing is stored. Chat completions
	// ignore it.
	PreviousResponseID bool
	// HTTPClient sends the requests. Nil means a client on
	// [http.DefaultTransport]. Its Timeout, if set, bounds whole streams;
	// prefer [Config.Timeout].
	HTTPClient *http.Client
	// Logger receives a line for each retry; a nil Logger discards them.
	Logger *slog.Logger
}

// A Provider is an [llm.Provider] for OpenAI's chat completions API and the
// servers that speak it. It is safe for concurrent use.
type Provider struct {
	cfg      Config
	endpoint *url.URL // BaseURL + /chat/completions or /responses
	wire     *wire.Client
	// openAI reports whether the endpoint is OpenAI's own, which wants
	// max_completion_tokens instead of max_tokens.
	openAI bool
	// enc keeps the encoding of the messages and tool lists a
	// conversation sends again each round (see request.go).
	enc wire.EncodeCache
	// recent keeps the last chat completions request's messages, so that
	// the next round of a conversation finds their encodings by comparing
	// them rather than hashing them.
	recent wire.Recent
}

// New returns a provider for cfg. It reads OPENAI_API_KEY when cfg.APIKey
// is empty and cfg.NoKey is not set, and fails when cfg.BaseURL is not an http or https URL.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	switch {
	case cfg.NoKey:
		cfg.APIKey = ""
	case cfg.APIKey == "":
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey) // a key read from a file may end in a newline
	cfg.Header = cfg.Header.Clone()
	base, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("openai: base URL %q: %w", cfg.BaseURL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http or https URL such as %s or http://localhost:11434/v1", cfg.BaseURL, DefaultBaseURL)
	}
	path := "/chat/completions"
	switch cfg.API {
	case ChatCompletions:
	case Responses:
		path = "/responses"
	default:
		return nil, fmt.Errorf("openai: unknown API %d; use openai.ChatCompletions or openai.Responses", int(cfg.API))
	}
	endpoint := *base
	endpoint.Path = strings.TrimSuffix(endpoint.Path, "/") + path
	endpoint.RawPath = ""
	p := &Provider{cfg: cfg, endpoint: &endpoint, openAI: strings.EqualFold(base.Hostname(), "api.openai.com")}
	p.wire = wire.New(wire.Client{HTTP: cfg.HTTPClient, Endpoint: endpoint.Redacted(), Key: cfg.APIKey, KeyVar: "OPENAI_API_KEY",
		Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, RetryBase: cfg.RetryBase, MaxRetryWait: cfg.MaxRetryWait, Log: cfg.Logger})
	return p, nil
}

// Endpoint returns the URL requests are sent to, with any user information
// redacted.
func (p *Provider) Endpoint() string { return p.endpoint.Redacted() }

// Stream sends req to the endpoint of the configured API and assembles the reply;
// see [llm.Provider]. Failed attempts are retried as [Config] describes.
// Errors are an [*llm.APIError] when the endpoint failed or could not be
// reached, wrap [llm.ErrProtocol] when its reply broke the protocol, and
// are ctx.Err() when ctx ended first.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	build := p.buildRequest
	if p.cfg.API == Responses {
		build = p.buildResponsesRequest
	}
	c, err := build(req)
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
		return nil, fmt.Errorf("openai: %w", err)
	}
	// What NewRequest sets for a body in one piece.
	hreq.ContentLength = int64(c.body.Len())
	hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(c.body.Reader()), nil }
	for k, v := range p.cfg.Header {
		hreq.Header[k] = v
	}
	hreq.Header.Set("Content-Type", "application/json")
	if p.cfg.NoStream {
		hreq.Header.Set("Accept", "application/json")
	} else {
		hreq.Header.Set("Accept", "text/event-stream, application/json")
	}
	if p.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	}
	reply, err := p.wire.Send(ctx, hreq, func(status int) string { return p.statusHint(status, c.model) })
	if err != nil {
		return nil, err
	}
	defer reply.Close()
	r := reply.Body
	mediaType, _, _ := mime.ParseMediaType(reply.Response.Header.Get("Content-Type"))
	var resp *llm.Response
	whole := mediaType == "application/json" || p.cfg.NoStream && mediaType != "text/event-stream" || wire.StartsJSON(r)
	switch {
	case p.cfg.API == Responses && whole:
		resp, err = readResponsesWhole(r, c.names, handle)
	case p.cfg.API == Responses:
		resp, err = readResponsesStream(r, c.names, handle)
	case whole:
		resp, err = readResponse(r, c.names, handle)
	default:
		resp, err = readStream(r, c.names, handle)
	}
	if err == nil && p.cfg.API == Responses && p.cfg.PreviousResponseID && resp.ID != "" {
		// Remember the stored response, so the next request can name it.
		resp.Message.Thinking = append(resp.Message.Thinking, llm.Thinking{Provider: providerName, ID: resp.ID, Signature: ResponseMarker})
	}
	if err != nil {
		if errors.Is(err, errNoEvents) && p.cfg.API == Responses {
			return nil, fmt.Errorf("%w: %s answered with no stream events (Content-Type %q); does it speak OpenAI's Responses API? Compatible servers often speak only chat completions",
				llm.ErrProtocol, p.Endpoint(), reply.Response.Header.Get("Content-Type"))
		}
		if errors.Is(err, errNoEvents) {
			return nil, fmt.Errorf("%w: %s answered with no stream events (Content-Type %q); is that an OpenAI-compatible API?",
				llm.ErrProtocol, p.Endpoint(), reply.Response.Header.Get("Content-Type"))
		}
		return nil, reply.Err(err)
	}
	return resp, nil
}
