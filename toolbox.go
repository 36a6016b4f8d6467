package wield

import (
	"errors"
	"log/slog"
	"os"
	"sync"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/skill"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askmodel"
	"github.com/wieldhq/wield/tools/askuser"
	"github.com/wieldhq/wield/tools/change"
	"github.com/wieldhq/wield/tools/code"
	"github.com/wieldhq/wield/tools/desktop"
	"github.com/wieldhq/wield/tools/docs"
	"github.com/wieldhq/wield/tools/echo"
	"github.com/wieldhq/wield/tools/env"
	"github.com/wieldhq/wield/tools/fs"
	memorytools "github.com/wieldhq/wield/tools/memory"
	"github.com/wieldhq/wield/tools/plan"
	"github.com/wieldhq/wield/tools/sessiontool"
	"github.com/wieldhq/wield/tools/shell"
	skilltools "github.com/wieldhq/wield/tools/skills"
	"github.com/wieldhq/wield/workspace"
)

// A Toolbox builds wield's own tools, every family the wield command
// offers, and keeps what they share between builds: the shell's job table
// and run_code's named sessions. Close ends the jobs still running and
// removes the sessions' scratch directories.
//
// The zero Toolbox is ready to use. A Toolbox is safe for concurrent use.
type Toolbox struct {
	mu       sync.Mutex
	jobs     *shell.Jobs
	sessions *code.Sessions
}

// ToolsConfig is what one set of wield's own tools is built with. Its zero
// value gives every family with its defaults: no sessions, nobody to ask,
// no sandbox, no memory, no skills, no documents and no desktop.
type ToolsConfig struct {
	// Workspace is the folder the tools work in; "" means the current
	// directory's ([workspace.Find]).
	Workspace string
	// Trusted reports whether the workspace's own configuration applies:
	// only then does git_commit (and git in the shell) run the
	// repository's hooks.
	Trusted bool
	// Store holds the sessions: the session, plan, change and memory tools
	// journal in it, and the file tools add references to a session in
	// the references context mode. Nil means the session tools fail and
	// reads return content.
	Store *session.Store
	// Asker answers ask_user, enter_plan_mode's question and request_env;
	// nil means nobody can answer.
	Asker askuser.Asker
	// Getenv reads the environment the web, GitHub and code tools are
	// configured from (see [webTools], [gitTools]); nil means [os.Getenv].
	Getenv func(string) string
	// Logger receives the tools' warnings; nil discards them.
	Logger *slog.Logger
	// Shell configures run_shell_command and its companions. The toolbox
	// sets Jobs (its own table, unless this one is set), GitHooks (from
	// Trusted) and Env (the values the user gave request_env) on it.
	Shell shell.Config
	// Code configures run_code. Sessions, when nil, is the toolbox's.
	Code code.Config
	// AskModel configures ask_model.
	AskModel askmodel.Config
	// Memory holds the notes of the memory tools; nil means
	// [DefaultMemory] of the workspace.
	Memory *memory.Store
	// Documents is the library of the document tools; nil means the tools
	// fail, saying that no library is set up.
	Documents *retrieval.Library
	// Skills holds the skills of the skill tools; nil means none.
	Skills *skill.Catalog
	// SkillBudget is the skill listing's budget in characters
	// ([skill.Budget]); zero means no limit.
	SkillBudget int
	// Plugins lists the installed plugins for list_plugins; nil means
	// none.
	Plugins skilltools.PluginLister
	// Env configures get_env and request_env. Asker, when nil, asks
	// through Asker.
	Env env.Config
	// Desktop, when set, adds its tool.
	Desktop *desktop.Desktop
}

// Tools returns wield's own tools, in display order, built with cfg. The
// shell's job table is made on first use.
func (b *Toolbox) Tools(cfg ToolsConfig) ([]*tool.Tool, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ws := cfg.Workspace
	if ws == "" {
		ws, _ = workingWorkspace()
	}
	b.mu.Lock()
	if b.jobs == nil && cfg.Shell.Jobs == nil {
		jobs, err := shell.NewJobs(nil)
		if err != nil {
			b.mu.Unlock()
			return nil, err
		}
		b.jobs = jobs
	}
	if b.sessions == nil && cfg.Code.Sessions == nil {
		b.sessions = code.NewSessions(0)
	}
	jobs, sessions := b.jobs, b.sessions
	b.mu.Unlock()

	fsCfg := fs.Config{}
	if cfg.Store != nil {
		fsCfg.Sessions = cfg.Store
		fsCfg.Recorder = cfg.Store // the undo ledger
	}
	ts := []*tool.Tool{echo.New()}
	ts = append(ts, fs.Tools(fsCfg)...)
	sh := cfg.Shell
	if sh.Jobs == nil {
		sh.Jobs = jobs
	}
	if cfg.Env.Vars != nil {
		sh.Env = cfg.Env.Vars.Environ
	}
	sh.GitHooks = cfg.Trusted
	ts = append(ts, shell.Tools(sh)...)
	ts = append(ts, askuser.New(cfg.Asker))
	ts = append(ts, webTools(getenv, log)...)
	ts = append(ts, gitTools(getenv, log, cfg.Trusted)...) // hooks only when trusted
	ts = append(ts, plan.Tools(plan.Config{Sessions: cfg.Store, Asker: cfg.Asker})...)
	mem := cfg.Memory
	if mem == nil {
		mem = DefaultMemory(ws, getenv, log)
	}
	ts = append(ts, memorytools.Tools(memorytools.Config{Store: mem, Sessions: cfg.Store})...)
	if cfg.Store == nil {
		ts = append(ts, change.Tools(change.Config{})...)
	} else {
		ts = append(ts, change.Tools(change.Config{Sessions: cfg.Store})...)
	}
	cc := cfg.Code
	if cc.Sessions == nil {
		cc.Sessions = sessions
	}
	am := cfg.AskModel
	if am.Logger == nil {
		am.Logger = log
	}
	ts = append(ts, code.NewRunCode(cc), askmodel.New(am))
	ts = append(ts, docs.Tools(docs.Config{Library: cfg.Documents})...)
	sk := skilltools.Config{Catalog: cfg.Skills, Sessions: cfg.Store, Budget: cfg.SkillBudget}
	if ws != "" {
		sk.ProjectDir = workspace.Layout{Root: ws}.Skills()
	}
	ts = append(ts, skilltools.Tools(sk)...)
	plugins := cfg.Plugins
	if plugins == nil {
		plugins = skilltools.PluginListerFunc(func() ([]skilltools.PluginInfo, error) { return nil, nil })
	}
	ts = append(ts, skilltools.ListPlugins(plugins))
	ec := cfg.Env
	if ec.Asker == nil && cfg.Asker != nil {
		ec.Asker = envAsker{cfg.Asker}
	}
	ts = append(ts, env.Tools(ec)...)
	if cfg.Desktop != nil {
		ts = append(ts, cfg.Desktop.Tools()...)
	}
	return append(ts, sessiontool.Tools(cfg.Store)...), nil
}

// Close ends the background shell jobs the toolbox's tools started and
// removes run_code's scratch directories.
func (b *Toolbox) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	if b.jobs != nil {
		errs = append(errs, b.jobs.Close())
	}
	if b.sessions != nil {
		errs = append(errs, b.sessions.Close())
	}
	return errors.Join(errs...)
}

// workingWorkspace returns the workspace of the current directory.
func workingWorkspace() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return workspace.Find(cwd)
}
