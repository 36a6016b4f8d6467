package desktop

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tool/tooltest"
)

var update = flag.Bool("update", false, "rewrite testdata/descriptions.txtar")

// TestDescriptions compares the rendered descriptions, of the full and of
// the view-only desktop, with the golden file. Run with -update to
// rewrite it.
func TestDescriptions(t *testing.T) {
	var tools []*tool.Tool
	for _, cfg := range []Config{{}, {ViewOnly: true}} {
		d, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, d.Tool())
	}
	tooltest.Descriptions(t, tools, filepath.Join("testdata", "descriptions.txtar"), *update)
}
