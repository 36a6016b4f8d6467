package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wieldhq/wield/tool"
)

// JournalVersion is the journal format this package writes. A journal with
// a higher version was written by a newer wield and is refused.
const JournalVersion = 1

// The operations of journal events.
const (
	opBegin      = "begin"      // opens a transaction
	opPool       = "pool"       // appends Turn to the open transaction
	opCommit     = "commit"     // merges the transaction into the turns
	opAbort      = "abort"      // the same, closed as aborted with Reason
	opTurns      = "turns"      // appends committed Turns directly (forks)
	opReferences = "references" // replaces the reference list
	opTodos      = "todos"      // replaces the todo list
	opSet        = "$set"       // sets metadata keys
	opCompress   = "compress"   // older journals: Range of turns shown as Summary (numbered as earlier compressions left them)
	opCompact    = "compact"    // records Compaction
	opUncompact  = "uncompact"  // drops the latest active compaction from the view
	opFork       = "fork"       // records the fork origin
	opPause      = "pause"      // the open transaction awaits approval of Pending
	opFiles      = "files"      // appends Files to the mutation ledger
	opChange     = "change"     // opens or closes the mutation transaction Change
	opRewind     = "rewind"     // records Rewind, with the Files it changed
)

// coreOp reports whether op is one of the session's own operations; any
// other op is a feature's [Record].
func coreOp(op string) bool {
	switch op {
	case opBegin, opPool, opCommit, opAbort, opTurns, opReferences, opTodos, opSet, opCompress,
		opCompact, opUncompact, opFork, opPause, opFiles, opChange, opRewind:
		return true
	}
	return false
}

// An event is one line of a journal after the header.
type event struct {
	Op   string    `json:"op"`
	Time time.Time `json:"t,omitzero"`

	Turn       *Turn                      `json:"turn,omitempty"`
	Turns      []Turn                     `json:"turns,omitempty"`
	Reason     string                     `json:"reason,omitempty"`
	References []Reference                `json:"references,omitempty"`
	Todos      []Todo                     `json:"todos,omitempty"`
	Set        map[string]json.RawMessage `json:"set,omitempty"`
	Range      *[2]int                    `json:"range,omitempty"`
	Summary    string                     `json:"summary,omitempty"`
	Origin     *ForkOrigin                `json:"origin,omitempty"`
	Pending    []tool.PendingCall         `json:"pending,omitempty"`
	Compaction *Compaction                `json:"compaction,omitempty"`
	Files      []FileRecord               `json:"files,omitempty"`
	Change     *ChangeTx                  `json:"change,omitempty"`
	Rewind     *Rewind                    `json:"rewind,omitempty"`

	// line is a record's whole journal line (see [Record]).
	line json.RawMessage
}

// A CorruptError reports a journal line that cannot be read. Only a torn
// last line is repaired; any other bad line is this error, never dropped.
type CorruptError struct {
	Line int
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("journal line %d is corrupt: %v (fix or remove the line by hand; wield never drops committed turns silently)", e.Line, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ErrNewerVersion is wrapped by errors for journals written by a newer wield.
var ErrNewerVersion = errors.New("journal written by a newer version of wield; upgrade wield to open it")

// readResult is what reading a journal yields besides its state.
type readResult struct {
	// good is the byte length of the journal up to the last complete line.
	good int64
	// torn is the number of bytes after good that were cut off.
	torn int64
	// lines counts the complete lines read.
	lines int
}

// readJournal folds the journal in r into a State. A last line that is
// incomplete (no newline) or unparsable is reported through readResult.torn,
// not as an error, so that the writer can cut it off.
func readJournal(r io.Reader) (*State, readResult, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		st  *State
		res readResult
		f   folder
	)
	// Lines are parsed one behind, so that the last line can be treated as
	// possibly torn.
	var pending []byte
	pendingLine := 0
	flush := func(last bool) error {
		if pending == nil {
			return nil
		}
		line := pending
		err := func() error {
			if st == nil {
				h, err := parseHeader(line)
				if err != nil {
					return err
				}
				st = &State{Header: h}
				f.st = st
				return nil
			}
			var e event
			if err := json.Unmarshal(line, &e); err != nil {
				// A record's fields are its feature's: only its op and
				// time need to read as the session's.
				var syntax *json.SyntaxError
				if errors.As(err, &syntax) || coreOp(e.Op) {
					return err
				}
			}
			if !coreOp(e.Op) {
				e.line = bytes.Clone(line)
			}
			return f.apply(&e)
		}()
		if err != nil {
			if errors.Is(err, ErrNewerVersion) {
				return err
			}
			if last {
				res.torn += int64(len(line)) + 1
				res.lines--
				res.good -= int64(len(line)) + 1
				return nil
			}
			return &CorruptError{Line: pendingLine, Err: err}
		}
		return nil
	}
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: collect it whole.
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, res, fmt.Errorf("read journal: %w", err)
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 { // no newline: torn
				if ferr := flush(true); ferr != nil {
					return nil, res, ferr
				}
				res.torn += int64(len(line))
				if st == nil {
					return nil, res, &CorruptError{Line: 1, Err: errors.New("the header line is incomplete")}
				}
				return st, res, nil
			}
			if ferr := flush(true); ferr != nil {
				return nil, res, ferr
			}
			if st == nil {
				return nil, res, &CorruptError{Line: 1, Err: errors.New("the journal is empty or its header is unreadable")}
			}
			return st, res, nil
		}
		if ferr := flush(false); ferr != nil {
			return nil, res, ferr
		}
		res.lines++
		res.good += int64(len(line))
		pendingLine = res.lines
		pending = append(pending[:0], bytes.TrimSuffix(line, []byte{'\n'})...)
	}
}

func parseHeader(line []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	switch {
	case h.Version == 0:
		return h, errors.New("header: not a wield session journal (no \"wield_session\" version)")
	case h.Version > JournalVersion:
		return h, fmt.Errorf("format %d, this wield reads up to %d: %w", h.Version, JournalVersion, ErrNewerVersion)
	case h.ID == "":
		return h, errors.New("header: no session id")
	}
	return h, nil
}

// folder applies events to a State.
type folder struct {
	st *State
}

func (f *folder) apply(e *event) error {
	st := f.st
	switch e.Op {
	case opBegin:
		if st.Open() {
			return errors.New("begin while a transaction is open")
		}
		st.Pool = []Turn{}
		st.Pools = append(st.Pools, PoolRecord{Seq: len(st.Pools) + 1, Status: PoolOpen, Started: e.Time})
	case opPool:
		if !st.Open() {
			return errors.New("pool entry with no open transaction")
		}
		if e.Turn == nil {
			return errors.New("pool entry without a turn")
		}
		st.Pool = append(st.Pool, *e.Turn)
		st.Paused = nil
	case opCommit, opAbort:
		if !st.Open() {
			return fmt.Errorf("%s with no open transaction", e.Op)
		}
		first := len(st.Turns) + 1
		st.Turns = append(st.Turns, st.Pool...)
		st.Pool, st.Paused = nil, nil
		p := &st.Pools[len(st.Pools)-1]
		p.Status, p.Ended, p.Turns = PoolCommitted, e.Time, [2]int{first, len(st.Turns)}
		if e.Op == opAbort {
			p.Status, p.Reason = PoolAborted, e.Reason
		}
	case opTurns:
		st.Turns = append(st.Turns, e.Turns...)
	case opReferences:
		st.References = e.References
	case opTodos:
		st.Todos = e.Todos
	case opSet:
		if st.Meta == nil {
			st.Meta = map[string]json.RawMessage{}
		}
		for k, v := range e.Set {
			if v == nil || string(v) == "null" {
				delete(st.Meta, k)
			} else {
				st.Meta[k] = v
			}
		}
	case opCompress:
		// An older journal's compression rewrote the turns; it becomes a
		// compaction over the turns it covered, which stay.
		if e.Range == nil {
			return errors.New("compress without a range")
		}
		r, err := legacyRange(st, *e.Range)
		if err != nil {
			return err
		}
		c := Compaction{Kind: CompactionSummary, Range: r, Summary: e.Summary, Trigger: TriggerLegacy, Time: e.Time}
		if err := checkCompaction(st, &c); err != nil {
			return err
		}
		st.Compactions = append(st.Compactions, c)
	case opCompact:
		if e.Compaction == nil {
			return errors.New("compact without a compaction")
		}
		c := *e.Compaction
		c.Undone = false
		if err := checkCompaction(st, &c); err != nil {
			return err
		}
		st.Compactions = append(st.Compactions, c)
	case opUncompact:
		i := lastActive(st.Compactions)
		if i < 0 {
			return errors.New("uncompact with no compaction to undo")
		}
		st.Compactions[i].Undone = true
	case opFork:
		st.ForkedFrom = e.Origin
	case opFiles, opChange, opRewind:
		return foldFiles(st, e)
	case opPause:
		if !st.Open() {
			return errors.New("pause with no open transaction")
		}
		st.Paused = e.Pending
		if st.Paused == nil {
			st.Paused = []tool.PendingCall{}
		}
	default:
		if e.Op == "" || e.line == nil {
			return fmt.Errorf("unknown operation %q", e.Op)
		}
		st.Records = append(st.Records, Record{Kind: e.Op, Time: e.Time, Data: e.line, Round: len(st.Pools), Files: len(st.Files)})
	}
	return nil
}

// callIDs returns the ids of the calls a turn makes or answers.
func callIDs(t *Turn) []string {
	switch t.Kind {
	case TurnModelResponse:
		ids := make([]string, len(t.Calls))
		for i, c := range t.Calls {
			ids[i] = c.ID
		}
		return ids
	case TurnFunctionCalling, TurnToolResponse:
		return []string{t.CallID}
	}
	return nil
}

// lastActive returns the index of the latest compaction not undone, or -1.
func lastActive(cs []Compaction) int {
	for i := len(cs) - 1; i >= 0; i-- {
		if !cs[i].Undone {
			return i
		}
	}
	return -1
}
