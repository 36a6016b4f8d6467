package session

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
)

// FuzzReadJournal feeds arbitrary bytes to the journal reader: it must
// never panic, and whatever it accepts must fold consistently.
func FuzzReadJournal(f *testing.F) {
	header := `{"wield_session":1,"id":"f","created_at":"2026-11-23T12:00:00Z"}` + "\n"
	f.Add([]byte(header))
	f.Add([]byte(header + `{"op":"begin"}` + "\n" + `{"op":"pool","turn":{"kind":"user_task","text":"t"}}` + "\n" + `{"op":"commit"}` + "\n"))
	f.Add([]byte(header + `{"op":"begin"}` + "\n" + `{"op":"pool","turn":{"kind":"function_calling","call_id":"a","tool":"x"}}` + "\n"))
	f.Add([]byte(header + `{"op":"todos","todos":[{"title":"a","status":"done"}]}` + "\n" + `{"op":"$set","set":{"k":1}}` + "\n"))
	f.Add([]byte(header + `{"op":"turns","turns":[{"kind":"user_task"},{"kind":"user_task"}]}` + "\n" + `{"op":"compress","range":[1,2],"summary":"s"}` + "\n"))
	f.Add([]byte(header + `{"op":"pool"`))
	f.Add([]byte(header + `{"op":"turns","turns":[{"kind":"user_task"},{"kind":"model_response","calls":[{"id":"a","name":"x"}]},{"kind":"tool_response","call_id":"a","status":"succeeded","output":"` + strings.Repeat("o", 300) + `"}]}` + "\n" +
		`{"op":"compact","compaction":{"kind":"mask","range":[1,3]}}` + "\n" + `{"op":"compact","compaction":{"kind":"summary","range":[1,3],"summary":"s"}}` + "\n" + `{"op":"uncompact"}` + "\n"))
	root := `"root":"/w"`
	h := `"` + strings.Repeat("a", 64) + `"`
	f.Add([]byte(header + `{"op":"begin"}` + "\n" + `{"op":"pool","turn":{"kind":"user_task","text":"t"}}` + "\n" +
		`{"op":"files","files":[{` + root + `,"path":"a.txt","after_hash":` + h + `,"round":1,"group":"round:1","source":"tool"}]}` + "\n" +
		`{"op":"change","change":{"seq":1,"round":1}}` + "\n" + `{"op":"change","change":{"seq":1,"round":1,"outcome":"revert"}}` + "\n" +
		`{"op":"commit"}` + "\n" + `{"op":"rewind","rewind":{"seq":1,"reverts":["round:1"],"hide":[1,1]},"files":[{` + root + `,"path":"a.txt","before_hash":` + h + `,"round":1,"group":"rewind:1","source":"rewind"}]}` + "\n"))
	f.Add([]byte(header + `{"op":"files","files":[{"root":"rel","path":"../x","group":"g"}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, rr, err := readJournal(bytes.NewReader(data))
		if err != nil {
			if st != nil {
				t.Fatal("state returned with an error")
			}
			return
		}
		if rr.good < 0 || rr.good+rr.torn != int64(len(data)) {
			t.Fatalf("good %d + torn %d != %d bytes", rr.good, rr.torn, len(data))
		}
		// The good prefix alone reads to the same state, with nothing torn.
		st2, rr2, err := readJournal(bytes.NewReader(data[:rr.good]))
		if err != nil || rr2.torn != 0 {
			t.Fatalf("good prefix: torn %d, err %v", rr2.torn, err)
		}
		if len(st2.Turns) != len(st.Turns) || st2.Open() != st.Open() {
			t.Fatalf("good prefix folds differently")
		}
		for _, tr := range st.Turns {
			if tr.Kind == TurnCompressedHistory && (tr.Range == nil || tr.Range[0] > tr.Range[1]) {
				t.Fatalf("bad compressed range %v", tr.Range)
			}
		}
		_ = Messages(st.Turns)
		// The prompt view keeps every result after its call where the
		// turns do.
		h, pool := st.Project()
		if ordered(Messages(append(slices.Clone(st.Turns), st.Pool...))) && !ordered(append(h, pool...)) {
			t.Fatalf("the projection shows a result before (or without) its call")
		}
	})
}

// ordered reports whether every tool message follows its call.
func ordered(msgs []llm.Message) bool {
	called := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			called[c.ID] = true
		}
		if m.Role == llm.RoleTool && !called[m.ToolCallID] {
			return false
		}
	}
	return true
}
