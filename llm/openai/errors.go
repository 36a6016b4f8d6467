package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// statusHint is what an error status adds to the generic advice: where a
// 404 went.
func (p *Provider) statusHint(status int, model string) string {
	if status == http.StatusNotFound && p.cfg.API == Responses {
		return fmt.Sprintf("the model %q or the base URL is wrong, or the server does not speak the Responses API (the request went to %s; the base URL usually ends in /v1; compatible servers often speak only chat completions)", model, p.Endpoint())
	}
	if status == http.StatusNotFound {
		return fmt.Sprintf("the model %q or the base URL is wrong (the request went to %s; the base URL usually ends in /v1)", model, p.Endpoint())
	}
	return ""
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
		e.Message = wire.Clip(string(raw), 500)
	}
	e.Message = "error in the reply stream: " + e.Message
	return e
}
