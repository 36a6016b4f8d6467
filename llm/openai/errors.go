package openai

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/llm"
)

// statusError returns the [*llm.APIError] for an error status. body is the
// start of the response body.
func (p *Provider) statusError(res *http.Response, body []byte, model string) error {
	e := &llm.APIError{Status: res.StatusCode, Message: errorMessage(body), RetryAfter: retryAfter(res.Header, time.Now())}
	switch res.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		if p.cfg.APIKey == "" {
			e.Message = joinMessage(e.Message, fmt.Sprintf("no API key was sent to %s; set OPENAI_API_KEY or the configured API key", p.Endpoint()))
		} else {
			e.Message = joinMessage(e.Message, fmt.Sprintf("check OPENAI_API_KEY or the configured API key: %s did not accept it", p.Endpoint()))
		}
	case http.StatusNotFound:
		e.Message = joinMessage(e.Message, fmt.Sprintf("the model %q or the base URL is wrong (the request went to %s; the base URL usually ends in /v1)", model, p.Endpoint()))
	case http.StatusTooManyRequests:
		e.Message = joinMessage(e.Message, "rate limited or out of quota")
	default:
		if res.StatusCode >= 500 {
			e.Message = joinMessage(e.Message, fmt.Sprintf("the server at %s failed", p.Endpoint()))
		}
	}
	return p.redact(e)
}

// errorMessage extracts the error text from an error response body, without
// a final period. It understands OpenAI's {"error": {"message": ...}}, the
// {"error": "..."} that Ollama and others send, a top-level "message" or
// "detail", and plain text.
func errorMessage(body []byte) string {
	return strings.TrimSuffix(strings.TrimSpace(bodyMessage(body)), ".")
}

func bodyMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			if v.Message != "" && v.Message != s {
				return s + ": " + v.Message
			}
			return s
		}
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		if v.Message != "" {
			return v.Message
		}
		if json.Unmarshal(v.Detail, &s) == nil && s != "" {
			return s
		}
	}
	return clip(strings.TrimSpace(string(body)), 500)
}

// streamError returns the [*llm.APIError] for an error object sent inside a
// stream. The status is the object's numeric code when it is an HTTP
// status, else 500: the endpoint accepted the request and failed while
// answering it.
func streamError(raw []byte) *llm.APIError {
	e := &llm.APIError{Status: http.StatusInternalServerError}
	var obj struct {
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
	}
	var s string
	switch {
	case json.Unmarshal(raw, &s) == nil:
		e.Message = s
	case json.Unmarshal(raw, &obj) == nil:
		e.Message = obj.Message
		for _, c := range []json.RawMessage{obj.Code, obj.Status} {
			if n, err := strconv.Atoi(string(c)); err == nil && n >= 400 && n <= 599 {
				e.Status = n
				break
			}
		}
	}
	if e.Message == "" {
		e.Message = clip(string(raw), 500)
	}
	e.Message = "error in the reply stream: " + e.Message
	return e
}

// retryAfter returns the wait the endpoint asks for in the retry-after-ms or
// Retry-After header, or 0.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < math.MaxInt64/float64(time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < math.MaxInt64/float64(time.Second) {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}
