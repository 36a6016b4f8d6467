package ledger

import (
	"cmp"
	"math"
	"slices"

	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/session"
)

// An MCPAction is an MCP server an undo takes away or brings back: one
// the agent registered (see [registered.Entry]).
type MCPAction struct {
	// Name is the server's name.
	Name string
	// Remove reports whether the server goes; else it comes back (an undo
	// of the undo that took it away).
	Remove bool
	// Server is the registration in effect before (Remove) or after.
	Server registered.Entry
}

// activeGroups returns the ledger groups in effect of st, oldest first:
// those of [session.State.ActiveGroups] and those with MCP server records
// only, each placed by its first record.
func activeGroups(st *session.State) []string {
	groups := st.ActiveGroups()
	mcp, pos := registered.Groups(st)
	for i, g := range mcp {
		if slices.Contains(groups, g) {
			continue
		}
		at := slices.IndexFunc(groups, func(h string) bool { return firstFile(st, h) >= pos[i] })
		if at < 0 {
			at = len(groups)
		}
		groups = slices.Insert(groups, at, g)
	}
	return groups
}

// firstFile returns the index of the first file record of group g, or
// math.MaxInt when it has none (a conversation rewind's group).
func firstFile(st *session.State, g string) int {
	if i := slices.IndexFunc(st.Files, func(r session.FileRecord) bool { return r.Group == g }); i >= 0 {
		return i
	}
	return math.MaxInt
}

// mcpFrom reports whether group g has an MCP server record of round n or
// later.
func mcpFrom(st *session.State, g string, n int) bool {
	return slices.ContainsFunc(registered.Entries(st), func(r registered.Entry) bool { return r.Group == g && r.Round >= n })
}

// mcpActions returns the MCP servers that taking groups back removes or
// brings back, by name.
func mcpActions(st *session.State, groups []string) []MCPAction {
	if len(registered.Entries(st)) == 0 || len(groups) == 0 {
		return nil
	}
	before := registered.Servers(st)
	after := *st
	after.Rewinds = append(slices.Clone(st.Rewinds), session.Rewind{Seq: len(st.Rewinds) + 1, Reverts: groups})
	now := registered.Servers(&after)
	find := func(list []registered.Server, name string) *registered.Server {
		if i := slices.IndexFunc(list, func(m registered.Server) bool { return m.Added.Name == name }); i >= 0 {
			return &list[i]
		}
		return nil
	}
	var out []MCPAction
	for _, b := range before {
		if a := find(now, b.Added.Name); a == nil || !registered.Same(&a.Added, &b.Added) {
			out = append(out, MCPAction{Name: b.Added.Name, Remove: true, Server: b.Added})
		}
	}
	for _, a := range now {
		if b := find(before, a.Added.Name); b == nil || !registered.Same(&a.Added, &b.Added) {
			out = append(out, MCPAction{Name: a.Added.Name, Server: a.Added})
		}
	}
	slices.SortStableFunc(out, func(x, y MCPAction) int {
		if x.Name != y.Name {
			return cmp.Compare(x.Name, y.Name)
		}
		if x.Remove == y.Remove {
			return 0
		}
		if x.Remove {
			return -1 // a server replaced goes before it comes back
		}
		return 1
	})
	return out
}

// recordMCP appends to sess, in the rewind's group, the removes and adds
// the plan's MCP actions make, so that the journal says what the undo did
// to the servers and an undo of the undo brings them back.
func recordMCP(sess *session.Session, group string, actions []MCPAction) error {
	for _, a := range actions {
		r := a.Server
		r.Action, r.Group, r.Round, r.CallID = registered.Add, group, 0, ""
		if a.Remove {
			r = registered.Entry{Action: registered.Remove, Name: a.Name, Group: group}
		}
		if _, err := registered.Append(sess, r); err != nil {
			return err
		}
	}
	return nil
}
