package wire

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorMessage extracts the error text from an error response body, without
// a final period. It understands {"error": {"message": ...}} (OpenAI,
// Anthropic, Gemini), the {"error": "..."} that Ollama and others send, a
// top-level "message" or "detail", and plain text.
func ErrorMessage(body []byte) string {
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
	return Clip(strings.TrimSpace(string(body)), 500)
}

// RetryAfter returns the wait the endpoint asks for in the retry-after-ms or
// Retry-After header, or 0.
func RetryAfter(h http.Header, now time.Time) time.Duration {
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
