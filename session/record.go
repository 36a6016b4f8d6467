package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A Record is an entry a feature keeps in a session's journal beside the
// conversation, the ledger and the compactions: the mode a session is in
// (package session/planmode), the MCP servers an agent registered
// (package mcp/registered). Package session knows none of their kinds:
// it appends records, keeps them whole and in order in [State.Records],
// carries them through reads, repairs and exports, and gives them back;
// the feature that wrote them reads what they mean. A feature adds its
// records without changing this package.
//
// A record is one journal line, {"op": Kind, "t": Time, ...}, with the
// fields of the value it was appended with; its fields must therefore not
// be called "op" or "t". A kind is any name that is not one of the
// session's own operations; kinds a wield does not know are kept and
// ignored, so a feature whose records an older wield must not ignore
// needs a new [JournalVersion].
type Record struct {
	// Kind names what the record records.
	Kind string
	// Time is when it was appended.
	Time time.Time
	// Data is the record's journal line, a JSON object; [Record.Decode]
	// reads it.
	Data json.RawMessage
	// Round is the number of transactions the session had begun when the
	// record was appended: the open one's, or the last one's.
	Round int
	// Files is the number of file records the ledger held when it was
	// appended: its place among [State.Files], which orders the ledger's
	// groups.
	Files int
}

// Decode decodes the record's data into v, as [json.Unmarshal] does.
func (r Record) Decode(v any) error {
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("decode %s record: %w", r.Kind, err)
	}
	return nil
}

// A RecordSource gives the latest record of a kind: [*Session] and
// [*State] are both one, so that a feature reads its state from either.
type RecordSource interface {
	Latest(kind string) (Record, bool)
}

// Latest returns the latest record of kind, and reports whether there is
// one.
func (s *State) Latest(kind string) (Record, bool) {
	for i := len(s.Records) - 1; i >= 0; i-- {
		if s.Records[i].Kind == kind {
			return s.Records[i], true
		}
	}
	return Record{}, false
}

// RecordsOf returns the records of kind, oldest first.
func (s *State) RecordsOf(kind string) []Record {
	var out []Record
	for _, r := range s.Records {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// Append appends a record of kind holding v, which must encode to a JSON
// object, and forces it to disk as a commit is. Secrets in it are
// redacted as in turns. It returns the record as the journal holds it.
func (s *Session) Append(kind string, v any) (Record, error) {
	return s.AppendFunc(kind, func(*State) (any, error) { return v, nil })
}

// AppendFunc appends the record of kind that build returns, built from
// the session's state at the moment it is appended: the session is
// locked while build runs, so no other change comes between what build
// reads and the record. build must not keep st or call the session. An
// error from build is returned, and nothing is appended.
func (s *Session) AppendFunc(kind string, build func(st *State) (any, error)) (Record, error) {
	if err := checkKind(kind); err != nil {
		return Record{}, fmt.Errorf("session %s: %w", s.ID(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := build(&s.st)
	if err != nil {
		return Record{}, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the journal's own lines are written
	if err := enc.Encode(v); err != nil {
		return Record{}, fmt.Errorf("session %s: encode %s record: %w", s.ID(), kind, err)
	}
	e := event{Op: kind, Time: s.store.now()}
	if e.line, err = recordLine(kind, e.Time, s.red.json(buf.Bytes())); err != nil {
		return Record{}, fmt.Errorf("session %s: %w", s.ID(), err)
	}
	if err := s.append(&e, true); err != nil {
		return Record{}, err
	}
	return s.st.Records[len(s.st.Records)-1], nil
}

// Latest returns the latest record of kind without copying the session's
// state, and reports whether there is one: a policy may ask on every
// call.
func (s *Session) Latest(kind string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Latest(kind)
}

// checkKind reports whether kind may name records.
func checkKind(kind string) error {
	switch {
	case kind == "":
		return errors.New("a record needs a kind")
	case coreOp(kind):
		return fmt.Errorf("%q is an operation of the session itself, not a record kind", kind)
	}
	return nil
}

// recordLine returns the journal line of a record: its op and time, then
// the fields of data, a JSON object.
func recordLine(op string, t time.Time, data json.RawMessage) ([]byte, error) {
	head, err := json.Marshal(struct {
		Op   string    `json:"op"`
		Time time.Time `json:"t,omitzero"`
	}{op, t})
	if err != nil {
		return nil, err
	}
	body := bytes.TrimSpace(data)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, fmt.Errorf("a %s record must encode to a JSON object, not %.20s", op, body)
	}
	inner := bytes.TrimSpace(body[1 : len(body)-1])
	line := head[:len(head)-1]
	if len(inner) > 0 {
		line = append(append(line, ','), inner...)
	}
	return append(line, '}'), nil
}
