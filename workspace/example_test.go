package workspace_test

import (
	"fmt"
	"path/filepath"

	"github.com/wieldhq/wield/workspace"
)

func ExampleLayout() {
	l := workspace.Layout{Root: "/src/project"}
	for _, p := range []string{l.Sessions(), l.Spill("s1"), l.Settings(), l.Tools(), l.MCPLogs(), l.SharedMCP(), l.Plans()} {
		fmt.Println(filepath.ToSlash(p))
	}
	// The zero Layout names the same paths relative to the root.
	fmt.Println(filepath.ToSlash(workspace.Layout{}.Spill("s1")))
	// Output:
	// /src/project/.wield/sessions
	// /src/project/.wield/spill/s1
	// /src/project/.wield/settings.json
	// /src/project/.wield/tools
	// /src/project/.wield/logs/mcp
	// /src/project/.mcp.json
	// /src/project/.wield/plans
	// .wield/spill/s1
}
