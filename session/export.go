package session

import (
	"encoding/json"
	"time"
)

// An Export is a whole session as one JSON document, for people and other
// tools. Its field names are stable.
type Export struct {
	SessionID  string      `json:"session_id"`
	CreatedAt  time.Time   `json:"created_at"`
	ParentID   string      `json:"parent_id,omitempty"`
	ForkedFrom *ForkOrigin `json:"forked_from,omitempty"`
	Purpose    string      `json:"purpose,omitempty"`
	Background string      `json:"background,omitempty"`
	Roles      []string    `json:"roles,omitempty"`
	Agent      string      `json:"agent,omitempty"`
	Model      string      `json:"model,omitempty"`
	References []Reference `json:"references"`
	Turns      []Turn      `json:"turns"`
	// Pool holds the open transaction's turns, if one is open.
	Pool  []Turn                     `json:"pool,omitempty"`
	Pools []PoolRecord               `json:"pools"`
	Todos []Todo                     `json:"todos"`
	Meta  map[string]json.RawMessage `json:"meta,omitempty"`
}

// Export returns st as an [Export].
func (st *State) Export() *Export {
	h := st.Header
	nonNil := func(v []Turn) []Turn {
		if v == nil {
			return []Turn{}
		}
		return v
	}
	x := &Export{SessionID: h.ID, CreatedAt: h.CreatedAt, ParentID: h.ParentID, ForkedFrom: st.ForkedFrom,
		Purpose: h.Purpose, Background: h.Background, Roles: h.Roles, Agent: h.Agent, Model: h.Model,
		References: st.References, Turns: nonNil(st.Turns), Pool: st.Pool, Pools: st.Pools, Todos: st.Todos, Meta: st.Meta}
	if x.References == nil {
		x.References = []Reference{}
	}
	if x.Pools == nil {
		x.Pools = []PoolRecord{}
	}
	if x.Todos == nil {
		x.Todos = []Todo{}
	}
	return x
}
