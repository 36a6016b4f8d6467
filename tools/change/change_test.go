package change_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/change"
	"github.com/wieldhq/wield/tools/fs"
)

type env struct {
	t     *testing.T
	ws    *os.Root
	root  string
	sess  *session.Session
	tools map[string]*tool.Tool
	n     int
}

func newEnv(t *testing.T) *env {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := &session.Store{Dir: t.TempDir()}
	sess, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ws, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	e := &env{t: t, ws: ws, root: root, sess: sess, tools: map[string]*tool.Tool{}}
	for _, tl := range append(fs.Tools(fs.Config{Recorder: store}), change.Tools(change.Config{Sessions: store})...) {
		e.tools[tl.Name()] = tl
	}
	if err := sess.Begin(t.Context(), "task"); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) call(name string, args any) tool.Result {
	e.t.Helper()
	raw, _ := json.Marshal(args)
	e.n++
	c := &tool.Call{SessionID: e.sess.ID(), ID: fmt.Sprintf("c%d", e.n), Tool: name, Root: e.ws}
	res, err := e.tools[name].Handler().Handle(e.t.Context(), c, raw)
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func (e *env) files() string {
	var b strings.Builder
	entries, _ := os.ReadDir(e.root)
	for _, d := range entries {
		data, _ := os.ReadFile(filepath.Join(e.root, d.Name()))
		fmt.Fprintf(&b, "%s=%q;", d.Name(), data)
	}
	return b.String()
}

func TestEndChangeRevertsThreeCallsAsOne(t *testing.T) {
	e := newEnv(t)
	before := e.files()
	if res := e.call("begin_change", map[string]any{"reason": "try it"}); !res.Success {
		t.Fatal(res.Output)
	}
	e.call("write_file", map[string]any{"path": "a.txt", "content": "changed\n"})
	e.call("write_file", map[string]any{"path": "b.txt", "content": "new\n"})
	e.call("replace", map[string]any{"path": "b.txt", "old_string": "new", "new_string": "newer"})
	if e.files() == before {
		t.Fatal("the calls changed nothing")
	}
	res := e.call("end_change", map[string]any{"outcome": "revert"})
	if !res.Success {
		t.Fatalf("end_change revert: %s", res.Output)
	}
	if got := e.files(); got != before {
		t.Errorf("after revert the files are %s, want %s", got, before)
	}
	if res := e.call("end_change", map[string]any{"outcome": "keep"}); res.Success {
		t.Errorf("end_change with none open succeeded: %s", res.Output)
	}
}

func TestEndChangeKeep(t *testing.T) {
	e := newEnv(t)
	e.call("begin_change", map[string]any{"reason": "x"})
	if res := e.call("begin_change", map[string]any{"reason": "y"}); res.Success {
		t.Errorf("a second begin_change succeeded")
	}
	e.call("write_file", map[string]any{"path": "a.txt", "content": "kept\n"})
	if res := e.call("end_change", map[string]any{"outcome": "keep"}); !res.Success {
		t.Fatal(res.Output)
	}
	if got := e.files(); !strings.Contains(got, "kept") {
		t.Errorf("files = %s after keep", got)
	}
}

func TestChangeToolsOutsideSession(t *testing.T) {
	tl := change.NewBeginChange(change.Config{})
	res, err := tl.Handler().Handle(t.Context(), &tool.Call{}, json.RawMessage(`{"reason":"x"}`))
	if err != nil || res.Success {
		t.Errorf("begin_change without a session = %v, %v; want a failure", res, err)
	}
}
