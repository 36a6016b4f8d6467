package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/spf13/pflag"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/workspace"
)

// outputState is what the global flags --debug and --tty and the log
// add to [globals].
type outputState struct {
	// debug sends the log to stderr, debug records included.
	debug bool
	// tty makes wield run and chat show a terminal's stream (styles, tool
	// lines) on pipes: a hidden flag for tests and screenshots.
	tty bool
	// log is the logger commands give to libraries, made on first use;
	// logFile is where it writes when not --debug, closed by closeLog.
	log      *slog.Logger
	logFile  *os.File
	warnings atomic.Int64
}

// registerOutputFlags adds the global flags of output and logging.
func (g *globals) registerOutputFlags(pf *pflag.FlagSet) {
	pf.BoolVar(&g.debug, "debug", false, "log to stderr, in detail, instead of to .wield/logs/wield.log")
	pf.BoolVar(&g.tty, "tty", false, "show output as on a terminal even when it is not one")
	_ = pf.MarkHidden("tty")
}

// warn tells the user about a problem that does not stop the command,
// on stderr.
func (g *globals) warn(format string, args ...any) {
	fmt.Fprintf(g.stderr, "wield: warning: "+format+"\n", args...)
}

// logger returns the logger commands give to library packages: with
// --debug, everything down to debug records on stderr; otherwise warnings
// and errors on stderr, until a run moves them into its log file (see
// [globals.logToFile]).
func (g *globals) logger() *slog.Logger {
	if g.log == nil {
		level := slog.LevelWarn
		if g.debug {
			level = slog.LevelDebug
		}
		g.log = slog.New(&countingHandler{slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level}), &g.warnings})
	}
	return g.log
}

// logToFile sends the log of a run or chat to the workspace's
// .wield/logs/wield.log (informational records too), so that log lines do
// not break the stream; --debug keeps them on stderr. It returns the
// file's path, or "" when the log stays on stderr.
func (g *globals) logToFile(ws string) string {
	if g.debug || g.logFile != nil {
		return ""
	}
	dir := workspace.Layout{Root: ws}.Logs()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	wield.IgnoreState(ws)
	path := filepath.Join(dir, "wield.log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return ""
	}
	g.logFile = f
	g.log = slog.New(&countingHandler{slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo}), &g.warnings})
	return path
}

// closeLog closes the log file, if a run opened one; later records go to
// stderr.
func (g *globals) closeLog() error {
	if g.logFile == nil {
		return nil
	}
	err := g.logFile.Close()
	g.logFile, g.log = nil, nil
	return err
}

// A countingHandler counts the warnings and errors it handles, so that a
// run can say at its end that its log file has some.
type countingHandler struct {
	slog.Handler
	n *atomic.Int64
}

func (h *countingHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn {
		h.n.Add(1)
	}
	return h.Handler.Handle(ctx, r)
}

func (h *countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &countingHandler{h.Handler.WithAttrs(as), h.n}
}

func (h *countingHandler) WithGroup(name string) slog.Handler {
	return &countingHandler{h.Handler.WithGroup(name), h.n}
}
