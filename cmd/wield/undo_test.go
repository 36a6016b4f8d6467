package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/session"
)

func TestUndoInChat(t *testing.T) {
	root := t.TempDir()
	store := &session.Store{Dir: t.TempDir()}
	sess, err := store.Create(t.Context(), session.Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	g := &globals{workdir: root}
	var out bytes.Buffer
	msg, err := g.undoInChat(t.Context(), sess, strings.NewReader(""), &out, false)
	if err != nil || msg != "nothing to undo" {
		t.Fatalf("undoInChat on an empty ledger = %q, %v", msg, err)
	}
	if err := sess.Begin(t.Context(), "task"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sess.RecordFileChange(t.Context(), session.FileChange{SessionID: sess.ID(), Root: root, Path: "a.txt",
		After: &session.FileContent{Data: []byte("new"), Mode: 0o644}}); err != nil {
		t.Fatal(err)
	}
	// Asked and refused: nothing changes.
	msg, err = g.undoInChat(t.Context(), sess, strings.NewReader("n\n"), &out, true)
	if err != nil || msg != "nothing changed" {
		t.Fatalf("undoInChat refused = %q, %v", msg, err)
	}
	if !strings.Contains(out.String(), "delete     a.txt") {
		t.Errorf("preview = %q, want the deletion of a.txt", out.String())
	}
	msg, err = g.undoInChat(t.Context(), sess, strings.NewReader("y\n"), &out, true)
	if err != nil || !strings.Contains(msg, "1 file(s) restored") {
		t.Fatalf("undoInChat = %q, %v", msg, err)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt still exists after /undo: %v", err)
	}
}

func TestReportOpenChange(t *testing.T) {
	store := &session.Store{Dir: t.TempDir()}
	sess, err := store.Create(t.Context(), session.Header{ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.BeginChange("risky refactor"); err != nil {
		t.Fatal(err)
	}
	sess.Close() // as a crash would leave it: the change open
	sess, err = store.Open(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var errOut bytes.Buffer
	g := &globals{stderr: &errOut}
	g.reportOpenChange(sess)
	if want := "wield undo --session s1 --group change:1"; !strings.Contains(errOut.String(), want) {
		t.Errorf("report = %q, want the command %q", errOut.String(), want)
	}
	if c := sess.State().OpenChange(); c != nil {
		t.Errorf("the interrupted change is still open: %+v", c)
	}
	errOut.Reset()
	g.reportOpenChange(sess)
	if errOut.Len() != 0 {
		t.Errorf("a second report printed %q", errOut.String())
	}
}

func TestUndoRoundsWatches(t *testing.T) {
	plain, repo := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ws, env string
		whole         bool
	}{
		{"git repository", repo, "", true},
		{"git repository, off", repo, "0", false},
		{"plain directory", plain, "", false},
		{"plain directory, on", plain, "1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &session.Store{Dir: filepath.Join(tt.ws, ".wield", "sessions")}
			obs := wield.UndoTracker(tt.ws, store, func(k string) string {
				if k == "WIELD_SNAPSHOTS" {
					return tt.env
				}
				return ""
			}, slog.New(slog.DiscardHandler))
			tr, ok := obs.(*ledger.Tracker)
			if !ok {
				t.Fatalf("UndoTracker = %T, want a *ledger.Tracker", obs)
			}
			whole := false
			for _, w := range tr.Watch {
				if w.Root == tt.ws && w.Snapshots.Only == nil {
					whole = true
				}
			}
			if whole != tt.whole {
				t.Errorf("the whole workspace watched = %v, want %v", whole, tt.whole)
			}
		})
	}
}
