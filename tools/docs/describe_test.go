package docs

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/tool/tooltest"
)

var update = flag.Bool("update", false, "rewrite testdata/descriptions.txtar")

// TestDescriptions compares the rendered tool descriptions with the golden
// file, so that a change to a limit or a description shows up in review.
// Run with -update to rewrite it.
func TestDescriptions(t *testing.T) {
	tooltest.Descriptions(t, Tools(Config{}), filepath.Join("testdata", "descriptions.txtar"), *update)
}
