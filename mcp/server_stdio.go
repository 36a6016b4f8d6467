package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes caps one inbound JSON-RPC message on stdio.
const MaxMessageBytes = 16 << 20

// ServeStdio serves one client over r and w (standard input and output),
// one JSON-RPC message per line, until the client closes its end (every
// request read by then is answered first) or ctx is done (in-flight calls
// are cancelled). A malformed or oversized line gets a JSON-RPC error and
// the server keeps serving. For a server from [BuildServer] whose build
// fails, it ends the connection and returns build's error.
func (s *Server) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	// Not sdk.Server.Run: it logs an error when ctx is done, which is how
	// a SIGTERM ends a healthy server.
	fast := newFastPath(ctx, s)
	defer fast.close()
	ss, err := s.sdk.Connect(ctx, &stdioTransport{r: r, w: w, maxLen: MaxMessageBytes, fast: fast, srv: s}, nil)
	if err != nil {
		return fmt.Errorf("mcp: connect stdio: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	for ready := s.ready; ; {
		select {
		case err = <-ended:
		case <-ctx.Done():
			ss.Close()
			<-ended
			return nil
		case <-ready:
			if s.buildErr != nil {
				ss.Close()
				<-ended
				return s.buildErr
			}
			ready = nil
			continue
		}
		break
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

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
	// srv, if set, is the server whose tools requests wait for.
	srv *Server
}

func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{r: bufio.NewReaderSize(t.r, 64<<10), rc: t.r, w: t.w, maxLen: t.maxLen, closed: make(chan struct{}), fast: t.fast, srv: t.srv}
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
	// srv, until its tools are in place, holds requests that need them;
	// Read sets it to nil once they are.
	srv *Server
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
		if c.srv != nil && needsTools(msg) {
			select {
			case <-c.srv.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-c.closed:
				return nil, io.EOF
			}
			if err := c.srv.buildErr; err != nil {
				return nil, err
			}
			c.srv = nil
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

// needsTools reports whether msg must wait for the server's tools: the
// tools/ methods. The rest (the handshake, discovery, pings) a server
// answers while it builds them.
func needsTools(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && strings.HasPrefix(req.Method, "tools/")
}

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
