package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
)

// An Embedder turns texts into vectors whose cosine similarity measures
// how close their meanings are. Embed returns one vector per text, in
// order; the caller owns texts and the result. It may be called
// concurrently.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// HTTPEmbedder is an [Embedder] on an OpenAI-compatible embeddings
// endpoint: POST BaseURL/embeddings with {"model", "input": [...]},
// answered with {"data": [{"index", "embedding"}]}. It is safe for
// concurrent use.
type HTTPEmbedder struct {
	// BaseURL is the API's base, such as https://api.openai.com/v1.
	BaseURL string
	// Model names the embedding model.
	Model string
	// APIKey, if not empty, is sent as a bearer token.
	APIKey string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
}

// maxErrorBody is how much of an error response is quoted.
const maxErrorBody = 512

// Embed implements [Embedder].
func (e *HTTPEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"model": e.Model, "input": texts})
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	url := strings.TrimSuffix(e.BaseURL, "/") + "/embeddings"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, fmt.Errorf("embeddings: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("embeddings: decode the response: %w", err)
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, fmt.Errorf("embeddings: the response has index %d for %d inputs", d.Index, len(texts))
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("embeddings: the response has no embedding for input %d", i)
		}
	}
	return vecs, nil
}

// cosine returns the cosine similarity of a and b, or 0 when their
// lengths differ or one is zero.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

var errEmbedCount = errors.New("the embedder returned the wrong number of vectors")
