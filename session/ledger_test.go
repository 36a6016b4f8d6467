package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSession_RecordFileChange(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	s, err := store.Create(t.Context(), Header{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root := t.TempDir()
	if err := s.Begin(ctx, "task"); err != nil {
		t.Fatal(err)
	}
	changes := []FileChange{
		{CallID: "c1", Path: "a.txt", After: &FileContent{Data: []byte("new"), Mode: 0o644}},
		{CallID: "c2", Path: "a.txt", Before: &FileContent{Data: []byte("new"), Mode: 0o644}, After: &FileContent{Data: []byte("newer"), Mode: 0o755}},
		{CallID: "c3", Path: "same.txt", Before: &FileContent{Data: []byte("x"), Mode: 0o644}, After: &FileContent{Data: []byte("x"), Mode: 0o644}},
	}
	for _, ch := range changes {
		ch.SessionID, ch.Root = s.ID(), root
		if err := store.RecordFileChange(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.BeginChange("group")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginChange("again"); err == nil {
		t.Error("a second BeginChange while one is open succeeded")
	}
	if err := s.RecordFileChange(ctx, FileChange{SessionID: s.ID(), CallID: "c4", Root: root, Path: "a.txt",
		Before: &FileContent{Data: []byte("newer"), Mode: 0o755}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EndChange("maybe"); err == nil {
		t.Error("EndChange with a bad outcome succeeded")
	}
	if _, err := s.EndChange(ChangeKeep); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Load(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	want := []FileRecord{
		{Root: root, Path: "a.txt", AfterHash: HashBytes([]byte("new")), Mode: 0o644, CallID: "c1", Round: 1, Group: "round:1", Source: SourceTool},
		{Root: root, Path: "a.txt", BeforeHash: HashBytes([]byte("new")), BeforeMode: 0o644, AfterHash: HashBytes([]byte("newer")), Mode: 0o755, CallID: "c2", Round: 1, Group: "round:1", Source: SourceTool},
		{Root: root, Path: "a.txt", BeforeHash: HashBytes([]byte("newer")), BeforeMode: 0o755, CallID: "c4", Round: 1, Group: c.Group(), Source: SourceTool},
	}
	if diff := cmp.Diff(want, st.Files); diff != "" {
		t.Errorf("ledger after reload (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ChangeTx{{Seq: 1, Reason: "group", Round: 1, Outcome: ChangeKeep}}, st.ChangeTxs); diff != "" {
		t.Errorf("change transactions (-want +got):\n%s", diff)
	}
	for _, h := range []string{"new", "newer"} {
		got, err := store.Blobs(s.ID()).Get(ctx, HashBytes([]byte(h)))
		if err != nil || string(got) != h {
			t.Errorf("blob of %q = %q, %v", h, got, err)
		}
	}
	if diff := cmp.Diff([]string{"round:1", "change:1"}, st.ActiveGroups()); diff != "" {
		t.Errorf("active groups (-want +got):\n%s", diff)
	}
}

func TestFileRecordRefusesBadPaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "w")
	for _, p := range []string{"", ".", "../x", "/etc/passwd", "a/../b", "a//b"} {
		r := FileRecord{Root: root, Path: p, Group: "round:1"}
		if err := checkFileRecord(&r); err == nil {
			t.Errorf("checkFileRecord(path %q) = nil, want an error", p)
		}
	}
	r := FileRecord{Root: "relative", Path: "a", Group: "round:1"}
	if err := checkFileRecord(&r); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("checkFileRecord(relative root) = %v", err)
	}
}

func TestBlobs_GetRefusesCorruptBlob(t *testing.T) {
	b := NewBlobs(t.TempDir(), true)
	h, err := b.Put(t.Context(), []byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if h2, _ := b.Put(t.Context(), []byte("content")); h2 != h {
		t.Errorf("Put twice gave %s and %s", h, h2)
	}
	if err := writeFileForTest(filepath.Join(b.Dir(), h), "tampered"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(t.Context(), h); err == nil {
		t.Error("Get of a tampered blob succeeded")
	}
	if _, err := b.Get(t.Context(), HashBytes([]byte("never"))); err == nil {
		t.Error("Get of a missing blob succeeded")
	}
}

func writeFileForTest(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

func TestSession_PruneBlobs(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	s, err := store.Create(t.Context(), Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root := t.TempDir()
	content := func(c byte) []byte { return []byte(strings.Repeat(string(c), 1000)) }
	put := func(b []byte) string {
		h, err := s.Blobs().Put(t.Context(), b)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// a.txt: tool A -> B, shell B -> C; b.txt: shell X -> Y.
	recs := []FileRecord{
		{Root: root, Path: "a.txt", BeforeHash: put(content('A')), AfterHash: put(content('B')), Source: SourceTool},
		{Root: root, Path: "b.txt", BeforeHash: put(content('X')), AfterHash: put(content('Y')), Source: SourceShell},
		{Root: root, Path: "a.txt", BeforeHash: HashBytes(content('B')), AfterHash: put(content('C')), Source: SourceShell},
	}
	if err := s.AppendFileRecords(recs); err != nil {
		t.Fatal(err)
	}
	rep, err := s.PruneBlobs(t.Context(), 3500)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before != 5000 || rep.After > 3500 || rep.Dropped != 2 {
		t.Errorf("PruneBlobs = %+v, want 5000 -> 3000 bytes, 2 dropped", rep)
	}
	for c, want := range map[byte]bool{'A': true, 'B': false, 'X': false, 'Y': true, 'C': true} {
		if got := s.Blobs().Has(t.Context(), HashBytes(content(c))); got != want {
			t.Errorf("after pruning, blob %c kept = %v, want %v", c, got, want)
		}
	}
}

func TestStore_RecordFileChangeOfChildGoesToTopSession(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	parent, err := store.Create(t.Context(), Header{ID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	child, err := store.Create(t.Context(), Header{ID: "c", Child: &ChildOf{Session: "p", Call: "agent-1", Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	ctx := context.Background()
	if err := parent.Begin(ctx, "task"); err != nil {
		t.Fatal(err)
	}
	if err := store.RecordFileChange(ctx, FileChange{SessionID: "c", CallID: "w1", Root: t.TempDir(), Path: "a.txt",
		After: &FileContent{Data: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if n, m := parent.FileCount(), child.FileCount(); n != 1 || m != 0 {
		t.Errorf("records: parent %d, child %d; want the change in the parent's ledger", n, m)
	}
	if !store.Blobs("p").Has(ctx, HashBytes([]byte("x"))) {
		t.Error("the content is not in the parent's blob store")
	}
}
