package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// A ModeSource tells a [Policy] the mode a session is in now. A host that
// keeps sessions implements it over its store, so that a mode recorded
// in the session (plan mode entered, a plan approved) holds for every
// later call, across runs and resumes. Mode may be called concurrently.
type ModeSource interface {
	// Mode returns the mode of the session sessionID and reports whether
	// the session has one; false means the Policy's own Mode applies.
	Mode(sessionID string) (Mode, bool)
}

// ModeFunc adapts a function to a [ModeSource].
type ModeFunc func(sessionID string) (Mode, bool)

// Mode calls f(sessionID).
func (f ModeFunc) Mode(sessionID string) (Mode, bool) { return f(sessionID) }

// PlanDir returns the workspace-relative slash path of the directory in
// which a session in plan mode may write its plan files:
// .wield/plans/SESSION. It returns "" when sessionID is not one plain
// path element.
func PlanDir(sessionID string) string {
	if sessionID == "" || sessionID == "." || sessionID == ".." || strings.ContainsAny(sessionID, "/\\\x00") {
		return ""
	}
	return path.Join(filepath.ToSlash(workspace.Layout{}.Plans()), sessionID)
}

// planAdvice ends every plan-mode refusal: what the model can do instead.
const planAdvice = "describe the change in the plan instead (write it to your plan file, then call exit_plan_mode)"

// judgePlan applies plan mode's limits to a call. It reports false with a
// deny when the call may not run in plan mode; true means the call goes
// on to the rules like any other. The deny comes before rules, hooks'
// allows and any question to a person, so nothing lets such a call run.
func (p *Policy) judgePlan(c *tool.Call, name string, ann tool.Annotations, args json.RawMessage) (tool.Decision, bool) {
	deny := func(format string, a ...any) (tool.Decision, bool) {
		return tool.Decision{Verdict: tool.Deny, Reason: "plan mode: " + fmt.Sprintf(format, a...) + "; " + planAdvice}, false
	}
	switch {
	case p.isShell(name):
		line, ok := argString(args, "command")
		if !ok {
			return deny("the shell call has no command string, so it cannot be shown to be read-only")
		}
		if why := readOnlyLine(line); why != "" {
			return deny("only read-only shell commands run, and %s", why)
		}
	case p.isEdit(name):
		sid := ""
		if c != nil {
			sid = c.SessionID
		}
		if why := p.planFile(sid, args); why != "" {
			return deny("%s may write only the session's plan file, and %s", name, why)
		}
	case !ann.ReadOnly:
		return deny("only read-only tools run, and %s changes things", name)
	}
	return tool.Decision{}, true
}

// planFile returns why a write with args is not to a plan file of the
// session sessionID, or "" when it is: a .md file directly in
// [PlanDir](sessionID). With a Root, no part of that path under the
// workspace may be a symbolic link, so that the write cannot land
// elsewhere; a link made after the decision is not seen.
func (p *Policy) planFile(sessionID string, args json.RawMessage) string {
	dir := PlanDir(sessionID)
	if dir == "" {
		return "this call belongs to no session, so it has no plan file"
	}
	raw, ok := argString(args, "path")
	if !ok {
		return "the call has no path"
	}
	rel, ok := workspaceRel(p.Root, raw)
	if !ok {
		return fmt.Sprintf("%q is outside the workspace", raw)
	}
	if path.Dir(rel) != dir || path.Ext(rel) != ".md" || strings.HasPrefix(path.Base(rel), ".") {
		return fmt.Sprintf("%q is not a .md file in %s/", raw, dir)
	}
	if p.Root == "" {
		return ""
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		fi, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(strings.Join(parts[:i+1], "/"))))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Sprintf("%s cannot be checked: %v", strings.Join(parts[:i+1], "/"), err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Sprintf("%s is a symbolic link", strings.Join(parts[:i+1], "/"))
		}
	}
	return ""
}
