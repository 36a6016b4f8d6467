package llmtest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm/replay"
)

// A Fault makes a [Server] fail one request instead of answering it from
// the script. Which of its fields a dialect honours is the dialect's to
// say; the server itself reads only Request and Status.
type Fault struct {
	// Request is the number of the request it hits, counting from 1 over
	// all requests the server got.
	Request int
	// Status, if not zero, is the HTTP status of the answer, with the
	// provider's error body of Type and Message.
	Status int
	// Type is the error's type, for providers whose errors carry one;
	// empty means the one the provider sends with Status.
	Type    string
	Message string
	// RetryAfter is sent with Status as the Retry-After header (and, for
	// providers that send one, a header in milliseconds).
	RetryAfter time.Duration
	// RetryDelay is sent with Status in the error body, for providers
	// that say there how long to wait (Google's RetryInfo).
	RetryDelay time.Duration
	// ErrorEvent answers with a stream that starts and then has an error
	// event of Type and Message.
	ErrorEvent bool
	// Malformed answers with a stream that starts well and then has an
	// event whose data is not JSON.
	Malformed bool
	// Stall answers with the start of a stream, then nothing until the
	// client hangs up.
	Stall bool
}

// A StatusError is a request a [Dialect] refuses with a status other than
// 400 Bad Request; any other error from [Dialect.Decode] is answered with
// 400.
type StatusError struct {
	Status  int
	Message string
}

func (e *StatusError) Error() string { return e.Message }

// A Dialect is one provider's wire format for a [Server]: how a request
// is read, and how an answer and an error are written. R is what the
// server records of a request.
//
// The server calls Decode and Answer one request at a time, holding its
// lock, so a dialect may keep state of its own (a simulated cache, stored
// conversations) without a lock of its own; WriteError and the writers
// Answer returns run without the lock, concurrently.
type Dialect[R any] interface {
	// Decode reads a request whose body is body. It returns the record
	// of it, which the server keeps whatever else happens, and the turn
	// and round of its conversation as [replay.Position] counts them. An
	// error is answered with WriteError: a *StatusError with its status,
	// any other error with 400.
	Decode(r *http.Request, body []byte) (rec R, turn, round int, err error)
	// Answer prepares the answer to request n, recorded as *rec, from
	// entry e. It may change *rec (say, to the usage the answer reports).
	// It returns the function that writes the answer, failing as f says
	// (f is the zero Fault, or one whose Status is zero).
	Answer(rec *R, n int, e replay.Entry) func(w http.ResponseWriter, r *http.Request, f Fault)
	// WriteError answers with the provider's error body for f's Status,
	// Type and Message, and the retry headers and details f asks for.
	WriteError(w http.ResponseWriter, f Fault)
}

// A Server is a scripted model API on 127.0.0.1, speaking one provider's
// wire format through its [Dialect]: each request is decoded and
// recorded, failed as a [Fault] says, or answered with the
// [replay.Entry] matched on its turn and round (the entry for both, else
// one for the round with turn 0, as [replay] matches). It is closed when
// the test ends. Its methods are safe for concurrent use.
type Server[R any] struct {
	// URL is the root of the server, without a path.
	URL string

	name    string
	dialect Dialect[R]
	entries []replay.Entry
	faults  []Fault

	mu       sync.Mutex
	requests []R
	answered []chan struct{} // closed as each request's answer ends
}

// NewServer starts a server that answers from entries in dialect d and
// fails the requests faults name. name begins the server's own messages
// ("anthropictest: no scripted response for …"). It fails the test when
// an entry is invalid.
func NewServer[R any](t testing.TB, name string, d Dialect[R], entries []replay.Entry, faults []Fault) *Server[R] {
	t.Helper()
	if _, err := replay.New(entries); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := &Server[R]{name: name, dialect: d, entries: entries, faults: faults}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// Requests returns the records of the requests the server got, oldest
// first. The caller owns the slice.
func (s *Server[R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Answered returns a channel that is closed when the server has finished
// answering request n, counting from 1 as [Fault.Request] does: for a
// stream that stalls, once the client has hung up. A test that cancels a
// stalled stream waits on it to know that the provider let go of the
// connection.
func (s *Server[R]) Answered(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answeredLocked(n)
}

// answeredLocked returns the channel of request n, making it if need be.
// s.mu must be held.
func (s *Server[R]) answeredLocked(n int) chan struct{} {
	for len(s.answered) < n {
		s.answered = append(s.answered, make(chan struct{}))
	}
	return s.answered[n-1]
}

// ServeHTTP answers one request; see [Server].
func (s *Server[R]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	rec, turn, round, err := s.dialect.Decode(r, body)
	s.requests = append(s.requests, rec)
	n := len(s.requests)
	done := s.answeredLocked(n)
	s.mu.Unlock()
	defer close(done)
	if err != nil {
		status := http.StatusBadRequest
		if se, ok := errors.AsType[*StatusError](err); ok {
			status = se.Status
		}
		s.dialect.WriteError(w, Fault{Status: status, Message: err.Error()})
		return
	}
	var fault Fault
	for _, f := range s.faults {
		if f.Request == n {
			fault = f
		}
	}
	if fault.Status != 0 {
		s.dialect.WriteError(w, fault)
		return
	}
	e, ok := s.match(turn, round)
	if !ok {
		s.dialect.WriteError(w, Fault{Status: http.StatusBadRequest, Message: fmt.Sprintf("%s: no scripted response for turn %d, round %d", s.name, turn, round)})
		return
	}
	if e.Error != nil {
		s.dialect.WriteError(w, Fault{Status: e.Error.Status, Message: e.Error.Message})
		return
	}
	s.mu.Lock()
	write := s.dialect.Answer(&s.requests[n-1], n, e)
	s.mu.Unlock()
	write(w, r, fault)
}

// match finds the entry for a position as [replay] does: the entry for
// the turn and round, else one for the round with turn 0.
func (s *Server[R]) match(turn, round int) (replay.Entry, bool) {
	var fallback *replay.Entry
	for i := range s.entries {
		e := &s.entries[i]
		if e.Round != round {
			continue
		}
		if e.Turn == turn {
			return *e, true
		}
		if e.Turn == 0 && fallback == nil {
			fallback = e
		}
	}
	if fallback != nil {
		return *fallback, true
	}
	return replay.Entry{}, false
}

// SetRetryAfter sets the Retry-After header to d in whole seconds,
// rounded up, and with ms also retry-after-ms, as OpenAI and Anthropic
// send it. A d of zero sets nothing.
func SetRetryAfter(h http.Header, d time.Duration, ms bool) {
	if d <= 0 {
		return
	}
	h.Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
	if ms {
		h.Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
	}
}

// An EventWriter writes server-sent events, flushing after each.
type EventWriter struct {
	W http.ResponseWriter
}

// Event writes one event of data, with an "event:" line naming typ when
// typ is not empty.
func (e EventWriter) Event(typ, data string) {
	if typ != "" {
		fmt.Fprintf(e.W, "event: %s\n", typ)
	}
	fmt.Fprintf(e.W, "data: %s\n\n", data)
	e.Flush()
}

// Flush sends what was written.
func (e EventWriter) Flush() {
	if f, ok := e.W.(http.Flusher); ok {
		f.Flush()
	}
}

// Words cuts s into word-sized pieces that join back to s, each but the
// first beginning with its space, as models stream text.
func Words(s string) []string {
	var out []string
	for s != "" {
		i := 1
		for i < len(s) && s[i] != ' ' {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
