package memory

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// concepts are the dimensions of the test server's embeddings: a text's
// vector counts the words of each concept it has.
var concepts = [][]string{
	{"postgres", "database", "sql", "db"},
	{"deploy", "release", "ship"},
	{"colour", "color", "theme", "dark"},
}

// embeddingServer answers /embeddings like an OpenAI-compatible API with
// concept vectors, recording each request's inputs.
type embeddingServer struct {
	mu     sync.Mutex
	inputs [][]string
	fail   bool
}

func (e *embeddingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "m" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.inputs = append(e.inputs, req.Input)
	fail := e.fail
	e.mu.Unlock()
	if fail {
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- { // out of order, as the API allows
		v := make([]float32, len(concepts)+1)
		v[len(concepts)] = 0.1 // so no vector is zero
		for _, w := range words(req.Input[i]) {
			for c, ws := range concepts {
				for _, x := range ws {
					if w == x {
						v[c]++
					}
				}
			}
		}
		data = append(data, item{i, v})
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func TestSearch_Embeddings(t *testing.T) {
	es := &embeddingServer{}
	srv := httptest.NewServer(es)
	defer srv.Close()
	cfg := dirs(t)
	cfg.Embedder = &HTTPEmbedder{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: "k", Client: srv.Client()}
	s := newStore(t, cfg)
	mustSave(t, s, Note{ID: "pg", Body: "We run Postgres 16 in production."})
	mustSave(t, s, Note{ID: "ship", Body: "Ship on Tuesdays."})
	mustSave(t, s, Note{ID: "dark", Body: "The user likes a dark theme."})
	mustSave(t, s, Note{ID: "version", Body: "Production runs version 16 of the API."})

	// No note has "sql" or "db": only the embeddings find pg.
	hits, err := s.Search(t.Context(), Query{Text: "which sql db"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"project:pg"}, ids(hits)); diff != "" {
		t.Fatalf("semantic search (-want +got):\n%s", diff)
	}
	if h := hits[0]; h.BM25 != 0 || h.Similarity < 0.9 || h.Score != DefaultEmbedWeight*h.Similarity {
		t.Errorf("hit = %+v, want the similarity's share alone", h)
	}
	// "production 16" is in pg and version, which tie on BM25 (see
	// below); "database" is only in pg's meaning, so the blend puts pg
	// first.
	hits, _ = s.Search(t.Context(), Query{Text: "production database 16"})
	if diff := cmp.Diff([]string{"project:pg", "project:version"}, ids(hits)); diff != "" {
		t.Errorf("blended search (-want +got):\n%s", diff)
	}
	// Notes were embedded once: later searches send only the query.
	es.mu.Lock()
	var sizes []int
	for _, in := range es.inputs {
		sizes = append(sizes, len(in))
	}
	es.inputs, es.fail = nil, true
	es.mu.Unlock()
	if diff := cmp.Diff([]int{1, 4, 1}, sizes); diff != "" {
		t.Errorf("inputs per request (-want +got):\n%s", diff)
	}
	// A failing endpoint leaves BM25, where the two tie on "production
	// 16" and the newer note comes first.
	hits, err = s.Search(t.Context(), Query{Text: "production database 16"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"project:version", "project:pg"}, ids(hits)); diff != "" || hits[0].Similarity != 0 {
		t.Errorf("search with a failing embedder (-want +got):\n%s", diff)
	}
}

func TestHTTPEmbedder_Errors(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"status", `{"error":{"message":"bad key"}}`, http.StatusUnauthorized, `401 Unauthorized: {"error":{"message":"bad key"}}`},
		{"not json", `<html>`, http.StatusOK, "decode the response"},
		{"index out of range", `{"data":[{"index":3,"embedding":[1]}]}`, http.StatusOK, "index 3 for 1 inputs"},
		{"missing vector", `{"data":[]}`, http.StatusOK, "no embedding for input 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			e := &HTTPEmbedder{BaseURL: srv.URL, Model: "m"}
			_, err := e.Embed(t.Context(), []string{"x"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Embed error = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
