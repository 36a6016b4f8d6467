package session

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// TestStore_CancelledContext checks that every call that reaches the
// backend, given a cancelled ctx, fails with an error wrapping
// context.Canceled and changes nothing: neither the store's files nor
// the state of the session open for writing.
func TestStore_CancelledContext(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	// done is a closed session; live is open here, in a transaction.
	done, err := st.Create(ctx, Header{ID: "done"})
	must(t, err)
	round(t, done, "first", "c1")
	must(t, done.Close())
	live, err := st.Create(ctx, Header{ID: "live"})
	must(t, err)
	defer live.Close()
	pic := []byte("\x89PNG\r\n\x1a\n bytes of a picture")
	must(t, live.Begin(ctx, "look"))
	must(t, live.RecordResponse(ctx, &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "p1", Name: "desktop", Arguments: json.RawMessage(`{}`)}}}}))
	must(t, live.RecordCall(ctx, call("p1", "desktop"), json.RawMessage(`{}`)))
	must(t, live.RecordResult(ctx, call("p1", "desktop"), tool.Result{Success: true, Images: []tool.Image{{MIMEType: "image/png", Data: pic}}}))
	must(t, live.Commit(ctx))
	must(t, live.Begin(ctx, "more"))
	hash := HashBytes(pic)

	tests := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Stat", func(ctx context.Context) error { _, err := st.Stat(ctx, "done"); return err }},
		{"Create", func(ctx context.Context) error { _, err := st.Create(ctx, Header{ID: "new"}); return err }},
		{"Open", func(ctx context.Context) error { _, err := st.Open(ctx, "done"); return err }},
		{"Load", func(ctx context.Context) error { _, err := st.Load(ctx, "done"); return err }},
		{"List", func(ctx context.Context) error { _, err := st.List(ctx); return err }},
		{"Fork", func(ctx context.Context) error { _, err := st.Fork(ctx, "done", 1); return err }},
		{"Delete", func(ctx context.Context) error { _, err := st.Delete(ctx, "done"); return err }},
		{"Backup", func(ctx context.Context) error { _, err := st.Backup(ctx, "done"); return err }},
		{"Record", func(ctx context.Context) error {
			return st.Record(ctx, "done", call("r1", "echo"), json.RawMessage(`{}`), tool.Text("hi"))
		}},
		{"Blobs.Put", func(ctx context.Context) error { _, err := st.Blobs("live").Put(ctx, []byte("new")); return err }},
		{"Blobs.Get", func(ctx context.Context) error { _, err := st.Blobs("live").Get(ctx, hash); return err }},
		{"Blobs.Remove", func(ctx context.Context) error { return st.Blobs("live").Remove(ctx, hash) }},
		{"Blobs.Usage", func(ctx context.Context) error { _, _, err := st.Blobs("live").Usage(ctx); return err }},
		{"Session.Image", func(ctx context.Context) error { _, err := live.Image(ctx, hash); return err }},
		{"Session.PruneBlobs", func(ctx context.Context) error { _, err := live.PruneBlobs(ctx, 1); return err }},
		{"Session.Compress", func(ctx context.Context) error { _, err := live.Compress(ctx, 1, 4, "looked"); return err }},
		{"Session.Commit", func(ctx context.Context) error { return live.Commit(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, state := snapshot(t, st.Dir), live.State()
			cancelled, cancel := context.WithCancel(t.Context())
			cancel()
			if err := tt.call(cancelled); !errors.Is(err, context.Canceled) {
				t.Fatalf("%s with a cancelled ctx: error %v, want one wrapping context.Canceled", tt.name, err)
			}
			if diff := cmp.Diff(files, snapshot(t, st.Dir)); diff != "" {
				t.Errorf("%s with a cancelled ctx changed the store's files (-before +after):\n%s", tt.name, diff)
			}
			if got := live.State(); !reflect.DeepEqual(got, state) {
				t.Errorf("%s with a cancelled ctx changed the open session's state:\n got %+v\nwant %+v", tt.name, got, state)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if st.Blobs("live").Has(cancelled, hash) {
		t.Error("Blobs.Has with a cancelled ctx reported true")
	}
	if !st.Blobs("live").Has(ctx, hash) {
		t.Error("the picture's blob is gone")
	}
}

// snapshot returns every file under dir, by its path, with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	must(t, err)
	return files
}
