package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The sources of a [FileRecord].
const (
	// SourceTool: a tool told the ledger of the change as it made it.
	SourceTool = "tool"
	// SourceShell: a tree snapshot after the round found a change no tool
	// reported (a shell command's, or anyone else's during the round).
	SourceShell = "shell"
	// SourceRewind: an undo or rewind made the change.
	SourceRewind = "rewind"
)

// A FileContent is one version of a file, as a recorder is told of it.
type FileContent struct {
	// Data is the content; for a symbolic link, the link's target.
	Data []byte
	// Mode holds the permission bits, and [iofs.ModeSymlink] for a link.
	Mode iofs.FileMode
}

// A FileChange is a change of one file, as a tool reports it to a
// [FileRecorder] after it made it.
type FileChange struct {
	// SessionID and CallID name the session and the tool call that made
	// the change; a change without a session is not recorded.
	SessionID, CallID string
	// Root is the absolute directory Path is relative to: the call's
	// workspace root, or wield's own configuration directory.
	Root string
	// Path is slash-separated and relative to Root.
	Path string
	// Before and After are the file before and after the change; nil
	// means the file did not exist (it was created) or no longer does (it
	// was deleted).
	Before, After *FileContent
}

// A FileRecorder is told of every file change a tool makes, after the
// change. [*Store] implements it: the change goes to the session the call
// runs in. RecordFileChange must be safe for concurrent use; it does not
// retain ch's slices.
type FileRecorder interface {
	RecordFileChange(ctx context.Context, ch FileChange) error
}

// A FileRecord is one change of one file as the session's ledger holds it:
// the content before and after, by their hashes in the session's blob
// store. An empty hash means the file was absent.
type FileRecord struct {
	// Root is the absolute directory Path is relative to.
	Root string `json:"root"`
	// Path is slash-separated and relative to Root.
	Path string `json:"path"`
	// BeforeHash and AfterHash are the SHA-256 (hex) of the content before
	// and after; empty means absent: a created file has no BeforeHash, a
	// deleted one no AfterHash.
	BeforeHash string `json:"before_hash,omitempty"`
	AfterHash  string `json:"after_hash,omitempty"`
	// BeforeMode and Mode are the file modes before and after (permission
	// bits, and [iofs.ModeSymlink] for a link, whose content is its target).
	BeforeMode iofs.FileMode `json:"before_mode,omitempty"`
	Mode       iofs.FileMode `json:"mode,omitempty"`
	// CallID names the tool call that made a SourceTool change.
	CallID string `json:"call_id,omitempty"`
	// Round is the transaction of the session (its [PoolRecord.Seq]) the
	// change happened in, or the latest one when none was open (0 before
	// the first).
	Round int `json:"round"`
	// Group is the unit an undo takes back whole: "round:N" by default,
	// "change:N" inside a mutation transaction ([Session.BeginChange]),
	// "rewind:N" for the changes an undo made.
	Group string `json:"group"`
	// Source is SourceTool, SourceShell or SourceRewind.
	Source string `json:"source"`
	// Pre marks a shell change found before the round's first tool change
	// of the same file: it happened first.
	Pre bool `json:"pre,omitempty"`
}

// Before returns the record's state before the change.
func (r *FileRecord) Before() FileRef { return FileRef{Hash: r.BeforeHash, Mode: r.BeforeMode} }

// After returns the record's state after the change.
func (r *FileRecord) After() FileRef { return FileRef{Hash: r.AfterHash, Mode: r.Mode} }

// A FileRef is one version of a file in the ledger: its content's hash in
// the blob store and its mode. The zero FileRef is an absent file.
type FileRef struct {
	Hash string        `json:"hash,omitempty"`
	Mode iofs.FileMode `json:"mode,omitempty"`
}

// Exists reports whether the file exists in this version.
func (r FileRef) Exists() bool { return r.Hash != "" }

// A ChangeTx is a mutation transaction: the file changes of several calls
// that an undo takes back as one (see [Session.BeginChange]).
type ChangeTx struct {
	// Seq numbers the session's mutation transactions from 1; its group is
	// "change:Seq".
	Seq    int    `json:"seq"`
	Reason string `json:"reason,omitempty"`
	// Round is the transaction of the session it was opened in.
	Round int `json:"round"`
	// Outcome is "" while open, then "keep" or "revert".
	Outcome string `json:"outcome,omitempty"`
}

// Group returns the transaction's ledger group.
func (c *ChangeTx) Group() string { return "change:" + strconv.Itoa(c.Seq) }

// Open reports whether the transaction is still open.
func (c *ChangeTx) Open() bool { return c.Outcome == "" }

// The outcomes of a [ChangeTx].
const (
	ChangeKeep   = "keep"
	ChangeRevert = "revert"
)

// A Rewind records an undo or rewind: the groups whose changes it took
// back, and, for a conversation rewind, the turns it hides from prompts.
// Its own file changes are [FileRecord]s of group "rewind:Seq", so it can
// be undone in turn.
type Rewind struct {
	// Seq numbers the session's rewinds from 1.
	Seq int `json:"seq"`
	// Reverts lists the groups taken back.
	Reverts []string `json:"reverts,omitempty"`
	// ToRound is the round the session was rewound to the start of; 0 for
	// an undo of groups.
	ToRound int `json:"to_round,omitempty"`
	// Hide is the 1-based inclusive range of turns no longer shown in
	// prompts (a conversation rewind); zero when none.
	Hide [2]int `json:"hide,omitzero"`
	// Conflicts lists the paths that had changed since the ledger's record
	// and were overwritten on confirmation.
	Conflicts []string `json:"conflicts,omitempty"`
}

// Group returns the rewind's ledger group.
func (r *Rewind) Group() string { return "rewind:" + strconv.Itoa(r.Seq) }

// RoundGroup returns the ledger group of round n.
func RoundGroup(n int) string { return "round:" + strconv.Itoa(n) }

// HashBytes returns the ledger's hash of data: SHA-256, in hex.
func HashBytes(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ActiveGroups returns the ledger groups whose changes are in effect,
// oldest first: every group with file records, or a conversation rewind,
// that no rewind in effect has taken back.
func (s *State) ActiveGroups() []string {
	undone := s.UndoneGroups()
	var out []string
	seen := map[string]bool{}
	for i := range s.Files {
		g := s.Files[i].Group
		if !seen[g] && !undone[g] {
			out = append(out, g)
		}
		seen[g] = true
	}
	for i := range s.Rewinds {
		g := s.Rewinds[i].Group()
		if !seen[g] && !undone[g] && s.Rewinds[i].Hide != [2]int{} {
			out = append(out, g)
		}
		seen[g] = true
	}
	return out
}

// UndoneGroups returns the groups a rewind in effect has taken back. A
// rewind can only be taken back by a later one, so the newest are decided
// first.
func (s *State) UndoneGroups() map[string]bool {
	undone := map[string]bool{}
	for i := len(s.Rewinds) - 1; i >= 0; i-- {
		r := &s.Rewinds[i]
		if undone[r.Group()] {
			continue
		}
		for _, g := range r.Reverts {
			undone[g] = true
		}
	}
	return undone
}

// GroupUndone reports whether a rewind in effect has taken group back.
func (s *State) GroupUndone(group string) bool { return s.UndoneGroups()[group] }

// OpenChange returns the open mutation transaction, or nil.
func (s *State) OpenChange() *ChangeTx {
	if n := len(s.ChangeTxs); n > 0 && s.ChangeTxs[n-1].Open() {
		return &s.ChangeTxs[n-1]
	}
	return nil
}

// hiddenRanges returns the turn ranges the conversation rewinds in effect
// hide from prompts.
func (s *State) hiddenRanges() [][2]int {
	if len(s.Rewinds) == 0 {
		return nil
	}
	undone := s.UndoneGroups()
	var out [][2]int
	for i := range s.Rewinds {
		r := &s.Rewinds[i]
		if r.Hide != [2]int{} && !undone[r.Group()] {
			out = append(out, r.Hide)
		}
	}
	return out
}

// round returns the number of the open transaction, or of the latest
// when none is open (0 before the first).
func (s *State) round() int {
	if len(s.Pools) == 0 {
		return 0
	}
	return s.Pools[len(s.Pools)-1].Seq
}

// FileCount returns the number of file records in the ledger, without
// copying the state: records from this index on are newer.
func (s *Session) FileCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.st.Files)
}

// checkFileRecord reports what is wrong with a file record.
func checkFileRecord(r *FileRecord) error {
	if !filepath.IsAbs(r.Root) {
		return fmt.Errorf("file record root %q is not absolute", r.Root)
	}
	if r.Path == "" || !iofs.ValidPath(r.Path) || r.Path == "." || path.Clean(r.Path) != r.Path {
		return fmt.Errorf("file record path %q is not a clean relative path", r.Path)
	}
	for _, h := range []string{r.BeforeHash, r.AfterHash} {
		if h != "" && !validHash(h) {
			return fmt.Errorf("file record of %s: %q is not a sha256 hash", r.Path, h)
		}
	}
	if r.Group == "" {
		return fmt.Errorf("file record of %s has no group", r.Path)
	}
	return nil
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// RecordFileChange records ch in the session ch.SessionID names, if this
// store has it open for writing; a change of a session that is not open
// here is not recorded (there is no ledger to keep it). A child agent's
// change goes to the ledger of its top-level session, when that is open
// here too: the person undoes what the run did, children included. It
// implements [FileRecorder].
func (s *Store) RecordFileChange(ctx context.Context, ch FileChange) error {
	if ch.SessionID == "" {
		return nil
	}
	ss, ok := s.TopWriter(ch.SessionID)
	if !ok {
		return nil
	}
	return ss.RecordFileChange(ctx, ch)
}

// RecordFileChange stores ch's contents in the session's blob store and
// appends a [FileRecord] of source SourceTool to the journal, in the open
// mutation transaction's group if there is one, else the round's. A
// change that changes nothing is not recorded. The change has happened
// when it is recorded, so its record is written even when ctx is done:
// the contents are stored under ctx's values but not its cancellation.
func (s *Session) RecordFileChange(ctx context.Context, ch FileChange) error {
	ctx = context.WithoutCancel(ctx)
	rec := FileRecord{Root: ch.Root, Path: ch.Path, CallID: ch.CallID, Source: SourceTool}
	blobs := s.Blobs()
	if ch.Before != nil {
		h, err := blobs.Put(ctx, ch.Before.Data)
		if err != nil {
			return fmt.Errorf("session %s: record change of %s: %w", s.ID(), ch.Path, err)
		}
		rec.BeforeHash, rec.BeforeMode = h, ch.Before.Mode
	}
	if ch.After != nil {
		h, err := blobs.Put(ctx, ch.After.Data)
		if err != nil {
			return fmt.Errorf("session %s: record change of %s: %w", s.ID(), ch.Path, err)
		}
		rec.AfterHash, rec.Mode = h, ch.After.Mode
	}
	return s.AppendFileRecords([]FileRecord{rec})
}

// AppendFileRecords appends records to the ledger, whose contents the
// caller has put in [Session.Blobs]. A record without a Round gets the
// open transaction's; one without a Group gets the open mutation
// transaction's, else its round's. Records whose before and after are
// the same are dropped.
func (s *Session) AppendFileRecords(records []FileRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []FileRecord
	for _, r := range records {
		if r.Before() == r.After() {
			continue
		}
		if r.Round == 0 {
			r.Round = s.st.round()
		}
		if r.Group == "" {
			r.Group = RoundGroup(r.Round)
			if c := s.st.OpenChange(); c != nil {
				r.Group = c.Group()
			}
		}
		if r.Source == "" {
			r.Source = SourceTool
		}
		if err := checkFileRecord(&r); err != nil {
			return fmt.Errorf("session %s: %w", s.ID(), err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	return s.append(&event{Op: opFiles, Files: out}, s.store.Sync == SyncAlways)
}

// BeginChange opens a mutation transaction: until [Session.EndChange], the
// file changes recorded are one group, which an undo keeps or takes back
// whole. Only one may be open at a time.
func (s *Session) BeginChange(reason string) (ChangeTx, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.st.OpenChange(); c != nil {
		return ChangeTx{}, fmt.Errorf("session %s: change %d (%q) is still open; end it first", s.ID(), c.Seq, c.Reason)
	}
	c := ChangeTx{Seq: len(s.st.ChangeTxs) + 1, Reason: s.red.text(reason), Round: s.st.round()}
	return c, s.append(&event{Op: opChange, Change: &c}, true)
}

// EndChange closes the open mutation transaction with outcome ChangeKeep
// or ChangeRevert and returns it. Taking the changes back is the caller's
// (package ledger does it); the record only closes the group.
func (s *Session) EndChange(outcome string) (ChangeTx, error) {
	if outcome != ChangeKeep && outcome != ChangeRevert {
		return ChangeTx{}, fmt.Errorf("session %s: end change: outcome %q is not %q or %q", s.ID(), outcome, ChangeKeep, ChangeRevert)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.st.OpenChange()
	if c == nil {
		return ChangeTx{}, fmt.Errorf("session %s: end change: no change is open; begin one first", s.ID())
	}
	end := *c
	end.Outcome = outcome
	return end, s.append(&event{Op: opChange, Change: &end}, true)
}

// AppendRewind records r, numbered next, with the file changes the rewind
// made (their group is set to r's), and returns it. The contents of
// files must be in [Session.Blobs].
func (s *Session) AppendRewind(r Rewind, files []FileRecord) (Rewind, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.st.Rewinds) + 1
	if err := checkHide(&s.st, r.Hide); err != nil {
		return Rewind{}, fmt.Errorf("session %s: rewind: %w", s.ID(), err)
	}
	rec := make([]FileRecord, 0, len(files))
	for _, f := range files {
		f.Group, f.Source = r.Group(), SourceRewind
		if f.Round == 0 {
			f.Round = s.st.round()
		}
		if err := checkFileRecord(&f); err != nil {
			return Rewind{}, fmt.Errorf("session %s: rewind: %w", s.ID(), err)
		}
		rec = append(rec, f)
	}
	return r, s.append(&event{Op: opRewind, Rewind: &r, Files: rec}, true)
}

// foldFiles applies the ledger's events to st.
func foldFiles(st *State, e *event) error {
	switch e.Op {
	case opFiles:
		if len(e.Files) == 0 {
			return errors.New("files event without files")
		}
		for i := range e.Files {
			if err := checkFileRecord(&e.Files[i]); err != nil {
				return err
			}
		}
		st.Files = append(st.Files, e.Files...)
	case opChange:
		if e.Change == nil {
			return errors.New("change event without a change")
		}
		c := *e.Change
		open := st.OpenChange()
		switch {
		case c.Open() && open != nil:
			return fmt.Errorf("change %d begun while change %d is open", c.Seq, open.Seq)
		case c.Open():
			if c.Seq != len(st.ChangeTxs)+1 {
				return fmt.Errorf("change %d out of sequence", c.Seq)
			}
			st.ChangeTxs = append(st.ChangeTxs, c)
		case open == nil || open.Seq != c.Seq:
			return fmt.Errorf("change %d ended but not open", c.Seq)
		default:
			*open = c
		}
	case opRewind:
		if e.Rewind == nil {
			return errors.New("rewind event without a rewind")
		}
		r := *e.Rewind
		if r.Seq != len(st.Rewinds)+1 {
			return fmt.Errorf("rewind %d out of sequence", r.Seq)
		}
		for i := range e.Files {
			if err := checkFileRecord(&e.Files[i]); err != nil {
				return err
			}
		}
		if err := checkHide(st, r.Hide); err != nil {
			return err
		}
		st.Rewinds = append(st.Rewinds, r)
		st.Files = append(st.Files, e.Files...)
	}
	return nil
}

// checkHide reports whether hide (zero for none) can be hidden from
// prompts: whole rounds, from a task to the turn before the next task or
// the end, so that no call is hidden without its result.
func checkHide(st *State, hide [2]int) error {
	if hide == [2]int{} {
		return nil
	}
	n := st.Timeline()
	if hide[0] < 1 || hide[1] < hide[0] || hide[1] > n {
		return fmt.Errorf("turns %d-%d are out of range; the session has %d", hide[0], hide[1], n)
	}
	if st.TurnAt(hide[0]).Kind != TurnUserTask || hide[1] < n && st.TurnAt(hide[1]+1).Kind != TurnUserTask {
		return fmt.Errorf("turns %d-%d are not whole rounds: a rewind hides from a task to the turn before the next", hide[0], hide[1])
	}
	return nil
}

// cloneLedger deep-copies the ledger's slices of st.
func cloneLedger(st *State) {
	st.Files = slices.Clone(st.Files)
	st.ChangeTxs = slices.Clone(st.ChangeTxs)
	st.Rewinds = slices.Clone(st.Rewinds)
}

// GroupRound returns the round a "round:N" group names, and reports
// whether it is one.
func GroupRound(group string) (int, bool) {
	s, ok := strings.CutPrefix(group, "round:")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}
