package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// The actions of an [MCPServerRecord].
const (
	// MCPServerAdd: the agent registered the server (register_mcp_server).
	MCPServerAdd = "add"
	// MCPServerRemove: the server went, by an undo of its registration.
	MCPServerRemove = "remove"
	// MCPServerConfirm: the user confirmed the server, whose tools then
	// stop asking at every call.
	MCPServerConfirm = "confirm"
)

// An MCPServerRecord is one change of the MCP servers an agent registered
// in a session: a journal record, so that a resumed session mounts them
// again and an undo of the change that registered one takes it away.
//
// It holds no secret: of the server's environment and HTTP headers only
// the names are kept. A resumed session takes their values from wield's
// environment.
type MCPServerRecord struct {
	// Action is MCPServerAdd, MCPServerRemove or MCPServerConfirm.
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
	// Round is the transaction of the session the record was made in (0
	// before the first). Group is the ledger group an undo takes back
	// whole (as for [FileRecord.Group]); a confirmation has none, since
	// it is the user's decision, not a change an undo takes back.
	Round int    `json:"round"`
	Group string `json:"group,omitempty"`

	// files is the number of file records before this one in the
	// journal, which orders its group among theirs.
	files int
}

// Position returns the number of file records the journal held when r
// was recorded: r's place among [State.Files], which orders the ledger
// groups.
func (r *MCPServerRecord) Position() int { return r.files }

// An MCPServerRecorder is told of each MCP server an agent registers.
// [*Store] implements it. RecordMCPServer must be safe for concurrent
// use.
type MCPServerRecorder interface {
	RecordMCPServer(ctx context.Context, sessionID string, r MCPServerRecord) error
}

// RecordMCPServer appends r to the session sessionID names, if this store
// has it open for writing (a child agent's record goes to its top-level
// session, as [Store.RecordFileChange] does); a record of a session not
// open here is dropped. It implements [MCPServerRecorder].
func (s *Store) RecordMCPServer(_ context.Context, sessionID string, r MCPServerRecord) error {
	if sessionID == "" {
		return nil
	}
	ss, ok := s.Writer(sessionID)
	if !ok {
		return nil
	}
	for range 8 {
		h := ss.st.Header.Child
		if h == nil {
			break
		}
		parent, ok := s.Writer(h.Session)
		if !ok {
			break
		}
		ss = parent
	}
	_, err := ss.AppendMCPServer(r)
	return err
}

// AppendMCPServer appends r to the journal and returns it as recorded. An
// add or a remove without a Round gets the open transaction's, and one
// without a Group the open mutation transaction's, else its round's.
func (s *Session) AppendMCPServer(r MCPServerRecord) (MCPServerRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Round == 0 {
		r.Round = s.st.round()
	}
	if r.Group == "" && r.Action != MCPServerConfirm {
		r.Group = RoundGroup(r.Round)
		if c := s.st.OpenChange(); c != nil {
			r.Group = c.Group()
		}
	}
	r.Args, r.Env, r.Headers = slices.Clone(r.Args), slices.Clone(r.Env), slices.Clone(r.Headers)
	if err := checkMCPServerRecord(&r); err != nil {
		return MCPServerRecord{}, fmt.Errorf("session %s: %w", s.ID(), err)
	}
	return r, s.append(&event{Op: opMCPServer, MCPServer: &r}, true)
}

// checkMCPServerRecord reports what is wrong with a record.
func checkMCPServerRecord(r *MCPServerRecord) error {
	switch {
	case r.Name == "":
		return errors.New("mcp server record without a name")
	case r.Action == MCPServerAdd && r.Command == "" && r.URL == "":
		return fmt.Errorf("mcp server record of %q: an add needs a command or a url", r.Name)
	case r.Action != MCPServerAdd && r.Action != MCPServerRemove && r.Action != MCPServerConfirm:
		return fmt.Errorf("mcp server record of %q: unknown action %q", r.Name, r.Action)
	case r.Action != MCPServerConfirm && r.Group == "":
		return fmt.Errorf("mcp server record of %q has no group", r.Name)
	}
	return nil
}

// foldMCPServer applies an mcp_server event to st.
func foldMCPServer(st *State, e *event) error {
	if e.MCPServer == nil {
		return errors.New("mcp_server event without a record")
	}
	r := *e.MCPServer
	if err := checkMCPServerRecord(&r); err != nil {
		return err
	}
	r.files = len(st.Files)
	st.MCPServerLog = append(st.MCPServerLog, r)
	return nil
}

// An MCPServer is an MCP server the agent registered that is in effect in
// a session, as [State.MCPServers] reports it.
type MCPServer struct {
	// Added is the record that registered it.
	Added MCPServerRecord
	// Confirmed reports whether the user confirmed it since.
	Confirmed bool
}

// MCPServers returns the MCP servers the agent registered that are in
// effect, in the order they were registered: the adds and removes of the
// ledger groups no rewind in effect has taken back, applied in order.
// A confirmation holds for the registration it followed; a server
// registered again with another command or URL must be confirmed again.
func (s *State) MCPServers() []MCPServer {
	if len(s.MCPServerLog) == 0 {
		return nil
	}
	undone := s.undoneGroups()
	var out []MCPServer
	find := func(name string) int {
		return slices.IndexFunc(out, func(m MCPServer) bool { return m.Added.Name == name })
	}
	for _, r := range s.MCPServerLog {
		if r.Group != "" && undone[r.Group] {
			continue
		}
		i := find(r.Name)
		switch r.Action {
		case MCPServerAdd:
			m := MCPServer{Added: r}
			if i >= 0 {
				m.Confirmed = out[i].Confirmed && sameServer(&out[i].Added, &r)
				out = slices.Delete(out, i, i+1)
			}
			out = append(out, m)
		case MCPServerRemove:
			if i >= 0 {
				out = slices.Delete(out, i, i+1)
			}
		case MCPServerConfirm:
			if i >= 0 {
				out[i].Confirmed = true
			}
		}
	}
	return out
}

// sameServer reports whether a and b start or reach the same server.
func sameServer(a, b *MCPServerRecord) bool {
	return a.Transport == b.Transport && a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL &&
		slices.Equal(a.Env, b.Env) && slices.Equal(a.Headers, b.Headers)
}

// MCPGroups returns the ledger groups of the MCP server adds and removes
// in effect, each with the position of its first record among the file
// records (see [MCPServerRecord.Position]), oldest first.
func (s *State) MCPGroups() (groups []string, positions []int) {
	undone := s.undoneGroups()
	for _, r := range s.MCPServerLog {
		if r.Group == "" || undone[r.Group] || slices.Contains(groups, r.Group) {
			continue
		}
		groups = append(groups, r.Group)
		positions = append(positions, r.files)
	}
	return groups, positions
}
