package fs

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

func TestReferencesMode(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package b\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	store := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	refs, err := store.Create(t.Context(), session.Header{ID: "refs", ContextMode: session.ContextReferences})
	if err != nil {
		t.Fatal(err)
	}
	defer refs.Close()
	inline, err := store.Create(t.Context(), session.Header{ID: "inline"})
	if err != nil {
		t.Fatal(err)
	}
	defer inline.Close()
	reg, err := tool.NewRegistry(Tools(Config{Sessions: store})...)
	if err != nil {
		t.Fatal(err)
	}
	run := tool.NewRunner(reg, nil)
	call := func(sessionID, name, args string) tool.Result {
		t.Helper()
		res, err := run.Call(t.Context(), tool.Call{SessionID: sessionID, Root: root},
			tool.Request{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call("refs", "read_file", `{"path":"a.go"}`)
	if !res.Success || !strings.Contains(res.Output, "a.go (3 lines)") || strings.Contains(res.Output, "func A") {
		t.Errorf("read_file in references mode = %+v; want a confirmation, not the content", res)
	}
	res = call("refs", "read_many_files", `{"paths":["*.go"]}`)
	if !res.Success || !strings.Contains(res.Output, "b.go") || strings.Contains(res.Output, "package b") {
		t.Errorf("read_many_files in references mode = %+v", res)
	}
	if got := refs.References(); len(got) != 2 || got[0] != "a.go" || got[1] != "b.go" {
		t.Errorf("references = %v, want a.go and b.go", got)
	}
	// The default mode returns content and adds nothing.
	res = call("inline", "read_file", `{"path":"a.go"}`)
	if !strings.Contains(res.Output, "func A") || len(inline.References()) != 0 {
		t.Errorf("inline mode: %+v, references %v", res, inline.References())
	}
}
