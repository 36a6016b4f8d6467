// Command server is the loop benchmark's scripted model: an OpenAI-compatible
// chat completions endpoint on 127.0.0.1 that answers with no think time.
// The model name says how many rounds a run lasts ("loop-100"): while the
// request holds fewer tool results than that, the reply calls the tool add
// with {"a": k, "b": 1} (k = the number of tool results so far); then it
// answers "done". It streams when asked to (stream: true), as every driver
// does by default, and reports usage.
//
// It prints the address it listens on as its first line.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", (&server{}).complete)
	log.Fatal(http.Serve(ln, mux))
}

// request is the part of a chat completions request the script reads.
type request struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
}

// toolResults counts the tool messages in a request body without decoding
// it, so that the server's own cost grows as little as it can with the
// history every client sends.
func toolResults(body []byte) int {
	return bytes.Count(body, []byte(`"role":"tool"`)) + bytes.Count(body, []byte(`"role": "tool"`))
}

// envelope reads the model and stream fields of a request by searching
// for their keys rather than decoding the body: decoding would make the
// server's cost per round grow with the history, for every driver alike,
// and hide the clients' own growth. Clients write these keys once, at the
// top level (a message that quoted them would be escaped).
func envelope(body []byte) (request, error) {
	var req request
	i := bytes.Index(body, []byte(`"model"`))
	if i < 0 {
		return req, fmt.Errorf("no model in the request")
	}
	rest := bytes.TrimLeft(body[i+len(`"model"`):], " \t\r\n:")
	dec := json.NewDecoder(bytes.NewReader(rest))
	if err := dec.Decode(&req.Model); err != nil {
		return req, fmt.Errorf("model: %w", err)
	}
	if i := bytes.Index(body, []byte(`"stream"`)); i >= 0 {
		rest := bytes.TrimLeft(body[i+len(`"stream"`):], " \t\r\n:")
		req.Stream = bytes.HasPrefix(rest, []byte("true"))
	}
	return req, nil
}

// server answers chat completions. Its bodies hold request buffers
// between requests: a body read with io.ReadAll grows its buffer from
// nothing every time, which costs the server more per round as the
// history grows, whatever the driver.
type server struct{ bodies sync.Pool }

func (sv *server) complete(w http.ResponseWriter, r *http.Request) {
	buf, _ := sv.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	bodies := &sv.bodies
	defer bodies.Put(buf)
	buf.Reset()
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := envelope(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rounds, err := strconv.Atoi(strings.TrimPrefix(req.Model, "loop-"))
	if err != nil {
		http.Error(w, `model must be "loop-N"`, http.StatusBadRequest)
		return
	}
	k := toolResults(body)
	var call, text string
	if k < rounds {
		call = fmt.Sprintf(`{"index":0,"id":"call_%d","type":"function","function":{"name":"add","arguments":"{\"a\":%d,\"b\":1}"}}`, k, k)
	} else {
		text = "done"
	}
	finish := "stop"
	if call != "" {
		finish = "tool_calls"
	}
	usage := `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}`
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg := `{"role":"assistant","content":` + strconv.Quote(text) + `}`
		if call != "" {
			msg = `{"role":"assistant","content":null,"tool_calls":[` + call + `]}`
		}
		fmt.Fprintf(w, `{"id":"r%d","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":%s}`,
			k, req.Model, msg, finish, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	head := fmt.Sprintf(`{"id":"r%d","object":"chat.completion.chunk","created":1,"model":%q,"choices":[`, k, req.Model)
	if call != "" {
		fmt.Fprintf(w, "data: %s{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[%s]},\"finish_reason\":null}]}\n\n", head, call)
	} else {
		fmt.Fprintf(w, "data: %s{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", head, strconv.Quote(text))
	}
	fmt.Fprintf(w, "data: %s{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\n", head, finish)
	fmt.Fprintf(w, "data: %s],\"usage\":%s}\n\n", head, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
