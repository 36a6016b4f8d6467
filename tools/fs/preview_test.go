package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/tool"
)

func TestPreview(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := &tool.Call{Root: root}
	tests := []struct {
		name, tool, args string
		want             Change
		wantErr          string
	}{
		{"replace", "replace", `{"path":"main.go","old_string":"println(\"hi\")","new_string":"println(\"hello\")"}`,
			Change{Path: "main.go", Old: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", New: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}, ""},
		{"write new", "write_file", `{"path":"new.txt","content":"x\r\ny\n"}`, Change{Path: "new.txt", New: "x\ny\n", Created: true}, ""},
		{"no match", "replace", `{"path":"main.go","old_string":"nothing","new_string":"x"}`, Change{}, "was not found in main.go"},
		{"escape", "write_file", `{"path":"../x","content":""}`, Change{}, "outside"},
		{"other tool", "read_file", `{"path":"main.go"}`, Change{}, "not a file-editing tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Preview(c, tt.tool, json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Preview error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Preview (-want +got):\n%s", diff)
			}
		})
	}
}
