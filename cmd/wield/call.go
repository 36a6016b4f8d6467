package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
)

// exitDenied is the exit status of a call the permission policy (or the
// person asked) did not allow.
const exitDenied = 3

func newCallCommand(g *globals) *cobra.Command {
	var output, mode string
	var timeout int
	var approve bool
	cmd := &cobra.Command{
		Use:   "call NAME [ARGS_JSON | @FILE | -]",
		Short: "call one tool and print its result",
		Long: `Call runs the tool NAME once with the given arguments, exactly as a model's
call would run: the arguments are validated against the tool's schema first,
and the output is bounded.

The arguments are a JSON object given inline, read from FILE with @FILE, or
read from standard input with -. No arguments means {}.

The result is printed as JSON: {"success","output","data","error","durationMs"}.
With --output text only the output is printed (or the error, on stderr).

The call goes through the same permission policy as wield run: the rules in
.wield/settings.json and ~/.config/wield/settings.json, the hooks and the
--mode. A call a deny rule or a hook forbids never runs. A call that needs
approval is asked about on the terminal; without a terminal it is denied,
unless --approve is given, which approves that one call (deny rules still
win). A denied call prints the reason once, in the result, and exits 3.

	wield call read_file '{"path": "go.mod"}'
	wield call --approve write_file '{"path": "notes.txt", "content": "hi"}'

The exit status is 0 when the tool succeeded, 1 when it failed, 2 for bad
arguments, an unknown tool or a usage error, and 3 when the call was denied.

See also: wield tools, wield run.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "json" && output != "text" {
				return &exitError{exitUsage, fmt.Errorf("call: --output must be json or text, not %q", output)}
			}
			raw, err := readArguments(g.stdin, args[1:])
			if err != nil {
				return &exitError{exitUsage, fmt.Errorf("call: %w", err)}
			}
			ws, err := g.workspace()
			if err != nil {
				return err
			}
			root, err := os.OpenRoot(ws)
			if err != nil {
				return err
			}
			defer root.Close()
			reg, err := g.registry(cmd.Context(), ws, toolDeps{})
			if err != nil {
				return err
			}
			// The policy wield run uses. Its "ask" goes to the gate's
			// approver: the person at the terminal, or with -approve the
			// command line itself, or nobody (a denial that names the flag).
			pol, approver, err := g.policy(ws, mode, !approve)
			if err != nil {
				return err
			}
			pol.Headless = false
			gate := &callGate{policy: pol, rules: g.rulesFile(ws)}
			switch {
			case approve:
				gate.approver = preApproved{}
			case approver != nil:
				gate.approver = approver
			}
			opts := &tool.RunnerOptions{Logger: g.logger(), Gate: gate, Approver: gate}
			if timeout > 0 {
				opts.Timeout = secondsDuration(timeout)
			}
			runner := tool.NewRunner(reg, opts)
			req := tool.Request{Name: args[0], Arguments: raw}
			code := exitToolFailure
			if _, _, err := runner.Check(req); err != nil {
				code = exitUsage
			}
			res, err := runner.Call(cmd.Context(), tool.Call{Root: root}, req)
			if err != nil {
				return err
			}
			if err := printResult(g, res, output); err != nil {
				return err
			}
			if gate.denied() {
				return &exitError{code: exitDenied}
			}
			if !res.Success {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "json", "what to print: json (the whole result) or text (the output)")
	cmd.Flags().IntVar(&timeout, "timeout", 0, "call timeout in `seconds` (default: the tool's, else 60)")
	cmd.Flags().BoolVar(&approve, "approve", false, "approve this call if the policy would ask for approval (deny rules still deny)")
	cmd.Flags().StringVar(&mode, "mode", "", "permission `mode`: default (read-only tools run, others ask), auto-edit, plan or yolo")
	return cmd
}

// callGate is the gate of `wield call`: the workspace's policy, with the
// approver that answers its "ask", remembering the final verdict so that
// a denied call exits with exitDenied. It serves one call at a time.
type callGate struct {
	policy   *policy.Policy
	approver tool.Approver // nil: nobody can approve
	verdict  tool.Verdict
	rules    string // where an allow rule takes effect: see rulesFile
}

// Decide implements [tool.Gate].
func (g *callGate) Decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	d := g.policy.Decide(ctx, c, t, args)
	g.verdict = d.Verdict
	return d
}

// Approve implements [tool.Approver].
func (g *callGate) Approve(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage, why tool.Decision) tool.Decision {
	d := tool.Decision{Verdict: tool.Deny, Reason: "needs approval and nobody can give it here (" + why.Reason + "); pass --approve to approve this call, or add an allow rule to " + g.rules}
	if g.approver != nil {
		d = g.approver.Approve(ctx, c, t, args, why)
	}
	g.verdict = d.Verdict
	return d
}

// Review implements [tool.Reviewer]: the policy's PostToolUse hooks.
func (g *callGate) Review(ctx context.Context, c *tool.Call, args json.RawMessage, r tool.Result) tool.Result {
	return g.policy.Review(ctx, c, args, r)
}

// denied reports whether the call was not allowed to run.
func (g *callGate) denied() bool {
	return g.verdict == tool.Deny || g.verdict == tool.Ask
}

// preApproved approves every call it is asked about: the person gave
// --approve on the command line.
type preApproved struct{}

// Approve implements [tool.Approver].
func (preApproved) Approve(context.Context, *tool.Call, *tool.Tool, json.RawMessage, tool.Decision) tool.Decision {
	return tool.Decision{Verdict: tool.Allow, Reason: "approved with --approve"}
}

// maxArgumentInput caps arguments read from a file or stdin.
const maxArgumentInput = tool.DefaultMaxArgumentBytes + 1

func readArguments(stdin io.Reader, args []string) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage("{}"), nil
	}
	a := args[0]
	var data []byte
	var err error
	switch {
	case a == "-":
		data, err = io.ReadAll(io.LimitReader(stdin, maxArgumentInput))
	case strings.HasPrefix(a, "@"):
		var f *os.File
		if f, err = os.Open(a[1:]); err == nil {
			data, err = io.ReadAll(io.LimitReader(f, maxArgumentInput))
			f.Close()
		}
	default:
		data = []byte(a)
	}
	if err != nil {
		return nil, fmt.Errorf("reading arguments: %w", err)
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("not a single JSON value")
		}
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	return data, nil
}

func printResult(g *globals, res tool.Result, output string) error {
	if output == "text" {
		if !res.Success {
			fmt.Fprintln(g.stderr, "wield: call:", res.Error)
			if res.Output == "" {
				return nil
			}
		}
		out := res.Output
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		_, err := io.WriteString(g.stdout, out)
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	_, err = fmt.Fprintf(g.stdout, "%s\n", b)
	return err
}
