package docs

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite testdata/descriptions.txtar")

// TestDescriptions compares the rendered tool descriptions with the golden
// file, so that a change to a limit or a description shows up in review.
// Run with -update to rewrite it.
func TestDescriptions(t *testing.T) {
	var a txtar.Archive
	a.Comment = []byte("The tool descriptions as the model reads them, with the default Config.\n")
	for _, tl := range Tools(Config{}) {
		d := tl.Spec().Description
		if strings.Contains(d, "{{") || strings.Contains(d, "<no value>") {
			t.Errorf("%s: description has an unrendered template:\n%s", tl.Name(), d)
		}
		a.Files = append(a.Files, txtar.File{Name: tl.Name(), Data: []byte(d + "\n")})
	}
	got := txtar.Format(&a)
	golden := filepath.Join("testdata", "descriptions.txtar")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
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
