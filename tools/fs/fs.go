package fs

import (
	"context"
	"runtime"

	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Config configures the file tools. The zero Config is ready to use: every
// zero field means the default documented on it. Tools copy the Config they
// are built from; changing it later has no effect.
type Config struct {
	// OutputBudget caps the bytes of text one call returns to the model;
	// zero means DefaultOutputBudget, just under the runner's default output
	// limit, so that nothing is cut by the runner in the middle. Every tool
	// stops at the budget and says what it left out.
	OutputBudget int
	// GlobLimit caps the paths glob lists; zero means DefaultGlobLimit.
	GlobLimit int
	// Workers is the number of goroutines that walk and search directory
	// trees in one call; zero means GOMAXPROCS.
	Workers int
	// ExcludePatterns are ignore patterns with the lowest precedence, as in
	// git's core.excludesFile (whose lines the host may pass here; the tools
	// read nothing outside the workspace themselves). Nil means none.
	ExcludePatterns []string
	// Sessions gives read_file and read_many_files the session a call
	// runs in ([tool.Call.SessionID]), so that in the references context
	// mode they add file references instead of returning content. A
	// [*session.Store] serves. Nil means every read returns content.
	Sessions Sessions
	// Recorder is told of every file write_file and replace change, so
	// that the change can be undone (see package ledger). Nil records
	// nothing.
	Recorder Recorder
}

// Sessions finds the sessions that calls run in. [*session.Store]
// implements it; implementations must be safe for concurrent use.
type Sessions interface {
	// Writer returns session id if this process has it open for writing.
	Writer(id string) (*session.Session, bool)
}

// Defaults of [Config].
const (
	DefaultOutputBudget = tool.DefaultOutputLimit - 2_000
	DefaultGlobLimit    = 1_000
)

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.OutputBudget <= 0 {
		c.OutputBudget = DefaultOutputBudget
	}
	if c.GlobLimit <= 0 {
		c.GlobLimit = DefaultGlobLimit
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.ExcludePatterns = append([]string(nil), c.ExcludePatterns...)
	return c
}

// walkConfig returns the walker's part of c.
func (c Config) walkConfig() fstree.Config {
	return fstree.Config{ExcludePatterns: c.ExcludePatterns, Workers: c.Workers}
}

// Tools returns the file tools built from cfg, in the order a model should
// see them: read_file, read_many_files, list_directory, glob,
// search_file_content, replace, write_file.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{
		NewRead(cfg),
		NewReadMany(cfg),
		NewList(cfg),
		NewGlob(cfg),
		NewSearch(cfg),
		NewReplace(cfg),
		NewWrite(cfg),
	}
}

// inWorkspace adapts run, the work of a file tool, to a tool function that
// gives run the workspace of each call. A call without a workspace fails
// with noWorkspace, and run is not called.
func inWorkspace[In any](run func(ctx context.Context, c *tool.Call, w *fstree.Tree, in In) (tool.Result, error)) func(context.Context, *tool.Call, In) (tool.Result, error) {
	return func(ctx context.Context, c *tool.Call, in In) (tool.Result, error) {
		w, ok := openWorkspace(c)
		if !ok {
			return noWorkspace, nil
		}
		return run(ctx, c, w, in)
	}
}
