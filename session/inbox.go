package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wieldhq/wield/tool"
)

// Record adds one tool call and its result to session id from outside a
// run, as the MCP server does for each tools/call. If this Store has the
// session open, the pair joins its open transaction (or is committed as a
// transaction of its own when none is open). If another process is
// writing the session, the pair goes to the session's inbox, which that
// writer merges into its pool when it commits; the journal keeps one
// writer. Otherwise the session is opened, the pair committed, and the
// session closed again.
func (s *Store) Record(ctx context.Context, id string, c *tool.Call, args json.RawMessage, r tool.Result) error {
	if w, ok := s.Writer(id); ok {
		return w.recordPair(ctx, c, args, r)
	}
	// The images' bytes go to the blob store first, whichever way the
	// pair is recorded: the journal and the inbox keep only their hashes.
	imgs, err := s.Blobs(id).putImages(ctx, r.Images)
	if err != nil {
		return fmt.Errorf("session %s: record the result of call %s: %w", id, c.ID, err)
	}
	r.Images = imgs
	w, err := s.Open(ctx, id)
	var busy *BusyError
	if errors.As(err, &busy) {
		return s.toInbox(ctx, id, s.pairTurns(c, args, r))
	}
	if err != nil {
		return err
	}
	err = w.recordPair(ctx, c, args, r)
	return errors.Join(err, w.Close())
}

// recordPair records a call and its result: in the open transaction if
// there is one, else in a transaction of their own.
func (s *Session) recordPair(ctx context.Context, c *tool.Call, args json.RawMessage, r tool.Result) error {
	s.mu.Lock()
	open := s.st.Open()
	if !open {
		if err := s.append(&event{Op: opBegin}, false); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	s.mu.Unlock()
	if err := s.RecordCall(ctx, c, args); err != nil {
		return err
	}
	if err := s.RecordResult(ctx, c, r); err != nil {
		return err
	}
	if !open {
		return s.Commit(ctx)
	}
	return nil
}

// pairTurns builds the turns of a call and its result without recording
// them.
func (s *Store) pairTurns(c *tool.Call, args json.RawMessage, r tool.Result) []Turn {
	now := s.now()
	call := (Turn{Kind: TurnFunctionCalling, Time: now, CallID: c.ID, Tool: c.Tool, Arguments: storable(args)})
	return []Turn{call, resultTurn(c, r, now)}
}

// toInbox appends turns to the inbox of session id.
func (s *Store) toInbox(ctx context.Context, id string, turns []Turn) error {
	red := s.redactor()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range turns {
		turns[i] = red.turn(turns[i])
		if err := enc.Encode(turns[i]); err != nil {
			return fmt.Errorf("session %s inbox: %w", id, err)
		}
	}
	if err := s.backend().AppendInbox(ctx, id, buf.Bytes()); err != nil {
		return fmt.Errorf("session %s inbox: %w", id, err)
	}
	return nil
}

// drainInbox moves the inbox's turns into the open transaction (opening one
// if needed, in which case it is committed too). Called with s.mu held.
func (s *Session) drainInbox(ctx context.Context) error {
	if s.st.Paused != nil {
		return nil // the paused run's pool stays as it was until it resumes
	}
	var appendErr error // from the journal: already names the session
	err := s.store.backend().DrainInbox(ctx, s.ID(), func(data []byte) error {
		appendErr = s.poolInbox(data)
		return appendErr
	})
	if err != nil && err != appendErr {
		return fmt.Errorf("session %s inbox: %w", s.ID(), err)
	}
	return err
}

// poolInbox appends the turns of an inbox, data, to the open
// transaction, opening one and committing it when none is open.
func (s *Session) poolInbox(data []byte) error {
	var turns []Turn
	for line := range bytes.Lines(data) {
		if line[len(line)-1] != '\n' {
			break // torn: an append a crash cut short
		}
		var t Turn
		if json.Unmarshal(line, &t) == nil {
			turns = append(turns, t)
		}
	}
	if len(turns) == 0 {
		return nil
	}
	opened := false
	if !s.st.Open() {
		if err := s.append(&event{Op: opBegin}, false); err != nil {
			return err
		}
		opened = true
	}
	for i := range turns {
		if err := s.append(&event{Op: opPool, Turn: &turns[i]}, false); err != nil {
			return err
		}
	}
	if opened {
		return s.append(&event{Op: opCommit}, true)
	}
	return nil
}
