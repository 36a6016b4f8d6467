// Http-agent serves an agent over HTTP: POST a task to /run and the run's
// events stream back as Server-Sent Events while it works, each an
// [agent.Event] as JSON (text as it arrives, each tool call as it starts
// and finishes, the outcome last). Every request gets a session and an
// agent of its own ([wield.New], a few milliseconds), whose Loop.OnEvent
// writes to that request's response; a client that goes away cancels its
// run.
//
// It listens on a loopback address only: its agent reads the workspace
// (the current directory) for whoever can connect. Run it with the
// scripted model in script.jsonl (no network):
//
//	go run ./examples/http-agent
//	curl -N -d 'What is in this folder?' http://127.0.0.1:8080/run
//
// or with a real model (its key in ANTHROPIC_API_KEY, OPENAI_API_KEY or
// GEMINI_API_KEY): go run ./examples/http-agent -model anthropic:claude-sonnet-4-5
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
)

//go:embed script.jsonl
var script []byte

// A handler runs the task POSTed to it and streams the run's events.
type handler struct {
	// opts are every request's agent's options, but for Loop.OnEvent.
	// Their Toolbox, which keeps the tools' shell jobs, is shared; run
	// closes it.
	opts wield.Options
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST the task as the request's body", http.StatusMethodNotAllowed)
		return
	}
	task, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil || len(task) == 0 {
		http.Error(w, "the task is the request's body, up to 64 KiB", http.StatusBadRequest)
		return
	}
	rc := http.NewResponseController(w)
	send := func(kind string, v any) {
		data, err := json.Marshal(v)
		if err == nil {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", kind, data)
			rc.Flush()
		}
	}
	opts := h.opts
	// OnEvent is called on one goroutine at a time, and not after Run returns.
	opts.Loop.OnEvent = func(e agent.Event) { send(string(e.Kind), e) }
	a, err := wield.New(r.Context(), opts)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer a.Close()
	s, err := a.Store.Create(r.Context(), session.Header{Agent: "http-agent"})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer s.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	if _, err := a.Run(r.Context(), s, string(task)); err != nil {
		send("error", map[string]string{"error": err.Error()})
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "http-agent:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then cancels the runs and waits for them.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	flags := flag.NewFlagSet("http-agent", flag.ContinueOnError)
	addr := flags.String("addr", "127.0.0.1:8080", "the loopback `address` to listen on")
	modelName := flags.String("model", "", "the `model`, as provider:name; empty means the scripted one")
	replayFile := flags.String("replay", "", "a JSON Lines `file` to script the model with instead of script.jsonl")
	err := flags.Parse(args)
	if err != nil {
		return err
	}
	if host, _, err := net.SplitHostPort(*addr); err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("-addr %s: give a loopback address such as 127.0.0.1:8080: the agent reads this workspace for whoever connects", *addr)
	}
	h := &handler{opts: wield.Options{
		Model:   *modelName, // without a Provider, New opens the model it names
		Toolbox: &wield.Toolbox{},
		Tools:   []string{"read_file", "list_directory", "glob", "search_file_content"},
		Loop:    agent.Config{Name: "http-agent"},
	}}
	defer h.opts.Toolbox.Close()
	if *modelName == "" {
		if h.opts.Provider, err = scripted(*replayFile); err != nil {
			return err
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/run", h)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(stderr, "http-agent: POST a task to http://%s/run\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// The runs' contexts are done too: Shutdown waits for them to stop.
	if err := hs.Shutdown(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// scripted returns the scripted model: the script in file, or with no
// file the one in script.jsonl.
func scripted(file string) (*replay.Provider, error) {
	if file != "" {
		return replay.Load(file)
	}
	entries, err := replay.Parse(script)
	if err != nil {
		return nil, err
	}
	return replay.New(entries)
}
