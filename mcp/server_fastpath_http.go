package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpFastPath answers tools/call requests over streamable HTTP without
// the SDK, as the stdio fast path does: a POST of one tools/call to a
// served tool, on a revision up to 2025-11-25 (named in the
// MCP-Protocol-Version header), in a session the SDK created (or any, when
// stateless), is answered from Server.callTool directly: with JSON, or,
// when it asks for progress (a progress token) and the server streams, with
// an event stream of its progress notifications and then its answer.
// Everything else goes to the SDK unchanged.
//
// The call runs under the request's context, so a client that closes the
// request cancels it. In a session, notifications/cancelled for the call
// cancels it too, and the request then ends without a JSON-RPC response:
// the spec's receivers of a cancellation "SHOULD NOT send a response for
// the cancelled request". Without sessions (stateless) a notification
// cannot tell one client's request from another's, so it is left to the
// SDK; such a client cancels by closing its request.
type httpFastPath struct {
	srv       *Server
	next      http.Handler
	stateless bool
	// jsonResponse is the SDK's JSONResponse: calls with a progress token
	// are left to the SDK, which sends their progress on the session's
	// standalone stream.
	jsonResponse bool
	// anyHost turns off the loopback Host check, as the SDK's
	// DisableLocalhostProtection does.
	anyHost bool

	mu       sync.Mutex
	sessions map[string]bool // session ids the SDK handed out and has not deleted
	inflight map[callKey]*inflightCall
}

// callKey names a call in flight on the fast path: a request id within a
// session.
type callKey struct {
	session string
	id      any // normalized by normalizeID
}

// inflightCall is a call in flight on the fast path.
type inflightCall struct {
	cancel context.CancelCauseFunc
}

// errCancelledByClient is the cause of a call the client cancelled with
// notifications/cancelled.
var errCancelledByClient = errors.New("the client cancelled the call")

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
	if req.Method == "notifications/cancelled" && len(req.ID) == 0 && h.cancelCall(r, req.Params) {
		w.WriteHeader(http.StatusAccepted) // as for any notification
		return
	}
	if !h.takes(r, req.Method, req.ID) {
		h.next.ServeHTTP(w, r)
		return
	}
	var p callParams
	if json.Unmarshal(req.Params, &p) != nil || !h.srv.served[p.Name] {
		h.next.ServeHTTP(w, r)
		return
	}
	// Progress needs an event stream; in JSON mode the SDK sends it on
	// the session's standalone stream instead.
	stream := p.Meta.ProgressToken != nil
	if stream && (h.jsonResponse || !strings.Contains(r.Header.Get("Accept"), "text/event-stream")) {
		h.next.ServeHTTP(w, r)
		return
	}
	msgID, err := decodeID(req.ID)
	if err != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	h.serveCall(w, r, msgID, &p, stream)
}

// serveCall runs one tools/call and answers it: with one JSON object, or,
// when stream is set, with an event stream of its progress notifications
// and then its response. A call the client cancels gets no response.
func (h *httpFastPath) serveCall(w http.ResponseWriter, r *http.Request, msgID jsonrpc.ID, p *callParams, stream bool) {
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	if !h.stateless {
		key := callKey{r.Header.Get("Mcp-Session-Id"), normalizeID(msgID.Raw())}
		if h.track(key, &inflightCall{cancel: cancel}) {
			defer h.untrack(key)
		}
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		w.Header().Set("Mcp-Session-Id", id)
	}
	var (
		token any
		send  func(context.Context, *sdk.ProgressNotificationParams) error
		sse   *sseWriter
	)
	if stream {
		sse = &sseWriter{w: w}
		defer sse.close()
		token, send = p.Meta.ProgressToken, sse.progress
	}
	res := h.srv.callTool(ctx, p.Name, p.Arguments, token, send, p.Meta.TraceContext)
	if context.Cause(ctx) == errCancelledByClient {
		if sse == nil || !sse.close() {
			noAnswer(w, r)
		}
		return
	}
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
	if sse != nil {
		_ = sse.write(data, true)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// sseWriter writes the event stream of one call. Its methods may be
// called concurrently; once closed it writes nothing, since progress may
// still be reported as the handler returns.
type sseWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	started bool
	closed  bool
}

// write writes one message as an event and flushes it, starting the
// stream first. After the last message (the response), nothing more is
// written: progress reported as the call ends is dropped.
func (s *sseWriter) write(data []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the call's event stream is closed")
	}
	s.closed = last
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache, no-transform")
		s.w.WriteHeader(http.StatusOK)
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return err
	}
	return http.NewResponseController(s.w).Flush()
}

// progress sends a progress notification as an event.
func (s *sseWriter) progress(_ context.Context, n *sdk.ProgressNotificationParams) error {
	data, err := encodeProgress(n)
	if err != nil {
		return err
	}
	return s.write(data, false)
}

// close stops the writer and reports whether the stream had started.
func (s *sseWriter) close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.started
}

// noAnswer ends the request of a cancelled call without a JSON-RPC
// message: an event stream that closes at once when the client accepts
// one (the spec answers a request with a stream or with JSON), else 202
// Accepted.
func noAnswer(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		w.Header().Set("Mcp-Session-Id", id)
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// track notes a call in flight, unless another call of the same session
// has its id (a client's mistake: the first keeps it).
func (h *httpFastPath) track(key callKey, c *inflightCall) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.inflight[key]; dup {
		return false
	}
	if h.inflight == nil {
		h.inflight = map[callKey]*inflightCall{}
	}
	h.inflight[key] = c
	return true
}

func (h *httpFastPath) untrack(key callKey) {
	h.mu.Lock()
	delete(h.inflight, key)
	h.mu.Unlock()
}

// cancelCall cancels the call a notifications/cancelled names, if it is in
// flight on the fast path in the notification's session, and reports
// whether it was.
func (h *httpFastPath) cancelCall(r *http.Request, params json.RawMessage) bool {
	if h.stateless || !h.allowed(r) {
		return false
	}
	var p cancelParams
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return false
	}
	h.mu.Lock()
	c, ok := h.inflight[callKey{r.Header.Get("Mcp-Session-Id"), normalizeID(p.RequestID)}]
	h.mu.Unlock()
	if ok {
		c.cancel(errCancelledByClient)
	}
	return ok
}

// takes reports whether a request may be answered by the fast path, from
// its headers and method.
func (h *httpFastPath) takes(r *http.Request, method string, id json.RawMessage) bool {
	if method != "tools/call" || len(id) == 0 || string(id) == "null" {
		return false
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		return false
	}
	return h.allowed(r)
}

// allowed reports whether the fast path may act on a request: it names a
// revision the fast path speaks, its Host passes the SDK's DNS-rebinding
// check, and it belongs to a session the SDK created (unless stateless).
func (h *httpFastPath) allowed(r *http.Request) bool {
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
	if h.stateless {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[r.Header.Get("Mcp-Session-Id")]
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
