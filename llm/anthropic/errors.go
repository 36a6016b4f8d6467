package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/internal/wire"
)

// statusHint is what an error status adds to the generic advice: where a
// 404 went.
func (p *Provider) statusHint(status int, model string) string {
	if status == http.StatusNotFound {
		return fmt.Sprintf("the model %q or the base URL is wrong (the request went to %s)", model, p.Endpoint())
	}
	return ""
}

// errorStatus maps the API's error types to the HTTP statuses it sends
// them with, so that [llm.APIError.Temporary] judges an error event as it
// would the same error sent as a status.
var errorStatus = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"billing_error":         402,
	"permission_error":      403,
	"not_found_error":       404,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"timeout_error":         504,
	"overloaded_error":      529,
}

// errorObject returns the [*llm.APIError] for an error object
// ({"type": "error", "error": {"type": ..., "message": ...}}) sent in a
// stream or as a whole reply, and false when data is not one.
func errorObject(data []byte) (*llm.APIError, bool) {
	var v struct {
		Type  string `json:"type"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || v.Error == nil || v.Type != "error" && v.Type != "" {
		return nil, false
	}
	status, ok := errorStatus[v.Error.Type]
	if !ok {
		status = 500
	}
	msg := strings.TrimSuffix(strings.TrimSpace(v.Error.Message), ".")
	switch {
	case msg == "" && v.Error.Type == "":
		msg = wire.Clip(string(data), 500)
	case msg == "":
		msg = v.Error.Type
	case v.Error.Type != "":
		msg += " (" + v.Error.Type + ")"
	}
	return &llm.APIError{Status: status, Message: "error in the reply: " + msg}, true
}
