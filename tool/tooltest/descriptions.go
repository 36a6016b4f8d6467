package tooltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wieldhq/wield/tool"
)

// Descriptions compares the descriptions of tools, as the model reads
// them, with the golden txtar file golden (one file per tool), so that a
// change to a limit or a description shows up in review; with update it
// rewrites the file instead. A description with an unrendered template
// ("{{", "<no value>") is an error either way.
func Descriptions(t testing.TB, tools []*tool.Tool, golden string, update bool) {
	t.Helper()
	var a txtar.Archive
	a.Comment = []byte("The tool descriptions as the model reads them, with the default Config.\n")
	for _, tl := range tools {
		d := tl.Spec().Description
		if strings.Contains(d, "{{") || strings.Contains(d, "<no value>") {
			t.Errorf("%s: description has an unrendered template:\n%s", tl.Name(), d)
		}
		a.Files = append(a.Files, txtar.File{Name: tl.Name(), Data: []byte(d + "\n")})
	}
	got := txtar.Format(&a)
	if update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("descriptions differ from %s; review and run go test -update:\n%s", golden, got)
	}
}
