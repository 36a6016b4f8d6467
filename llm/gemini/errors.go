package gemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// rpcStatus is the error object of Google APIs (google.rpc.Status), in
// error bodies and inside a stream.
type rpcStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type string `json:"@type"`
		// RetryDelay is google.rpc.RetryInfo's wait, such as "30s".
		RetryDelay string `json:"retryDelay"`
		// Reason is google.rpc.ErrorInfo's reason, such as
		// "API_KEY_INVALID".
		Reason string `json:"reason"`
	} `json:"details"`
}

// retryDelay returns the wait a RetryInfo detail asks for, or 0.
func (s *rpcStatus) retryDelay() time.Duration {
	for _, d := range s.Details {
		if d.RetryDelay == "" {
			continue
		}
		if wait, err := time.ParseDuration(strings.TrimSpace(d.RetryDelay)); err == nil && wait > 0 {
			return wait
		}
	}
	return 0
}

// hasReason reports whether an ErrorInfo detail gives reason.
func (s *rpcStatus) hasReason(reason string) bool {
	for _, d := range s.Details {
		if d.Reason == reason {
			return true
		}
	}
	return false
}

// apiError returns the [*llm.APIError] for an error object sent inside a
// stream. The status is the object's code when it is an HTTP error
// status, else 500: the endpoint accepted the request and failed while
// answering it.
func (s *rpcStatus) apiError(prefix string) *llm.APIError {
	e := &llm.APIError{Status: http.StatusInternalServerError, RetryAfter: s.retryDelay()}
	if s.Code >= 400 && s.Code <= 599 {
		e.Status = s.Code
	}
	msg := strings.TrimSuffix(strings.TrimSpace(s.Message), ".")
	if msg == "" {
		msg = "no message"
	}
	if s.Status != "" && !strings.Contains(msg, s.Status) {
		msg += " (" + s.Status + ")"
	}
	e.Message = prefix + wire.Clip(msg, 500)
	return e
}

// parseStatus reads the error object of an error body: {"error": {...}},
// or the same inside the array a non-SSE stream answers with.
func parseStatus(body []byte) *rpcStatus {
	var v struct {
		Error *rpcStatus `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && v.Error != nil {
		return v.Error
	}
	var vs []struct {
		Error *rpcStatus `json:"error"`
	}
	if json.Unmarshal(body, &vs) == nil && len(vs) > 0 && vs[0].Error != nil {
		return vs[0].Error
	}
	return nil
}

// inspectError completes the [*llm.APIError] of an error status from
// its body: the retry delay of google.rpc.RetryInfo when no Retry-After
// header gave one, the status name (RESOURCE_EXHAUSTED), and advice for
// a key the API rejected with 400 rather than 401.
func (p *Provider) inspectError(e *llm.APIError, body []byte) {
	s := parseStatus(body)
	if s == nil {
		return
	}
	if e.RetryAfter == 0 {
		e.RetryAfter = s.retryDelay()
	}
	if e.Message == "" && s.Message != "" {
		e.Message = wire.Clip(s.Message, 500)
	}
	if s.Status != "" && !strings.Contains(e.Message, s.Status) {
		e.Message = s.Status + ": " + e.Message
	}
	if s.hasReason("API_KEY_INVALID") && e.Status == http.StatusBadRequest {
		e.Message = wire.JoinMessage(e.Message, fmt.Sprintf("check %s or the configured API key", p.wire.KeyVar))
	}
}

// statusHint is what an error status adds to the generic advice: where a
// 404 went.
func (p *Provider) statusHint(status int, model string) string {
	if status == http.StatusNotFound {
		return fmt.Sprintf("the model %q or the base URL is wrong (the request went to %s)", model, p.redactedURL(model))
	}
	return ""
}

// redactedURL is the URL for model without user information.
func (p *Provider) redactedURL(model string) string {
	u := *p.base
	u.Path += "/models/" + model + ":streamGenerateContent"
	return u.Redacted()
}
