package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/tool"
)

func newCallCommand(g *globals) *cobra.Command {
	var output string
	var timeout int
	cmd := &cobra.Command{
		Use:   "call NAME [ARGS_JSON | @FILE | -]",
		Short: "call one tool and print its result",
		Long: `Call runs the tool NAME once with the given arguments, exactly as a model's
call would run: the arguments are validated against the tool's schema first,
and the output is bounded.

The arguments are a JSON object given inline, read from FILE with @FILE, or
read from standard input with -. No arguments means {}.

The result is printed as JSON: {"success","output","data","error","durationMs"}.
With -output text only the output is printed (or the error, on stderr).

The exit status is 0 when the tool succeeded, 1 when it failed, and 2 for
bad arguments or an unknown tool.

See also: wield tools.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "json" && output != "text" {
				return &exitError{exitUsage, fmt.Errorf("call: -output must be json or text, not %q", output)}
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
			reg, err := g.registry(cmd.Context(), ws)
			if err != nil {
				return err
			}
			opts := &tool.RunnerOptions{Logger: g.logger()}
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
			if !res.Success {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&output, "output", "json", "what to print: json (the whole result) or text (the output)")
	cmd.Flags().IntVar(&timeout, "timeout", 0, "call timeout in `seconds` (default: the tool's, else 60)")
	return cmd
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
