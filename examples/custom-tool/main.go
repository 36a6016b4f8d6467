// Custom-tool shows an agent built with [wield.New] that offers a tool of
// the program's own: lookup_order, a typed tool whose input schema
// [tool.New] infers from a Go struct, validating every call against it
// before the function runs. It is added through Options.Extra and
// offered beside a narrow list of wield's own tools (Options.Tools).
//
// Run it from the repository's root with the scripted model in
// script.jsonl, which needs no network:
//
//	go run ./examples/custom-tool
//
// or with a real model (its key in ANTHROPIC_API_KEY, OPENAI_API_KEY or
// GEMINI_API_KEY):
//
//	go run ./examples/custom-tool -model anthropic:claude-sonnet-4-5 'Where is order A-1001?'
//
// The answer goes to standard output, a line per tool call to standard
// error. The agent works in the current directory's workspace and keeps
// its session in .wield/sessions there.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed script.jsonl
var script []byte

// OrderInput is what lookup_order takes. The json tags name the
// properties, the jsonschema tags describe them to the model; fields
// without omitempty are required.
type OrderInput struct {
	ID string `json:"id" jsonschema:"the order number, such as A-1001"`
}

// An orderBook stands in for the program's own data: a database, an
// API. What a tool needs comes with its function, never in the call.
type orderBook map[string]string

// lookup is lookup_order's function. A failure the model can act on is
// a failed Result, not an error: an error is for what must stop the run.
func (b orderBook) lookup(_ context.Context, _ *tool.Call, in OrderInput) (tool.Result, error) {
	status, ok := b[in.ID]
	if !ok {
		return tool.Failure(fmt.Sprintf("no order %q: order numbers look like A-1001", in.ID)), nil
	}
	return tool.Text(in.ID + ": " + status), nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "custom-tool:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("custom-tool", flag.ContinueOnError)
	modelName := flags.String("model", "", "the `model`, as provider:name; empty means the scripted one")
	replayFile := flags.String("replay", "", "a JSON Lines `file` to script the model with instead of script.jsonl")
	err := flags.Parse(args)
	if err != nil {
		return err
	}
	task := "Where is my order A-1001?"
	if flags.NArg() > 0 {
		task = flags.Arg(0)
	}
	book := orderBook{
		"A-1001": "2 × espresso cups; shipped 3 March by DHL, arriving in two days",
		"A-1002": "1 × grinder; waiting for stock",
	}
	orderTool := tool.New(tool.Spec{
		Name:        "lookup_order",
		Description: "Look up the status of a customer's order by its number.",
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, book.lookup)
	opts := wield.Options{
		Model: *modelName, // without a Provider, New opens the model it names
		Extra: []*tool.Tool{orderTool},
		Tools: []string{"lookup_order", "read_file", "glob"},
		Loop:  agent.Config{Name: "custom-tool", OnEvent: showCalls(stderr)},
	}
	if *modelName == "" {
		if opts.Provider, err = scripted(*replayFile); err != nil {
			return err
		}
	}
	a, err := wield.New(ctx, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	s, err := a.Store.Create(ctx, session.Header{Agent: "custom-tool"})
	if err != nil {
		return err
	}
	defer s.Close()
	out, err := a.Run(ctx, s, task)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, out.Text)
	return nil
}

// showCalls returns an event handler that prints a line per tool call
// and what it came to.
func showCalls(w io.Writer) func(agent.Event) {
	return func(e agent.Event) {
		switch {
		case e.Kind == agent.EventToolStarted:
			fmt.Fprintf(w, "● %s %s\n", e.Call.Tool, e.Call.Arguments)
		case e.Kind == agent.EventToolFinished && e.Call.Result.Success:
			fmt.Fprintf(w, "  ✓ %s: %s\n", e.Call.Tool, e.Call.Result.Output)
		case e.Kind == agent.EventToolFinished:
			fmt.Fprintf(w, "  ✗ %s: %s\n", e.Call.Tool, strings.ReplaceAll(e.Call.Result.Error, "\n", "\n    "))
		}
	}
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
