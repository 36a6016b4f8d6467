package ledger_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

// BenchmarkWriteFile measures write_file of a 4 KiB file with and without
// the ledger recording it (the content before and after saved as blobs,
// one journal record), the per-edit overhead of undo.
func BenchmarkWriteFile(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "plain"
		if rec {
			name = "ledger"
		}
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			ws, err := os.OpenRoot(root)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			store := &session.Store{Dir: filepath.Join(b.TempDir(), "sessions")}
			sess, err := store.Create(b.Context(), session.Header{})
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			if err := sess.Begin(b.Context(), "bench"); err != nil {
				b.Fatal(err)
			}
			cfg := fs.Config{}
			if rec {
				cfg.Recorder = store
			}
			h := fs.NewWrite(cfg).Handler()
			body := make([]byte, 4096)
			for i := range body {
				body[i] = 'a' + byte(i%26)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				copy(body, fmt.Sprintf("%08d", i))
				args, _ := json.Marshal(fs.WriteInput{Path: "f.txt", Content: string(body)})
				c := &tool.Call{SessionID: sess.ID(), ID: "c", Tool: "write_file", Root: ws}
				res, err := h.Handle(b.Context(), c, args)
				if err != nil || !res.Success {
					b.Fatal(res.Output, err)
				}
			}
		})
	}
}
