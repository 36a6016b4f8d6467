package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport is wield's newline-delimited JSON-RPC transport. Unlike
// the SDK's, it answers every request it read before it reports the end of
// the input, so a client that sends its requests and closes its end still
// gets every answer; it answers a malformed or oversized line with a
// JSON-RPC error and keeps serving; and it writes each message with one
// write call.
type stdioTransport struct {
	r      io.ReadCloser
	w      io.WriteCloser
	maxLen int
	// fast, if set, answers tools/call itself; see fastPath.
	fast *fastPath
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{r: bufio.NewReaderSize(t.r, 64<<10), rc: t.r, w: t.w, maxLen: t.maxLen, closed: make(chan struct{}), fast: t.fast}
	c.idle = sync.NewCond(&c.mu)
	return c, nil
}

type stdioConn struct {
	r      *bufio.Reader
	rc     io.ReadCloser
	maxLen int

	wmu sync.Mutex
	w   io.WriteCloser
	buf []byte

	mu      sync.Mutex
	idle    *sync.Cond
	pending int // requests read and not yet answered

	closeOnce sync.Once
	closed    chan struct{}

	fast *fastPath
}

// answered notes that a request was answered.
func (c *stdioConn) answered() {
	c.mu.Lock()
	c.pending--
	if c.pending <= 0 {
		c.idle.Broadcast()
	}
	c.mu.Unlock()
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message. At the end of the input it waits until
// every request read so far has been answered, then returns io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		line, err := c.readLine()
		if errors.Is(err, errTooLong) {
			c.writeError(jsonrpc.CodeInvalidRequest, fmt.Sprintf("message exceeds %d bytes", c.maxLen))
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				c.drain(ctx)
			}
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msg, err := decodeMessage(line)
		if err != nil {
			c.writeError(jsonrpc.CodeParseError, "invalid JSON-RPC message: "+err.Error())
			continue
		}
		if c.fast != nil && c.fast.take(c, msg) {
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.mu.Lock()
			c.pending++
			c.mu.Unlock()
		}
		return msg, nil
	}
}

var errTooLong = errors.New("line too long")

// readLine reads one line, without its newline. A line longer than maxLen
// is skipped whole and reported as errTooLong.
func (c *stdioConn) readLine() ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		frag, err := c.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				long = append(long, frag...)
				if c.maxLen > 0 && len(long) > c.maxLen {
					tooLong, long = true, nil
				}
			}
			continue
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(frag)+len(long) > 0) {
			return nil, err
		}
		if tooLong || c.maxLen > 0 && len(long)+len(frag) > c.maxLen {
			return nil, errTooLong
		}
		if long != nil {
			return append(long, frag...), nil
		}
		return frag, nil
	}
}

// drain waits until no request is unanswered, the connection is closed or
// ctx is done.
func (c *stdioConn) drain(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.idle.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.pending > 0 && ctx.Err() == nil && !c.isClosed() {
		c.idle.Wait()
	}
}

func (c *stdioConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if c.fast != nil {
		c.fast.sawWrite(msg)
	}
	err = c.writeLine(data)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.answered()
	}
	return err
}

func (c *stdioConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.buf = append(append(c.buf[:0], data...), '\n')
	_, err := c.w.Write(c.buf)
	if cap(c.buf) > 1<<20 {
		c.buf = nil // do not keep a huge buffer
	}
	return err
}

// writeError answers a message that could not be read. It has no id: MCP's
// schema (2025-11-25 on) makes the id of an error response optional but
// never null, where JSON-RPC 2.0 would send "id":null.
func (c *stdioConn) writeError(code int, msg string) {
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","error":{"code":%d,"message":%q}}`, code, msg)
	_ = c.writeLine(b)
}

func (c *stdioConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.fast != nil {
			c.fast.cancel()
		}
		c.mu.Lock()
		c.idle.Broadcast()
		c.mu.Unlock()
		err = errors.Join(c.rc.Close(), c.w.Close())
	})
	return err
}

// decodeMessage decodes one JSON-RPC message exactly as jsonrpc.DecodeMessage
// does, but with encoding/json: go-sdk's decoder allocates a 32 KiB buffer
// for each of its two passes over every message, which made half of the
// garbage of a tools/call. Keys match exactly, not ignoring case, as with
// go-sdk's decoder.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if fields == nil {
		return nil, errors.New("unmarshaling jsonrpc message: null")
	}
	var version string
	if raw, ok := fields["jsonrpc"]; ok {
		if err := json.Unmarshal(raw, &version); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: jsonrpc: %w", err)
		}
	}
	if version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
	}
	var rawID any
	if raw, ok := fields["id"]; ok {
		if err := json.Unmarshal(raw, &rawID); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: id: %w", err)
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if raw, ok := fields["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: method: %w", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: fields["params"]}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("invalid request: a response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: fields["result"]}
	if raw, ok := fields["error"]; ok && string(raw) != "null" {
		werr, err := decodeError(raw)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: error: %w", err)
		}
		resp.Error = werr
	}
	return resp, nil
}

// decodeError decodes an error object, its keys matched exactly.
func decodeError(raw json.RawMessage) (*jsonrpc.Error, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	werr := &jsonrpc.Error{Data: fields["data"]}
	if c, ok := fields["code"]; ok {
		if err := json.Unmarshal(c, &werr.Code); err != nil {
			return nil, err
		}
	}
	if m, ok := fields["message"]; ok {
		if err := json.Unmarshal(m, &werr.Message); err != nil {
			return nil, err
		}
	}
	return werr, nil
}
