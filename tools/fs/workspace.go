package fs

import (
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// noWorkspace is the failure of a call made without a workspace root.
var noWorkspace = tool.Failure("no workspace: the file tools need a workspace root, and this call has none")

// openWorkspace returns the workspace of c, or false if c has no root.
func openWorkspace(c *tool.Call) (*fstree.Tree, bool) {
	if c == nil || c.Root == nil {
		return nil, false
	}
	return fstree.New(c.Root), true
}

// display is how a relative path is shown to the model.
func display(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// pathFailure turns an error about the path argument arg into a failed
// result that says what happened in words the model can act on.
func pathFailure(arg string, err error) tool.Result {
	return tool.Failure(fstree.DescribeError(arg, err))
}
