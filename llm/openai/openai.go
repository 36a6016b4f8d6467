package openai

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
)

// DefaultBaseURL is the API root used when [Config.BaseURL] is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// The defaults for zero [Config] fields.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultMaxRetries   = 2
	DefaultRetryBase    = time.Second
	DefaultMaxRetryWait = time.Minute
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// maxResponseBody bounds a non-streamed response and one streamed event.
const maxResponseBody = 64 << 20

// Config configures a [Provider]. Its zero value talks to OpenAI with the key
// in OPENAI_API_KEY and the documented defaults.
type Config struct {
	// BaseURL is the API root that "/chat/completions" is appended to, such
	// as "http://localhost:11434/v1" for Ollama. Empty means
	// [DefaultBaseURL]. The OPENAI_BASE_URL variable is not read: callers
	// that honour it pass it here.
	BaseURL string
	// APIKey is sent as a bearer token. Empty means the OPENAI_API_KEY
	// environment variable, read by [New]; when that is empty too, no
	// Authorization header is sent, which local servers accept. The key is
	// never logged and is removed from error messages.
	APIKey string
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
	endpoint *url.URL // BaseURL + /chat/completions
	client   *http.Client
	log      *slog.Logger
	// openAI reports whether the endpoint is OpenAI's own, which wants
	// max_completion_tokens instead of max_tokens.
	openAI bool
}

// New returns a provider for cfg. It reads OPENAI_API_KEY when cfg.APIKey
// is empty, and fails when cfg.BaseURL is not an http or https URL.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey) // a key read from a file may end in a newline
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultRetryBase
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	cfg.Header = cfg.Header.Clone()
	base, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("openai: base URL %q: %w", cfg.BaseURL, err)
	}
	if base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http or https URL such as %s or http://localhost:11434/v1", cfg.BaseURL, DefaultBaseURL)
	}
	endpoint := *base
	endpoint.Path = strings.TrimSuffix(endpoint.Path, "/") + "/chat/completions"
	endpoint.RawPath = ""
	p := &Provider{cfg: cfg, endpoint: &endpoint, client: cfg.HTTPClient, log: cfg.Logger,
		openAI: strings.EqualFold(base.Hostname(), "api.openai.com")}
	if p.client == nil {
		p.client = &http.Client{}
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p, nil
}

// Endpoint returns the URL requests are sent to, with any user information
// redacted.
func (p *Provider) Endpoint() string { return p.endpoint.Redacted() }

// Stream sends req to the chat completions endpoint and assembles the reply;
// see [llm.Provider]. Failed attempts are retried as [Config] describes.
// Errors are an [*llm.APIError] when the endpoint failed or could not be
// reached, wrap [llm.ErrProtocol] when its reply broke the protocol, and
// are ctx.Err() when ctx ended first.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	c, err := p.buildRequest(req)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	delivered := false
	h := func(e llm.Event) {
		delivered = true
		if handle != nil {
			handle(e)
		}
	}
	for attempt := 0; ; attempt++ {
		resp, err := p.attempt(ctx, c, h)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		apiErr, ok := errors.AsType[*llm.APIError](err)
		if !ok || !apiErr.Temporary() || delivered {
			return nil, err
		}
		if attempt >= p.cfg.MaxRetries {
			if attempt > 0 {
				addNote(apiErr, fmt.Sprintf("gave up after %d attempts", attempt+1))
			}
			return nil, apiErr
		}
		wait := p.backoff(attempt)
		if apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > p.cfg.MaxRetryWait {
				addNote(apiErr, fmt.Sprintf("the endpoint asks to wait %v, longer than the %v allowed", apiErr.RetryAfter, p.cfg.MaxRetryWait))
				return nil, apiErr
			}
			wait = apiErr.RetryAfter
		}
		p.log.LogAttrs(ctx, slog.LevelWarn, "model call failed; retrying",
			slog.String("endpoint", p.Endpoint()), slog.Int("attempt", attempt+1),
			slog.Int("status", apiErr.Status), slog.Duration("wait", wait), slog.String("error", apiErr.Error()))
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// backoff returns the wait before retry number attempt+1.
func (p *Provider) backoff(attempt int) time.Duration {
	d := p.cfg.RetryBase << min(attempt, 20)
	if d <= 0 || d > p.cfg.MaxRetryWait {
		d = p.cfg.MaxRetryWait
	}
	return d/2 + rand.N(d/2+1)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt makes one request and reads its reply.
func (p *Provider) attempt(ctx context.Context, c *call, handle func(llm.Event)) (*llm.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := &idleTimer{d: p.cfg.Timeout}
	idle.t = time.AfterFunc(p.cfg.Timeout, func() { cancel(idle.err()) })
	defer idle.t.Stop()

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint.String(), bytes.NewReader(c.body))
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
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
	res, err := p.client.Do(hreq)
	if err != nil {
		return nil, p.transportError(ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		return nil, p.statusError(res, data, c.model)
	}
	r := bufio.NewReader(&idleReader{r: res.Body, t: idle})
	mediaType, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	var resp *llm.Response
	if mediaType == "application/json" || p.cfg.NoStream && mediaType != "text/event-stream" || startsJSON(r) {
		resp, err = readResponse(r, c.names, handle)
	} else {
		resp, err = readStream(r, c.names, handle)
	}
	if err != nil {
		if errors.Is(err, errNoEvents) {
			return nil, fmt.Errorf("%w: %s answered with no stream events (Content-Type %q); is that an OpenAI-compatible API?",
				llm.ErrProtocol, p.Endpoint(), res.Header.Get("Content-Type"))
		}
		if _, ok := errors.AsType[*llm.APIError](err); ok || errors.Is(err, llm.ErrProtocol) {
			return nil, p.redact(err)
		}
		return nil, p.transportError(ctx, err)
	}
	return resp, nil
}

// transportError turns a failure to reach the endpoint or to read from it
// into an error: ctx's own error when the caller gave up, else an
// [*llm.APIError] with status 0.
func (p *Provider) transportError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		if _, ok := errors.AsType[*idleTimeoutError](cause); ok {
			err = cause
		} else if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return ctx.Err()
		}
	}
	if _, ok := errors.AsType[*url.Error](err); !ok {
		err = fmt.Errorf("%s: %w", p.Endpoint(), err)
	}
	return &llm.APIError{Err: err}
}

// redact removes the API key from err's message.
func (p *Provider) redact(err error) error {
	if p.cfg.APIKey == "" || !strings.Contains(err.Error(), p.cfg.APIKey) {
		return err
	}
	if e, ok := errors.AsType[*llm.APIError](err); ok {
		e.Message = strings.ReplaceAll(e.Message, p.cfg.APIKey, "[redacted]")
		if e.Err != nil && strings.Contains(e.Err.Error(), p.cfg.APIKey) {
			e.Err = errors.New(strings.ReplaceAll(e.Err.Error(), p.cfg.APIKey, "[redacted]"))
		}
		return e
	}
	return errors.New(strings.ReplaceAll(err.Error(), p.cfg.APIKey, "[redacted]"))
}

// startsJSON reports whether r's next byte other than white space is '{':
// a whole JSON reply, whatever the Content-Type says, since no event stream
// starts that way. It consumes the white space.
func startsJSON(r *bufio.Reader) bool {
	for {
		b, err := r.ReadByte()
		if err != nil {
			return false
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			r.UnreadByte()
			return b == '{'
		}
	}
}

// idleTimer fires when an attempt has received nothing for d.
type idleTimer struct {
	d time.Duration
	t *time.Timer
}

func (t *idleTimer) err() error { return &idleTimeoutError{d: t.d} }

// idleTimeoutError is the cause of an attempt cancelled by its idleTimer.
type idleTimeoutError struct{ d time.Duration }

func (e *idleTimeoutError) Error() string {
	return fmt.Sprintf("no answer for %v (the timeout)", e.d)
}

// idleReader restarts its timer whenever data arrives.
type idleReader struct {
	r io.Reader
	t *idleTimer
}

func (r *idleReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.t.t.Reset(r.t.d)
	}
	return n, err
}

// addNote appends note to what e's Error method prints.
func addNote(e *llm.APIError, note string) {
	if e.Status == 0 && e.Err != nil {
		e.Err = fmt.Errorf("%w; %s", e.Err, note)
		return
	}
	e.Message = joinMessage(e.Message, note)
}

// joinMessage appends note to msg.
func joinMessage(msg, note string) string {
	if msg == "" {
		return note
	}
	return msg + "; " + note
}
