// Package memory provides the tools that let a model remember across
// sessions, on a [memory.Store]: save_memory, search_memory, read_memory,
// and memory, which has the command set of Anthropic's memory tool
// (view, create, str_replace, insert, delete, rename on /memories) so
// that models trained on it work unchanged.
//
// The tools are built with what they work on: [Tools](Config{Store: s,
// Sessions: st}). A nil Store gives tools that fail, saying memory is
// not set up.
//
// # Safety
//
// The writing tools are not read-only, so a policy asks before they run
// wherever it asks for a file write; they are not edit tools either, so
// auto-edit mode still asks for them. Writes to the user's memory, which
// reaches every workspace, thus always ask unless a rule allows them.
// (A policy that told project writes from user writes would need rules
// on arguments; today's rules match tool names for these tools.)
//
// Every write is journaled in the session that made it, when
// Config.Sessions has that session open: [session.Session.Set] records
// the key "memory:SCOPE:ID" with what was done, so the journal holds
// every write in order while the state keeps the last one per note. A
// note written in a session that had read external content (a
// successful result of a tool Config.External names: web_fetch,
// web_search and MCP tools by default) is marked tainted in its
// frontmatter, in the journal and in MEMORY.md.
package memory

import (
	"errors"
	"strings"
	"time"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Config is what the memory tools are built with.
type Config struct {
	// Store holds the notes; nil gives tools that fail.
	Store *memory.Store
	// Sessions, if not nil, is where writes are journaled (the call's
	// session, when this store has it open) and where the tools look for
	// external content the session read.
	Sessions *session.Store
	// External reports whether results of the named tool are external
	// content; nil means [DefaultExternal].
	External func(tool string) bool
}

// DefaultExternal reports whether name is web_fetch, web_search or an
// MCP tool (mcp__server__tool).
func DefaultExternal(name string) bool {
	return name == "web_fetch" || name == "web_search" || strings.HasPrefix(name, "mcp__")
}

// Tools returns the memory tools in display order.
func Tools(cfg Config) []*tool.Tool {
	return []*tool.Tool{SaveMemory(cfg), SearchMemory(cfg), ReadMemory(cfg), Memory(cfg)}
}

// errNoStore is the failure of a tool built without a store.
var errNoStore = errors.New("memory is not set up in this run")

// A write is one memory write, as journaled.
type write struct {
	Op      string       `json:"op"` // save, delete or rename
	Scope   memory.Scope `json:"scope"`
	ID      string       `json:"id"`
	To      string       `json:"to,omitempty"` // a rename's new id
	Tool    string       `json:"tool"`
	CallID  string       `json:"call_id,omitempty"`
	Tainted bool         `json:"tainted,omitempty"`
	Time    time.Time    `json:"time"`
}

// session returns the call's session if Sessions has it open.
func (cfg *Config) session(c *tool.Call) *session.Session {
	if cfg.Sessions == nil || c == nil || c.SessionID == "" {
		return nil
	}
	s, _ := cfg.Sessions.Writer(c.SessionID)
	return s
}

// tainted reports whether the call's session has a successful result of
// an external tool.
func (cfg *Config) tainted(c *tool.Call) bool {
	s := cfg.session(c)
	if s == nil {
		return false
	}
	external := cfg.External
	if external == nil {
		external = DefaultExternal
	}
	st := s.State()
	for _, turns := range [][]session.Turn{st.Turns, st.Pool} {
		for _, t := range turns {
			if t.Kind == session.TurnToolResponse && t.Status == session.StatusSucceeded && external(t.Tool) {
				return true
			}
		}
	}
	return false
}

// journal records w in the call's session, if there is one; its error
// means the write happened but is not journaled.
func (cfg *Config) journal(c *tool.Call, w write) error {
	s := cfg.session(c)
	if s == nil {
		return nil
	}
	w.Tool, w.CallID, w.Time = c.Tool, c.ID, time.Now().UTC()
	return s.Set(map[string]any{"memory:" + string(w.Scope) + ":" + w.ID: w})
}

// note returns a new note as the call writes it.
func (cfg *Config) note(c *tool.Call, scope memory.Scope, id, body string, tags []string) memory.Note {
	n := memory.Note{ID: id, Scope: scope, Tags: tags, Body: body, Source: memory.SourceAgent, Tainted: cfg.tainted(c)}
	if c != nil {
		n.SourceSession = c.SessionID
	}
	return n
}
