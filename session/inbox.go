package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

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
	imgs, err := s.Blobs(id).putImages(r.Images)
	if err != nil {
		return fmt.Errorf("session %s: record the result of call %s: %w", id, c.ID, err)
	}
	r.Images = imgs
	w, err := s.Open(id)
	var busy *BusyError
	if errors.As(err, &busy) {
		return s.toInbox(id, s.pairTurns(c, args, r))
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

func (s *Store) inboxPath(id string) string { return filepath.Join(s.dir(), id+".inbox.jsonl") }

// toInbox appends turns to the inbox of session id, under the inbox's own
// lock (held only for the append).
func (s *Store) toInbox(id string, turns []Turn) error {
	red := s.redactor()
	for i := range turns {
		turns[i] = red.turn(turns[i])
	}
	l := flock.New(s.inboxPath(id) + ".lock")
	if err := l.Lock(); err != nil {
		return fmt.Errorf("session %s inbox: %w", id, err)
	}
	defer l.Unlock()
	f, err := os.OpenFile(s.inboxPath(id), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("session %s inbox: %w", id, err)
	}
	enc := json.NewEncoder(f)
	for _, t := range turns {
		if err := enc.Encode(t); err != nil {
			f.Close()
			return fmt.Errorf("session %s inbox: %w", id, err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("session %s inbox: %w", id, err)
	}
	return f.Close()
}

// drainInbox moves the inbox's turns into the open transaction (opening one
// if needed, in which case it is committed too). Called with s.mu held.
func (s *Session) drainInbox() error {
	if s.st.Paused != nil {
		return nil // the paused run's pool stays as it was until it resumes
	}
	path := s.store.inboxPath(s.ID())
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	l := flock.New(path + ".lock")
	if err := l.Lock(); err != nil {
		return fmt.Errorf("session %s inbox: %w", s.ID(), err)
	}
	defer l.Unlock()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	var turns []Turn
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var t Turn
			if json.Unmarshal(line, &t) == nil {
				turns = append(turns, t)
			}
		}
		if err == io.EOF || err != nil {
			break
		}
	}
	f.Close()
	if len(turns) > 0 {
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
			if err := s.append(&event{Op: opCommit}, true); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("session %s inbox: %w", s.ID(), err)
	}
	return nil
}
