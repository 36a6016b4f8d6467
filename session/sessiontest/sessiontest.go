// Package sessiontest checks that a [session.Backend] behaves as the
// [session.Store] above it needs: it is the conformance suite every
// backend passes, the file backend and session/pgstore included.
//
// It drives the backend through a Store, as wield does, so what it checks
// is what a user would see: a session written and reopened has the same
// state, one writer at a time, the inbox, forks, deletion, listings,
// backups and blobs, and calls given a cancelled context.
package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// A Factory makes the Stores of one test. It is called once per test
// with that test's t, and returns a function that makes a Store on a
// place of its own, empty at first (a temporary directory, a schema):
// every Store that function returns is on that same place, as the stores
// of other processes or machines would be. Cleanup is the factory's, with
// t.Cleanup.
type Factory func(t *testing.T) func() *session.Store

// Run runs the conformance tests on the backend of stores made by
// newStores, each test as a subtest that may run in parallel with the
// others.
func Run(t *testing.T, newStores Factory) {
	tests := []struct {
		name string
		run  func(t *testing.T, stores func() *session.Store)
	}{
		{"Reopen", testReopen},
		{"Busy", testBusy},
		{"LockEndsWithClose", testLockEndsWithClose},
		{"Inbox", testInbox},
		{"RecordWithoutWriter", testRecordWithoutWriter},
		{"ForkDeleteList", testForkDeleteList},
		{"Backup", testBackup},
		{"Blobs", testBlobs},
		{"NotFound", testNotFound},
		{"Stat", testStat},
		{"Cancelled", testCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, newStores(t))
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Round records one round of work in s: the task, a response with calls,
// each call and its result, and the commit. Calls are named prefix-1,
// prefix-2…
func Round(t *testing.T, s *session.Session, task, prefix string, calls int) {
	t.Helper()
	ctx := t.Context()
	must(t, s.Begin(ctx, task))
	var tc []llm.ToolCall
	for i := range calls {
		tc = append(tc, llm.ToolCall{ID: fmt.Sprintf("%s-%d", prefix, i+1), Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	}
	must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "calling", ToolCalls: tc}}))
	for _, c := range tc {
		must(t, s.RecordCall(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, c.Arguments))
		must(t, s.RecordResult(ctx, &tool.Call{ID: c.ID, Tool: c.Name}, tool.Text("hi from "+c.ID)))
	}
	must(t, s.Commit(ctx))
}

func testReopen(t *testing.T, stores func() *session.Store) {
	st := stores()
	s, err := st.Create(t.Context(), session.Header{ID: "reopen", Purpose: "conformance"})
	must(t, err)
	Round(t, s, "first", "a", 2)
	must(t, s.SetTodos([]session.Todo{{Title: "check", Status: "pending"}}))
	must(t, s.AddReference("README.md", true))
	must(t, s.Set(map[string]any{"k": "v"}))
	Round(t, s, "second", "b", 1)
	want := s.State()
	must(t, s.Close())

	for _, other := range []*session.Store{st, stores()} {
		got, err := other.Load(t.Context(), "reopen")
		must(t, err)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Load after Close differs from the writer's state:\n got %+v\nwant %+v", got, want)
		}
	}
	s, err = stores().Open(t.Context(), "reopen")
	must(t, err)
	defer s.Close()
	if got := s.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Open's state differs from the writer's:\n got %+v\nwant %+v", got, want)
	}
	// Appending after reopening goes on where the journal ended.
	Round(t, s, "third", "c", 1)
	got, err := stores().Load(t.Context(), "reopen")
	must(t, err)
	if n := len(got.Pools); n != 3 || got.Pools[2].Status != session.PoolCommitted {
		t.Fatalf("after a round in the reopened session, pools = %+v, want 3 committed", got.Pools)
	}
	if !reflect.DeepEqual(got, s.State()) {
		t.Fatal("Load differs from the reopened writer's state")
	}
}

func testBusy(t *testing.T, stores func() *session.Store) {
	a, b := stores(), stores()
	s, err := a.Create(t.Context(), session.Header{ID: "busy"})
	must(t, err)
	defer s.Close()
	_, err = b.Open(t.Context(), "busy")
	var busy *session.BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("Open while another store writes: %v, want a *BusyError", err)
	}
	if busy.ID != "busy" {
		t.Errorf("BusyError.ID = %q, want busy", busy.ID)
	}
	if _, err := b.Delete(t.Context(), "busy"); !errors.As(err, &busy) {
		t.Errorf("Delete while another store writes: %v, want a *BusyError", err)
	}
	if _, err := b.Create(t.Context(), session.Header{ID: "busy"}); !errors.As(err, &busy) {
		t.Errorf("Create of a session another store writes: %v, want a *BusyError", err)
	}
	// A reader needs no lock.
	if _, err := b.Load(t.Context(), "busy"); err != nil {
		t.Errorf("Load while another store writes: %v", err)
	}
}

func testLockEndsWithClose(t *testing.T, stores func() *session.Store) {
	a, b := stores(), stores()
	s, err := a.Create(t.Context(), session.Header{ID: "handover"})
	must(t, err)
	for i := range 3 {
		Round(t, s, fmt.Sprint("round ", i), fmt.Sprint("r", i), 1)
		must(t, s.Close())
		a, b = b, a // the next worker
		s, err = a.Open(t.Context(), "handover")
		must(t, err)
	}
	defer s.Close()
	if n := len(s.State().Pools); n != 3 {
		t.Fatalf("after three workers, pools = %d, want 3", n)
	}
	if _, err := a.Create(t.Context(), session.Header{ID: "handover"}); err == nil {
		t.Fatal("Create of an existing session succeeded")
	}
}

func testInbox(t *testing.T, stores func() *session.Store) {
	writer, other := stores(), stores()
	s, err := writer.Create(t.Context(), session.Header{ID: "inbox"})
	must(t, err)
	defer s.Close()
	ctx := t.Context()
	must(t, s.Begin(ctx, "task"))
	// Another process records a call while this one writes: it waits in
	// the inbox until the writer commits.
	must(t, other.Record(ctx, "inbox", &tool.Call{ID: "ext-1", Tool: "echo"}, json.RawMessage(`{"text":"x"}`), tool.Text("x")))
	if got, err := other.Load(ctx, "inbox"); err != nil || len(got.Pool) != 1 {
		t.Fatalf("before the commit, the pool has %d turns (err %v), want only the task", len(got.Pool), err)
	}
	must(t, s.Commit(ctx))
	got, err := other.Load(ctx, "inbox")
	must(t, err)
	var ids []string
	for _, tr := range got.Turns {
		if tr.CallID != "" {
			ids = append(ids, string(tr.Kind)+":"+tr.CallID)
		}
	}
	want := []string{"function_calling:ext-1", "tool_response:ext-1"}
	if !slices.Equal(ids, want) {
		t.Fatalf("committed calls = %v, want %v", ids, want)
	}
	// The inbox was emptied: the next commit adds nothing.
	Round(t, s, "next", "n", 0)
	got, err = other.Load(ctx, "inbox")
	must(t, err)
	if n := len(got.Turns); n != 5 {
		t.Fatalf("after a second round, %d turns, want 5 (task, 2 from the inbox, task, response)", n)
	}
}

func testRecordWithoutWriter(t *testing.T, stores func() *session.Store) {
	st := stores()
	s, err := st.Create(t.Context(), session.Header{ID: "record"})
	must(t, err)
	must(t, s.Close())
	must(t, stores().Record(t.Context(), "record", &tool.Call{ID: "c1", Tool: "echo"}, nil, tool.Text("ok")))
	got, err := st.Load(t.Context(), "record")
	must(t, err)
	if len(got.Turns) != 2 || got.Open() || got.Pools[0].Status != session.PoolCommitted {
		t.Fatalf("Record with no writer: turns %d, open %v; want the pair committed", len(got.Turns), got.Open())
	}
}

func testForkDeleteList(t *testing.T, stores func() *session.Store) {
	st := stores()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	s, err := st.Create(t.Context(), session.Header{ID: "origin", CreatedAt: now})
	must(t, err)
	Round(t, s, "one", "a", 1)
	Round(t, s, "two", "b", 1)
	must(t, s.Close())

	fork, err := st.Fork(t.Context(), "origin", 4) // the first round: task, response, call, result
	must(t, err)
	fs, err := stores().Load(t.Context(), fork)
	must(t, err)
	if fs.Header.ParentID != "origin" || fs.ForkedFrom == nil || fs.ForkedFrom.Turn != 4 || len(fs.Turns) != 4 {
		t.Fatalf("fork: parent %q, origin %+v, %d turns; want origin at 4 with 4 turns", fs.Header.ParentID, fs.ForkedFrom, len(fs.Turns))
	}

	list, err := stores().List(t.Context())
	must(t, err)
	var ids []string
	for _, sum := range list {
		if sum.Err != "" {
			t.Errorf("List: %s: %s", sum.ID, sum.Err)
		}
		if sum.Size <= 0 || sum.Modified.IsZero() {
			t.Errorf("List: %s: size %d, modified %v; want both", sum.ID, sum.Size, sum.Modified)
		}
		ids = append(ids, sum.ID)
	}
	slices.Sort(ids)
	if want := []string{fork, "origin"}; !slices.Equal(ids, want) {
		t.Fatalf("List = %v, want %v", ids, want)
	}

	if _, err := stores().Delete(t.Context(), "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(t.Context(), "origin"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Load after Delete: %v, want ErrNotFound", err)
	}
	list, err = st.List(t.Context())
	must(t, err)
	if len(list) != 1 || list[0].ID != fork {
		t.Fatalf("List after Delete = %+v, want only the fork", list)
	}
	// The id is free again.
	s, err = st.Create(t.Context(), session.Header{ID: "origin"})
	must(t, err)
	must(t, s.Close())
}

func testBackup(t *testing.T, stores func() *session.Store) {
	st := stores()
	s, err := st.Create(t.Context(), session.Header{ID: "backup"})
	must(t, err)
	defer s.Close()
	Round(t, s, "one", "a", 1)
	first, err := st.Backup(t.Context(), "backup")
	must(t, err)
	second, err := st.Backup(t.Context(), "backup")
	must(t, err)
	if first == "" || first == second {
		t.Fatalf("two backups are %q and %q, want two places", first, second)
	}
	if _, err := st.Backup(t.Context(), "missing"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("Backup of a missing session: %v, want ErrNotFound", err)
	}
}

func testBlobs(t *testing.T, stores func() *session.Store) {
	st := stores()
	b := st.Blobs("blobs")
	data := []byte("a picture, say")
	h, err := b.Put(t.Context(), data)
	must(t, err)
	if h != session.HashBytes(data) {
		t.Fatalf("Put returned %s, want the SHA-256 of the content", h)
	}
	if _, err := b.Put(t.Context(), data); err != nil {
		t.Fatalf("a second Put of the same content: %v", err)
	}
	other := stores().Blobs("blobs")
	if !other.Has(t.Context(), h) {
		t.Fatal("another store does not see the blob")
	}
	got, err := other.Get(t.Context(), h)
	must(t, err)
	if string(got) != string(data) {
		t.Fatalf("Get = %q, want %q", got, data)
	}
	if n, count, err := other.Usage(t.Context()); err != nil || n != int64(len(data)) || count != 1 {
		t.Fatalf("Usage = %d bytes, %d blobs, %v; want %d, 1", n, count, err, len(data))
	}
	if stores().Blobs("another").Has(t.Context(), h) {
		t.Fatal("another session's store has the blob")
	}
	missing := session.HashBytes([]byte("never stored"))
	if _, err := b.Get(t.Context(), missing); !errors.Is(err, session.ErrBlobMissing) {
		t.Fatalf("Get of a missing blob: %v, want ErrBlobMissing", err)
	}
	must(t, b.Remove(t.Context(), h))
	must(t, b.Remove(t.Context(), h))
	if b.Has(t.Context(), h) {
		t.Fatal("Has after Remove")
	}

	// A result's pictures go to the blobs, the journal keeps their hash.
	s, err := st.Create(t.Context(), session.Header{ID: "pictures"})
	must(t, err)
	defer s.Close()
	ctx := t.Context()
	must(t, s.Begin(ctx, "look"))
	c := &tool.Call{ID: "shot", Tool: "screenshot"}
	must(t, s.RecordCall(ctx, c, nil))
	r := tool.Text("here")
	r.Images = []tool.Image{{MIMEType: "image/png", Data: []byte("png bytes")}}
	must(t, s.RecordResult(ctx, c, r))
	must(t, s.Commit(ctx))
	loaded, err := stores().Load(ctx, "pictures")
	must(t, err)
	img := loaded.Turns[len(loaded.Turns)-1].Images
	if len(img) != 1 || img[0].Hash == "" || img[0].Data != nil {
		t.Fatalf("the result's images in the journal = %+v, want one hash without bytes", img)
	}
	got, err = stores().Blobs("pictures").Get(ctx, img[0].Hash)
	must(t, err)
	if string(got) != "png bytes" {
		t.Fatalf("the picture's bytes = %q", got)
	}
}

func testNotFound(t *testing.T, stores func() *session.Store) {
	st := stores()
	for name, err := range map[string]error{
		"Open":   func() error { _, err := st.Open(t.Context(), "nobody"); return err }(),
		"Load":   func() error { _, err := st.Load(t.Context(), "nobody"); return err }(),
		"Delete": func() error { _, err := st.Delete(t.Context(), "nobody"); return err }(),
		"Fork":   func() error { _, err := st.Fork(t.Context(), "nobody", 0); return err }(),
		"Stat":   func() error { _, err := st.Stat(t.Context(), "nobody"); return err }(),
	} {
		if !errors.Is(err, session.ErrNotFound) {
			t.Errorf("%s of a missing session: %v, want ErrNotFound", name, err)
		}
	}
	if list, err := st.List(t.Context()); err != nil || len(list) != 0 {
		t.Errorf("List of an empty store = %v, %v; want none", list, err)
	}
}

func testStat(t *testing.T, stores func() *session.Store) {
	st := stores()
	s, err := st.Create(t.Context(), session.Header{ID: "stat"})
	must(t, err)
	defer s.Close()
	before, err := st.Stat(t.Context(), "stat")
	must(t, err)
	Round(t, s, "one", "a", 1)
	after, err := stores().Stat(t.Context(), "stat")
	must(t, err)
	if after.ID != "stat" || after.Size <= before.Size || after.Modified.Before(before.Modified) {
		t.Fatalf("Stat before %+v, after a round %+v: want it to grow", before, after)
	}
}

// testCancelled checks that the Store's calls given a cancelled ctx fail
// with an error wrapping context.Canceled and change nothing: the session
// reads the same afterwards, nothing else is listed, and it can be opened
// (no call kept its writer lock).
func testCancelled(t *testing.T, stores func() *session.Store) {
	st := stores()
	s, err := st.Create(t.Context(), session.Header{ID: "kept"})
	must(t, err)
	Round(t, s, "one", "a", 1)
	must(t, s.Close())
	h, err := st.Blobs("kept").Put(t.Context(), []byte("a blob"))
	must(t, err)
	want, err := st.Load(t.Context(), "kept")
	must(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	other := stores()
	for name, err := range map[string]error{
		"Stat":   func() error { _, err := other.Stat(ctx, "kept"); return err }(),
		"Load":   func() error { _, err := other.Load(ctx, "kept"); return err }(),
		"List":   func() error { _, err := other.List(ctx); return err }(),
		"Open":   func() error { _, err := other.Open(ctx, "kept"); return err }(),
		"Create": func() error { _, err := other.Create(ctx, session.Header{ID: "new"}); return err }(),
		"Delete": func() error { _, err := other.Delete(ctx, "kept"); return err }(),
		"Backup": func() error { _, err := other.Backup(ctx, "kept"); return err }(),
		"Fork":   func() error { _, err := other.Fork(ctx, "kept", 1); return err }(),
		"Record": other.Record(ctx, "kept", &tool.Call{ID: "c", Tool: "echo"}, nil, tool.Text("hi")),
		"Blobs.Put": func() error {
			_, err := other.Blobs("kept").Put(ctx, []byte("another blob"))
			return err
		}(),
		"Blobs.Get":    func() error { _, err := other.Blobs("kept").Get(ctx, h); return err }(),
		"Blobs.Remove": other.Blobs("kept").Remove(ctx, h),
		"Blobs.Usage":  func() error { _, _, err := other.Blobs("kept").Usage(ctx); return err }(),
	} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled ctx: %v, want an error wrapping context.Canceled", name, err)
		}
	}

	got, err := st.Load(t.Context(), "kept")
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after the cancelled calls the session reads\n%+v\nwant\n%+v", got, want)
	}
	list, err := st.List(t.Context())
	must(t, err)
	if len(list) != 1 || list[0].ID != "kept" {
		t.Fatalf("after the cancelled calls List = %+v, want the one session", list)
	}
	if n, count, err := st.Blobs("kept").Usage(t.Context()); err != nil || n != int64(len("a blob")) || count != 1 {
		t.Fatalf("after the cancelled calls Usage = %d bytes, %d blobs, %v; want the one blob", n, count, err)
	}
	s, err = stores().Open(t.Context(), "kept")
	must(t, err)
	must(t, s.Close())
}
