// Package plan provides the tools that move a session into plan mode and
// out of it: enter_plan_mode and exit_plan_mode.
//
// Plan mode itself is enforced by the policy (package policy), which
// reads each session's mode on every call: in plan mode only read-only
// tools and commands run, and only the session's plan files under
// .wield/plans/SESSION may be written. These tools change the mode
// recorded in the session ([planmode.Set]), so it holds for
// every later call, across runs and resumes.
//
// enter_plan_mode asks the person first, unless [Config] says not to.
// exit_plan_mode writes the plan to .wield/plans/SESSION/SLUG.md (the
// slug comes from the plan's first heading) and asks the person to
// approve it: approved, the session leaves plan mode with the plan
// recorded, and a host pins the plan in later prompts; rejected, it stays
// in plan mode and the model gets the person's feedback. When nobody can
// answer (a headless run), exit_plan_mode records the plan, stays in plan
// mode and returns the plan, so a host can end the run with it.
//
// The tools are built with what they need: [Tools](Config{Sessions:
// store, Asker: asker}).
package plan

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/askuser"
	"github.com/wieldhq/wield/workspace"
)

// The modes the tools record in a session.
const (
	ModePlan    = planmode.Plan
	ModeDefault = planmode.Default
)

// Config is what the plan tools are built with. Its zero value gives
// tools that fail, saying they work only inside a wield session.
type Config struct {
	// Sessions holds the sessions whose mode the tools change: the
	// session of a call is Sessions.Writer(call.SessionID). Nil means
	// every call fails.
	Sessions *session.Store
	// Asker puts the questions to the person: whether to enter plan mode,
	// whether to approve a plan. Nil means nobody can answer: entering
	// plan mode is refused (unless EnterWithoutAsking), and a plan is
	// recorded without approval.
	Asker askuser.Asker
	// EnterWithoutAsking lets enter_plan_mode switch without asking: plan
	// mode only narrows what runs.
	EnterWithoutAsking bool
}

// Tools returns enter_plan_mode and exit_plan_mode, built with cfg.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{EnterPlanMode(cfg), ExitPlanMode(cfg)}
}

// errNoStore is the failure of a plan tool built without a store.
var errNoStore = errors.New("no session service here: plan mode works only inside a wield session")

// current returns the session of cfg.Sessions that call c runs in.
func (cfg Config) current(c *tool.Call) (*session.Session, error) {
	if cfg.Sessions == nil {
		return nil, errNoStore
	}
	if c.SessionID == "" {
		return nil, errors.New("this call belongs to no session")
	}
	s, ok := cfg.Sessions.Writer(c.SessionID)
	if !ok {
		return nil, fmt.Errorf("session %s is not open for writing in this process", c.SessionID)
	}
	return s, nil
}

// Dir returns the workspace-relative slash path of the directory that
// holds the plans of session id: .wield/plans/ID. The policy lets a
// session in plan mode write .md files there and nowhere else.
func Dir(id string) string {
	return path.Join(filepath.ToSlash(workspace.Layout{}.Plans()), id)
}

// maxSlug bounds the length of a plan file's name.
const maxSlug = 60

// Slug returns the file name stem of a plan: its first Markdown heading,
// lower-cased, with runs of anything but ASCII letters and digits made
// one hyphen, cut at a word boundary to at most 60 bytes. A plan with no
// such heading, or one that leaves nothing, gets "plan".
func Slug(plan string) string {
	title := ""
	for line := range strings.Lines(plan) {
		t := strings.TrimSpace(line)
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level >= 1 && level <= 6 && len(t) > level && (t[level] == ' ' || t[level] == '\t') {
			title = t[level:]
			break
		}
	}
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
			continue
		}
		hyphen = true
	}
	s := b.String()
	if len(s) > maxSlug {
		s = s[:maxSlug]
		if i := strings.LastIndexByte(s, '-'); i > 0 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	if s == "" {
		return "plan"
	}
	return s
}
