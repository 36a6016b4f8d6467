// Package wire is the HTTP plumbing every wield provider shares: one
// attempt under an idle timeout, retries with backoff that honour
// Retry-After, a server-sent events reader, and error bodies turned into
// [llm.APIError]s whose messages say what to check.
//
// Provider packages build their requests and read their replies; a
// [Client] sends them, retries what may succeed on a second try, and keeps
// the API key out of every error.
package wire

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/wieldhq/wield/internal/redact"
	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/llm"
)

// The defaults every provider documents for its zero Config fields.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultMaxRetries   = 2
	DefaultRetryBase    = time.Second
	DefaultMaxRetryWait = time.Minute
)

// New returns c with its zero settings given the defaults: Timeout,
// RetryBase and MaxRetryWait when not positive, MaxRetries when zero (a
// negative MaxRetries means none), so that a provider passes its Config's
// fields as they are.
func New(c Client) *Client {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.RetryBase <= 0 {
		c.RetryBase = DefaultRetryBase
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = DefaultMaxRetryWait
	}
	return &c
}

// MaxErrorBody bounds how much of an error response is read.
const MaxErrorBody = 64 << 10

// MaxResponseBody bounds a non-streamed response and one streamed event.
const MaxResponseBody = 64 << 20

// A Client sends a provider's requests. Its fields are set by the provider's
// constructor from the provider's own config, through [New], which applies
// the defaults.
type Client struct {
	// HTTP sends the requests; nil means a client on
	// [http.DefaultTransport].
	HTTP *http.Client
	// Endpoint is the URL shown in messages and logs, already redacted.
	Endpoint string
	// Key is the API key; it is removed from every error message.
	Key string
	// KeyVar names the environment variable the key comes from, for
	// messages ("ANTHROPIC_API_KEY").
	KeyVar string
	// Timeout bounds each wait for the endpoint: for the response headers,
	// then between the pieces of a reply. It must be positive.
	Timeout time.Duration
	// MaxRetries is how often a temporary failure is retried.
	MaxRetries int
	// RetryBase is the first backoff; it doubles with each retry.
	RetryBase time.Duration
	// MaxRetryWait caps one wait; a longer Retry-After fails at once.
	MaxRetryWait time.Duration
	// Log receives a line for each retry; nil discards.
	Log *slog.Logger
	// Inspect, if not nil, is called by [Client.Send] with the
	// [*llm.APIError] of each error status and the start of the response
	// body, before the error is returned. It lets a provider read what its
	// error bodies carry beyond the message, such as Gemini's retry delay,
	// and set it on the error. It must not keep body.
	Inspect func(e *llm.APIError, body []byte)
}

// Do calls attempt until it succeeds, fails for good, or the retries are
// spent. An attempt's failure is retried when it is a temporary
// [*llm.APIError] and nothing of the reply has reached handle yet: a reply
// is never shown twice. The wait is Retry-After when the endpoint asks for
// one (up to MaxRetryWait), else exponential backoff with jitter.
func (c *Client) Do(ctx context.Context, handle func(llm.Event), attempt func(ctx context.Context, handle func(llm.Event)) (*llm.Response, error)) (*llm.Response, error) {
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
	for n := 0; ; n++ {
		resp, err := attempt(ctx, h)
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
		if n >= c.MaxRetries {
			if n > 0 {
				AddNote(apiErr, fmt.Sprintf("gave up after %d attempts", n+1))
			}
			return nil, apiErr
		}
		wait := c.backoff(n)
		if apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > c.MaxRetryWait {
				AddNote(apiErr, fmt.Sprintf("the endpoint asks to wait %v, longer than the %v allowed", apiErr.RetryAfter, c.MaxRetryWait))
				return nil, apiErr
			}
			wait = apiErr.RetryAfter
		}
		c.logger().LogAttrs(ctx, slog.LevelWarn, "model call failed; retrying",
			slog.String("endpoint", c.Endpoint), slog.Int("attempt", n+1),
			slog.Int("status", apiErr.Status), slog.Duration("wait", wait), slog.String("error", apiErr.Error()))
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) logger() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// backoff returns the wait before retry number n+1.
func (c *Client) backoff(n int) time.Duration {
	d := c.RetryBase << min(n, 20)
	if d <= 0 || d > c.MaxRetryWait {
		d = c.MaxRetryWait
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

// A Reply is an endpoint's successful answer to [Client.Send].
type Reply struct {
	// Response is the HTTP response; read its body through Body.
	Response *http.Response
	// Body reads the response body; every read restarts the idle timer.
	Body *bufio.Reader

	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *idleTimer
	c      *Client
}

// Close releases the reply's body and timer.
func (r *Reply) Close() {
	r.idle.t.Stop()
	r.Response.Body.Close()
	r.cancel(nil)
}

// Err turns an error met while reading the reply into the error the
// provider returns: API and protocol errors pass (with the key removed),
// the caller's cancellation is ctx's error, anything else is an
// [*llm.APIError] with status 0, which is retried.
func (r *Reply) Err(err error) error {
	if _, ok := errors.AsType[*llm.APIError](err); ok || errors.Is(err, llm.ErrProtocol) {
		return r.c.Redact(err)
	}
	return r.c.transportError(r.ctx, err)
}

// Send makes one HTTP request under the idle timeout. An error status is
// an [*llm.APIError] from [Client.StatusError] with hint's note added (hint
// may be nil); the caller then retries through [Client.Do]. On success
// the caller reads reply.Body and must Close the reply.
func (c *Client) Send(ctx context.Context, req *http.Request, hint func(status int) string) (*Reply, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	idle := &idleTimer{d: c.Timeout}
	idle.t = time.AfterFunc(c.Timeout, func() { cancel(idle.err()) })
	fail := func(err error) (*Reply, error) {
		idle.t.Stop()
		cancel(nil)
		return nil, err
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return fail(c.transportError(ctx, err))
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, MaxErrorBody))
		res.Body.Close()
		note := ""
		if hint != nil {
			note = hint(res.StatusCode)
		}
		err := c.StatusError(res, data, note)
		if e, ok := errors.AsType[*llm.APIError](err); ok && c.Inspect != nil {
			c.Inspect(e, data)
		}
		return fail(err)
	}
	r := &Reply{Response: res, ctx: ctx, cancel: cancel, idle: idle, c: c}
	r.Body = bufio.NewReader(&idleReader{r: res.Body, t: idle})
	return r, nil
}

// StatusError returns the [*llm.APIError] for an error status. body is the
// start of the response body; note, if not empty, is added to the message
// before the generic advice for the status.
func (c *Client) StatusError(res *http.Response, body []byte, note string) error {
	e := &llm.APIError{Status: res.StatusCode, Message: ErrorMessage(body), RetryAfter: RetryAfter(res.Header, time.Now())}
	if note != "" {
		e.Message = JoinMessage(e.Message, note)
	}
	keyVar := cmp.Or(c.KeyVar, "the API key variable")
	switch res.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if c.Key == "" {
			e.Message = JoinMessage(e.Message, fmt.Sprintf("no API key was sent to %s; set %s or the configured API key", c.Endpoint, keyVar))
		} else {
			e.Message = JoinMessage(e.Message, fmt.Sprintf("check %s or the configured API key: %s did not accept it", keyVar, c.Endpoint))
		}
	case http.StatusTooManyRequests:
		e.Message = JoinMessage(e.Message, "rate limited or out of quota")
	default:
		if res.StatusCode >= 500 {
			e.Message = JoinMessage(e.Message, fmt.Sprintf("the server at %s failed", c.Endpoint))
		}
	}
	return c.Redact(e)
}

// transportError turns a failure to reach the endpoint or to read from it
// into an error: ctx's own error when the caller gave up, else an
// [*llm.APIError] with status 0.
func (c *Client) transportError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		if _, ok := errors.AsType[*idleTimeoutError](cause); ok {
			err = cause
		} else if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return ctx.Err()
		}
	}
	if _, ok := errors.AsType[*url.Error](err); !ok {
		err = fmt.Errorf("%s: %w", c.Endpoint, err)
	}
	return c.Redact(&llm.APIError{Err: err})
}

// Redact removes the API key from err's message, replacing it with
// "[redacted]" by the rule of package internal/redact that wield's
// journal and logs follow too: a key of 8 bytes or more wherever it
// occurs, a shorter one (a placeholder such as "x" for a local server)
// only where it is a whole token, so that "script exhausted" stays as it
// is. An [*llm.APIError] keeps its type, status and, when it held no key,
// its wrapped error; any other error that holds the key becomes a plain
// error with the redacted message.
func (c *Client) Redact(err error) error {
	if c.Key == "" || err == nil || redact.Index(err.Error(), c.Key) < 0 {
		return err
	}
	keys := []string{c.Key}
	if e, ok := errors.AsType[*llm.APIError](err); ok {
		e.Message = redact.Replace(e.Message, keys, redactedKey)
		if e.Err != nil && redact.Index(e.Err.Error(), c.Key) >= 0 {
			e.Err = errors.New(redact.Replace(e.Err.Error(), keys, redactedKey))
		}
		return e
	}
	return errors.New(redact.Replace(err.Error(), keys, redactedKey))
}

// redactedKey stands for the API key in error messages.
const redactedKey = "[redacted]"

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

// StartsJSON reports whether r's next byte other than white space is '{':
// a whole JSON reply, whatever the Content-Type says, since no event
// stream starts that way. It consumes the white space.
func StartsJSON(r *bufio.Reader) bool {
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

// AddNote appends note to what e's Error method prints.
func AddNote(e *llm.APIError, note string) {
	if e.Status == 0 && e.Err != nil {
		e.Err = fmt.Errorf("%w; %s", e.Err, note)
		return
	}
	e.Message = JoinMessage(e.Message, note)
}

// JoinMessage appends note to msg.
func JoinMessage(msg, note string) string {
	if msg == "" {
		return note
	}
	return msg + "; " + note
}

// Clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}

// ReadAll reads a whole (non-streamed) reply, failing with
// [llm.ErrProtocol] past [MaxResponseBody].
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxResponseBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxResponseBody {
		return nil, fmt.Errorf("%w: the reply is longer than %d bytes", llm.ErrProtocol, MaxResponseBody)
	}
	return bytes.TrimSpace(data), nil
}
