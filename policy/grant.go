package policy

import (
	"github.com/wieldhq/wield/tool"
)

// A GrantSource tells which rules pre-approve the calls of one session:
// wield gives one that returns the allowed-tools of the skills active in
// the session. A grant is an allow rule with a narrower reach than the
// user's own:
//
//   - it is consulted after the user's deny and ask rules, so it never
//     approves what they deny or ask about, and after the plan mode's
//     limits;
//   - for the shell tools it must name commands ("Bash(git log:*)"): a
//     grant of the bare shell is ignored, and a granted command that
//     writes a file or sets variables still asks, as under an allow rule;
//   - it lasts while the source returns it; nothing is saved.
//
// Grants may be called concurrently, for any session id.
type GrantSource interface {
	Grants(sessionID string) []Rule
}

// GrantFunc adapts a function to a [GrantSource].
type GrantFunc func(sessionID string) []Rule

// Grants calls f(sessionID).
func (f GrantFunc) Grants(sessionID string) []Rule { return f(sessionID) }

// grantedBy ends the reason of a call a grant approved.
const grantedBy = " (an active skill's allowed-tools)"

// grants returns the grants of c's session that name toolName.
func (p *Policy) grants(c *tool.Call, toolName string) []Rule {
	if p.Grants == nil || c == nil || c.SessionID == "" {
		return nil
	}
	var out []Rule
	for _, r := range p.Grants.Grants(c.SessionID) {
		if r.matchesTool(toolName) {
			out = append(out, r)
		}
	}
	return out
}
