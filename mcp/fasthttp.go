package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// httpFastPath answers plain tools/call requests over streamable HTTP
// without the SDK, as the stdio fast path does: a POST of one tools/call
// to a served tool, without a progress token, on a revision up to
// 2025-11-25 (named in the MCP-Protocol-Version header), in a session the
// SDK created (or any, when stateless), gets a JSON answer from
// Server.callTool directly. Everything else goes to the SDK unchanged.
type httpFastPath struct {
	srv       *Server
	next      http.Handler
	stateless bool
	// anyHost turns off the loopback Host check, as the SDK's
	// DisableLocalhostProtection does.
	anyHost bool

	mu       sync.Mutex
	sessions map[string]bool // session ids the SDK handed out and has not deleted
}

// maxFastBody is the largest request body the fast path reads; larger
// ones go to the SDK, which applies its own limits.
const maxFastBody = 1 << 20

func (h *httpFastPath) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		id := r.Header.Get("Mcp-Session-Id")
		h.next.ServeHTTP(w, r)
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
		return
	case http.MethodPost:
	default:
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxFastBody+1))
	if err != nil {
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	// Whatever the fast path does not take, the SDK reads from the start.
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	if len(body) > maxFastBody {
		h.next.ServeHTTP(w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	if req.Method == "initialize" && !h.stateless {
		h.next.ServeHTTP(&sessionRecorder{ResponseWriter: w, h: h}, r)
		return
	}
	if !h.takes(r, req.Method, req.ID) {
		h.next.ServeHTTP(w, r)
		return
	}
	var p callParams
	if json.Unmarshal(req.Params, &p) != nil || !h.srv.served[p.Name] || p.Meta.ProgressToken != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	msgID, err := decodeID(req.ID)
	if err != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	res := h.srv.callTool(r.Context(), p.Name, p.Arguments, nil, nil)
	raw, err := json.Marshal(res)
	if err != nil {
		http.Error(w, "encoding the result: "+err.Error(), http.StatusInternalServerError)
		return
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: msgID, Result: raw})
	if err != nil {
		http.Error(w, "encoding the result: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		w.Header().Set("Mcp-Session-Id", id)
	}
	_, _ = w.Write(data)
}

// takes reports whether a request may be answered by the fast path, from
// its headers and method.
func (h *httpFastPath) takes(r *http.Request, method string, id json.RawMessage) bool {
	if method != "tools/call" || len(id) == 0 || string(id) == "null" {
		return false
	}
	if !slices.Contains(fastRevisions, r.Header.Get("MCP-Protocol-Version")) {
		return false
	}
	if !h.anyHost {
		// The SDK's DNS-rebinding check: the Host must name loopback.
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if !isLoopback(strings.Trim(host, "[]")) {
			return false
		}
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		return false
	}
	if h.stateless {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[r.Header.Get("Mcp-Session-Id")]
}

// decodeID turns a raw JSON-RPC id into the SDK's type.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// sessionRecorder notes the session id the SDK gives an initialize answer.
type sessionRecorder struct {
	http.ResponseWriter
	h    *httpFastPath
	once sync.Once
}

func (s *sessionRecorder) note() {
	s.once.Do(func() {
		if id := s.Header().Get("Mcp-Session-Id"); id != "" {
			s.h.mu.Lock()
			if s.h.sessions == nil {
				s.h.sessions = map[string]bool{}
			}
			s.h.sessions[id] = true
			s.h.mu.Unlock()
		}
	})
}

func (s *sessionRecorder) WriteHeader(code int) {
	if code == http.StatusOK {
		s.note()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionRecorder) Write(b []byte) (int, error) {
	s.note()
	return s.ResponseWriter.Write(b)
}

// Flush lets the SDK stream through the recorder.
func (s *sessionRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (s *sessionRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
