// Package registered keeps the MCP servers an agent registered in a
// session (the register_mcp_server tool of package mcp) as records in the
// session's journal ([session.Record]), so that a resumed session mounts
// them again and an undo of the change that registered one takes it
// away (package ledger).
//
// An [Entry] holds no secret: of the server's environment and HTTP
// headers only the names are kept. A resumed session takes their values
// from wield's environment.
package registered

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/wieldhq/wield/session"
)

// Kind is the kind of the records ([session.Record.Kind]).
const Kind = "mcp_server"

// The actions of an [Entry].
const (
	// Add: the agent registered the server (register_mcp_server).
	Add = "add"
	// Remove: the server went, by an undo of its registration.
	Remove = "remove"
	// Confirm: the user confirmed the server, whose tools then stop
	// asking at every call.
	Confirm = "confirm"
)

// An Entry is one change of the MCP servers an agent registered in a
// session.
type Entry struct {
	// Action is Add, Remove or Confirm.
	Action string `json:"action"`
	// Name is the server's name.
	Name string `json:"name"`
	// Transport is "stdio", "http" or "sse"; Command and Args start a
	// stdio server, URL reaches an HTTP one. Set on adds.
	Transport string   `json:"transport,omitempty"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	// Env and Headers are the names of the variables and headers the
	// server was given, never their values.
	Env     []string `json:"env,omitempty"`
	Headers []string `json:"headers,omitempty"`
	// CallID names the tool call that registered the server.
	CallID string `json:"call_id,omitempty"`
	// Round is the transaction of the session the entry was made in (0
	// before the first). Group is the ledger group an undo takes back
	// whole (as for [session.FileRecord.Group]); a confirmation has none,
	// since it is the user's decision, not a change an undo takes back.
	Round int    `json:"round"`
	Group string `json:"group,omitempty"`

	// files is the number of file records before this one in the
	// journal, which orders its group among theirs.
	files int
}

// line is an entry's journal record.
type line struct {
	Entry *Entry `json:"mcp_server"`
}

// Position returns the number of file records the journal held when e
// was recorded: e's place among [session.State.Files], which orders the
// ledger groups.
func (e *Entry) Position() int { return e.files }

// A Recorder is told of each MCP server an agent registers.
// RecordMCPServer must be safe for concurrent use.
type Recorder interface {
	RecordMCPServer(ctx context.Context, sessionID string, e Entry) error
}

// Store records entries in the sessions of a [session.Store]. It
// implements [Recorder].
type Store struct {
	Sessions *session.Store
}

// RecordMCPServer appends e to the session sessionID names, if the store
// has it open for writing (a child agent's entry goes to its top-level
// session, as its file changes do: see [session.Store.TopWriter]); an
// entry of a session not open here is dropped.
func (s Store) RecordMCPServer(_ context.Context, sessionID string, e Entry) error {
	if sessionID == "" || s.Sessions == nil {
		return nil
	}
	ss, ok := s.Sessions.TopWriter(sessionID)
	if !ok {
		return nil
	}
	_, err := Append(ss, e)
	return err
}

// Append appends e to the journal of s and returns it as recorded. An add
// or a remove without a Round gets the open transaction's, and one
// without a Group the open mutation transaction's, else its round's.
func Append(s *session.Session, e Entry) (Entry, error) {
	e.Args, e.Env, e.Headers = slices.Clone(e.Args), slices.Clone(e.Env), slices.Clone(e.Headers)
	rec, err := s.AppendFunc(Kind, func(st *session.State) (any, error) {
		if e.Round == 0 && len(st.Pools) > 0 {
			e.Round = st.Pools[len(st.Pools)-1].Seq
		}
		if e.Group == "" && e.Action != Confirm {
			e.Group = session.RoundGroup(e.Round)
			if c := st.OpenChange(); c != nil {
				e.Group = c.Group()
			}
		}
		if err := check(&e); err != nil {
			return nil, fmt.Errorf("session %s: %w", s.ID(), err)
		}
		return line{Entry: &e}, nil
	})
	if err != nil {
		return Entry{}, err
	}
	e.files = rec.Files
	return e, nil
}

// check reports what is wrong with an entry.
func check(e *Entry) error {
	switch {
	case e.Name == "":
		return errors.New("mcp server record without a name")
	case e.Action == Add && e.Command == "" && e.URL == "":
		return fmt.Errorf("mcp server record of %q: an add needs a command or a url", e.Name)
	case e.Action != Add && e.Action != Remove && e.Action != Confirm:
		return fmt.Errorf("mcp server record of %q: unknown action %q", e.Name, e.Action)
	case e.Action != Confirm && e.Group == "":
		return fmt.Errorf("mcp server record of %q has no group", e.Name)
	}
	return nil
}

// Entries returns the entries of st, oldest first. A record that does not
// read as an entry is left out: it registers nothing.
func Entries(st *session.State) []Entry {
	var out []Entry
	for _, r := range st.RecordsOf(Kind) {
		var l line
		if r.Decode(&l) != nil || l.Entry == nil || check(l.Entry) != nil {
			continue
		}
		e := *l.Entry
		e.files = r.Files
		out = append(out, e)
	}
	return out
}

// A Server is an MCP server the agent registered that is in effect in a
// session, as [Servers] reports it.
type Server struct {
	// Added is the entry that registered it.
	Added Entry
	// Confirmed reports whether the user confirmed it since.
	Confirmed bool
}

// Servers returns the MCP servers the agent registered that are in
// effect in st, in the order they were registered: the adds and removes
// of the ledger groups no rewind in effect has taken back, applied in
// order. A confirmation holds for the registration it followed; a server
// registered again with another command or URL must be confirmed again.
func Servers(st *session.State) []Server {
	log := Entries(st)
	if len(log) == 0 {
		return nil
	}
	undone := st.UndoneGroups()
	var out []Server
	find := func(name string) int {
		return slices.IndexFunc(out, func(m Server) bool { return m.Added.Name == name })
	}
	for _, e := range log {
		if e.Group != "" && undone[e.Group] {
			continue
		}
		i := find(e.Name)
		switch e.Action {
		case Add:
			m := Server{Added: e}
			if i >= 0 {
				m.Confirmed = out[i].Confirmed && Same(&out[i].Added, &e)
				out = slices.Delete(out, i, i+1)
			}
			out = append(out, m)
		case Remove:
			if i >= 0 {
				out = slices.Delete(out, i, i+1)
			}
		case Confirm:
			if i >= 0 {
				out[i].Confirmed = true
			}
		}
	}
	return out
}

// Same reports whether a and b start or reach the same server.
func Same(a, b *Entry) bool {
	return a.Transport == b.Transport && a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL &&
		slices.Equal(a.Env, b.Env) && slices.Equal(a.Headers, b.Headers)
}

// Groups returns the ledger groups of the adds and removes in effect in
// st, each with the position of its first entry among the file records
// (see [Entry.Position]), oldest first.
func Groups(st *session.State) (groups []string, positions []int) {
	undone := st.UndoneGroups()
	for _, e := range Entries(st) {
		if e.Group == "" || undone[e.Group] || slices.Contains(groups, e.Group) {
			continue
		}
		groups = append(groups, e.Group)
		positions = append(positions, e.files)
	}
	return groups, positions
}
