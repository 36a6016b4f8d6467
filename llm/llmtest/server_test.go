package llmtest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/llmtest"
	"github.com/wieldhq/wield/llm/replay"
)

// plain is a toy dialect: a request is a JSON list of user messages, and
// the answer is the entry's text, or the error's status and message.
type plain struct{}

func (plain) Decode(r *http.Request, body []byte) (msgs []string, turn, round int, err error) {
	if r.URL.Path != "/chat" {
		return nil, 0, 0, &llmtest.StatusError{Status: http.StatusNotFound, Message: "no " + r.URL.Path}
	}
	if err := json.Unmarshal(body, &msgs); err != nil {
		return nil, 0, 0, fmt.Errorf("not a list of messages: %w", err)
	}
	var conv []llm.Message
	for _, m := range msgs {
		conv = append(conv, llm.Message{Role: llm.RoleUser, Content: m})
	}
	turn, round = replay.Position(&llm.Request{Messages: conv})
	return msgs, turn, round, nil
}

func (plain) Answer(rec *[]string, n int, e replay.Entry) func(http.ResponseWriter, *http.Request, llmtest.Fault) {
	*rec = append(*rec, fmt.Sprint("answered ", n))
	return func(w http.ResponseWriter, _ *http.Request, _ llmtest.Fault) { io.WriteString(w, e.Text) }
}

func (plain) WriteError(w http.ResponseWriter, f llmtest.Fault) {
	llmtest.SetRetryAfter(w.Header(), f.RetryAfter, true)
	http.Error(w, f.Message, f.Status)
}

// TestServer checks the core's part: requests recorded whatever happens,
// faults by number, entries matched on turn and round (with turn 0 for
// any turn), and errors of entries and of decoding.
func TestServer(t *testing.T) {
	srv := llmtest.NewServer(t, "plain", llmtest.Dialect[[]string](plain{}), []replay.Entry{
		{Turn: 1, Round: 1, Text: "Hello."},
		{Round: 1, Text: "Any turn."},
		{Turn: 3, Round: 1, Error: &replay.Error{Status: 400, Message: "too many turns"}},
	}, []llmtest.Fault{{Request: 2, Status: http.StatusTooManyRequests, Message: "slow down", RetryAfter: 1500 * time.Millisecond}})
	tests := []struct {
		path, body string
		status     int
		answer     string
		retryAfter string
	}{
		{"/chat", `["hi"]`, 200, "Hello.", ""},
		{"/chat", `["hi","bye"]`, 429, "slow down", "2"},
		{"/chat", `["hi","bye"]`, 200, "Any turn.", ""},
		{"/chat", `["a","b","c"]`, 400, "too many turns", ""},
		{"/chat", `{}`, 400, "not a list of messages", ""},
		{"/other", `["hi"]`, 404, "no /other", ""},
	}
	for i, tt := range tests {
		res, err := http.Post(srv.URL+tt.path, "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tt.status || !strings.Contains(string(answer), tt.answer) || res.Header.Get("Retry-After") != tt.retryAfter {
			t.Errorf("request %d: %d %q (Retry-After %q), want %d %q (%q)", i+1, res.StatusCode, answer, res.Header.Get("Retry-After"), tt.status, tt.answer, tt.retryAfter)
		}
	}
	want := [][]string{{"hi", "answered 1"}, {"hi", "bye"}, {"hi", "bye", "answered 3"}, {"a", "b", "c"}, nil, nil}
	if diff := cmp.Diff(want, srv.Requests()); diff != "" {
		t.Errorf("requests recorded (-want +got):\n%s", diff)
	}
}

func TestWords(t *testing.T) {
	for _, s := range []string{"", "a", "one two  three ", " lead"} {
		if got := strings.Join(llmtest.Words(s), ""); got != s {
			t.Errorf("Words(%q) joins to %q", s, got)
		}
	}
	if diff := cmp.Diff([]string{"one", " two", " ", " three"}, llmtest.Words("one two  three")); diff != "" {
		t.Errorf("Words (-want +got):\n%s", diff)
	}
}

// TestServerAnswered checks that a request's channel is closed once its
// answer is written, and not before the request came.
func TestServerAnswered(t *testing.T) {
	srv := llmtest.NewServer(t, "plain", llmtest.Dialect[[]string](plain{}), []replay.Entry{{Round: 1, Text: "Hello."}}, nil)
	next := srv.Answered(2)
	res, err := http.Post(srv.URL+"/chat", "application/json", strings.NewReader(`["hi"]`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	<-srv.Answered(1)
	select {
	case <-next:
		t.Error("request 2 is answered before it came")
	default:
	}
}
