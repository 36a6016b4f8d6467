// Reviewer shows a read-only code reviewer built with [wield.New]: it
// reads the uncommitted changes of the git repository it runs in and
// prints a review, and nothing it does can change a file.
//
// Two walls keep it from writing. Options.Tools offers only tools that
// read (files, searches, git's diff, log and status) and the shell; and
// its [policy.Policy] is in plan mode, which denies every call that could
// change something, whatever the rules say: a shell line runs only when
// every command on it is read-only (git log, grep, ls...) and an allow
// rule names it. Nobody is there to approve a call (Headless), so what
// would ask is denied too, with a reason the model reads.
//
// Run it in a git repository with changes, with the scripted model in
// script.jsonl (no network):
//
//	go run ./examples/reviewer
//
// or with a real model (its key in ANTHROPIC_API_KEY, OPENAI_API_KEY or
// GEMINI_API_KEY):
//
//	go run ./examples/reviewer -model anthropic:claude-sonnet-4-5
//
// The review goes to standard output, a line per tool call to standard
// error.
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
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/session"
)

//go:embed script.jsonl
var script []byte

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "reviewer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("reviewer", flag.ContinueOnError)
	modelName := flags.String("model", "", "the `model`, as provider:name; empty means the scripted one")
	replayFile := flags.String("replay", "", "a JSON Lines `file` to script the model with instead of script.jsonl")
	err := flags.Parse(args)
	if err != nil {
		return err
	}
	task := "Review the uncommitted changes: correctness, tests, style. Do not change anything."
	if flags.NArg() > 0 {
		task = flags.Arg(0)
	}
	pol := &policy.Policy{Mode: policy.ModePlan, Headless: true, HeadlessHint: "this reviewer only reads"}
	for _, cmd := range []string{"git log:*", "git show:*", "grep:*", "ls:*", "head:*", "wc:*"} {
		if err := pol.Add(policy.Allow, policy.Rule{Tool: "run_shell_command", Specifier: cmd}); err != nil {
			return err
		}
	}
	opts := wield.Options{
		Model: *modelName, // without a Provider, New opens the model it names
		Tools: []string{"read_file", "read_many_files", "glob", "search_file_content", "list_directory",
			"git_diff", "git_log", "git_show", "git_status", "run_shell_command"},
		Policy: pol,
		Loop:   agent.Config{Name: "reviewer", OnEvent: showCalls(stderr)},
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
	s, err := a.Store.Create(ctx, session.Header{Agent: "reviewer"})
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
// and the first line of what it came to.
func showCalls(w io.Writer) func(agent.Event) {
	return func(e agent.Event) {
		switch {
		case e.Kind == agent.EventToolStarted:
			fmt.Fprintf(w, "● %s %s\n", e.Call.Tool, e.Call.Arguments)
		case e.Kind == agent.EventToolFinished && e.Call.Result.Success:
			first, _, _ := strings.Cut(e.Call.Result.Output, "\n")
			fmt.Fprintf(w, "  ✓ %s: %s\n", e.Call.Tool, first)
		case e.Kind == agent.EventToolFinished:
			fmt.Fprintf(w, "  ✗ %s: %s\n", e.Call.Tool, e.Call.Result.Error)
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
