package git_test

import (
	"fmt"

	"github.com/wieldhq/wield/tools/git"
)

// The git tools, in display order, with what a policy reads from them.
func ExampleNew() {
	for _, t := range git.New(git.Config{}) {
		a := t.Spec().Annotations
		fmt.Printf("%s read-only=%v destructive=%v\n", t.Name(), a.ReadOnly, a.Destructive)
	}
	// Output:
	// git_status read-only=true destructive=false
	// git_diff read-only=true destructive=false
	// git_log read-only=true destructive=false
	// git_show read-only=true destructive=false
	// git_blame read-only=true destructive=false
	// git_branch read-only=true destructive=false
	// git_add read-only=false destructive=false
	// git_commit read-only=false destructive=false
	// git_checkout read-only=false destructive=true
}
