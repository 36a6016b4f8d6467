package anthropic

import (
	"fmt"
	"net/http"
)

// statusHint is what an error status adds to the generic advice: where a
// 404 went.
func (p *Provider) statusHint(status int, model string) string {
	if status == http.StatusNotFound {
		return fmt.Sprintf("the model %q or the base URL is wrong (the request went to %s)", model, p.Endpoint())
	}
	return ""
}
