package ledger_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/session"
)

// A tool reports a change to the session's ledger; PlanUndo shows what
// taking it back does, and Apply does it, recording the undo so that it
// can be undone in turn.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "ledger-example")
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "work")
	_ = os.MkdirAll(root, 0o755)
	store := &session.Store{Dir: filepath.Join(dir, "sessions")}
	sess, _ := store.Create(ctx, session.Header{})
	defer sess.Close()
	_ = sess.Begin(ctx, "greet")

	// What write_file does: write, then report the change.
	_ = os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644)
	_ = store.RecordFileChange(ctx, session.FileChange{SessionID: sess.ID(), CallID: "call-1", Root: root,
		Path: "hello.txt", After: &session.FileContent{Data: []byte("hello\n"), Mode: 0o644}})
	_ = sess.Commit(ctx)

	plan, err := ledger.PlanUndo(sess.State(), ledger.Scope{Code: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range plan.Actions {
		fmt.Println(plan.Groups, a.Kind, a.Path, "conflict:", a.Conflict)
	}
	res, err := ledger.Apply(ctx, sess, plan, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = os.Stat(filepath.Join(root, "hello.txt"))
	fmt.Println("exists:", err == nil, "undo recorded as", res.Rewind.Group())
	// Output:
	// [round:1] delete hello.txt conflict: false
	// exists: false undo recorded as rewind:1
}
