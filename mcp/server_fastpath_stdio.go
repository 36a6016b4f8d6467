package mcp

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastPath answers tools/call requests on stdio without handing them to
// the SDK, once initialize has been answered with a revision it speaks.
// The SDK decodes every tools/call twice, each time through a fresh 32 KiB
// buffer; the fast path decodes it once and runs the same Server.callTool
// the SDK's handler runs, so the answers are the same. Everything else
// (initialize, tools/list, unknown tools, pings) still goes to the SDK.
type fastPath struct {
	srv    *Server
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	initID   any // raw id of the initialize request
	ready    bool
	inflight map[any]context.CancelFunc
	wg       sync.WaitGroup

	// jobs hands calls to idle workers. Workers live until close, so a
	// call does not start on a fresh goroutine whose stack must grow
	// (stack copying was a sixth of a call's cost).
	jobs chan func()
	idle atomic.Int32
}

// maxIdleWorkers bounds the workers kept waiting for calls.
const maxIdleWorkers = 16

// submit runs job on an idle worker, or on a new one.
func (f *fastPath) submit(job func()) {
	select {
	case f.jobs <- job:
		// Let the worker start on this thread before the reader blocks in
		// its next read: otherwise the call waits for another thread to be
		// woken to take it, which was most of a sequential call's latency
		// (measured: mean 1.2× mcp-go's without this, 0.85× with it).
		runtime.Gosched()
		return
	default:
	}
	f.wg.Add(1)
	go f.worker(job)
}

// worker runs job and then waits for more until the path closes; workers
// beyond maxIdleWorkers, started under load, end when they run dry.
func (f *fastPath) worker(job func()) {
	defer f.wg.Done()
	for {
		job()
		if f.idle.Add(1) > maxIdleWorkers {
			f.idle.Add(-1)
			return
		}
		select {
		case job = <-f.jobs:
			f.idle.Add(-1)
		case <-f.ctx.Done():
			f.idle.Add(-1)
			return
		}
	}
}

// newFastPath returns the fast path of a connection served under ctx: its
// calls are cancelled when ctx is done, or when it is closed.
func newFastPath(ctx context.Context, srv *Server) *fastPath {
	ctx, cancel := context.WithCancel(ctx)
	return &fastPath{srv: srv, ctx: ctx, cancel: cancel, inflight: map[any]context.CancelFunc{}, jobs: make(chan func())}
}

// take handles msg if it is a tools/call the fast path answers or the
// cancellation of one, and reports whether it did. It runs on the reading
// goroutine.
func (f *fastPath) take(c *stdioConn, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	switch req.Method {
	case "initialize":
		f.mu.Lock()
		f.initID = req.ID.Raw()
		f.mu.Unlock()
		return false
	case "notifications/cancelled":
		var p cancelParams
		if json.Unmarshal(req.Params, &p) != nil {
			return false
		}
		f.mu.Lock()
		cancel, ok := f.inflight[normalizeID(p.RequestID)]
		f.mu.Unlock()
		if ok {
			cancel()
		}
		return ok
	case "tools/call":
	default:
		return false
	}
	f.mu.Lock()
	ready := f.ready
	f.mu.Unlock()
	if !ready || !req.ID.IsValid() {
		return false
	}
	var p callParams
	if json.Unmarshal(req.Params, &p) != nil || !f.srv.served[p.Name] {
		return false // the SDK gives the spec's errors
	}
	ctx, cancel := context.WithCancel(f.ctx)
	key := normalizeID(req.ID.Raw())
	f.mu.Lock()
	f.inflight[key] = cancel
	f.mu.Unlock()
	c.mu.Lock()
	c.pending++
	c.mu.Unlock()
	f.submit(func() {
		defer cancel()
		send := func(_ context.Context, n *sdk.ProgressNotificationParams) error {
			data, err := encodeProgress(n)
			if err != nil {
				return err
			}
			return c.writeLine(data)
		}
		res := f.srv.callTool(ctx, p.Name, p.Arguments, p.Meta.ProgressToken, send, p.Meta.TraceContext)
		f.mu.Lock()
		delete(f.inflight, key)
		f.mu.Unlock()
		// A call the client cancelled gets no answer, as the spec asks.
		if ctx.Err() == nil {
			if raw, err := json.Marshal(res); err == nil {
				if data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: raw}); err == nil {
					_ = c.writeLine(data)
				}
			}
		}
		c.answered()
	})
	return true
}

// sawWrite notes the answer to initialize: the fast path starts once the
// negotiated revision is one it speaks.
func (f *fastPath) sawWrite(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.initID == nil || normalizeID(resp.ID.Raw()) != normalizeID(f.initID) {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil && slices.Contains(fastRevisions, r.ProtocolVersion) {
		f.ready = true
	}
}

// close cancels the calls in flight and waits for them.
func (f *fastPath) close() {
	f.cancel()
	f.wg.Wait()
}
