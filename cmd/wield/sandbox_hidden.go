package main

import "github.com/wieldhq/wield/sandbox"

// sandboxHidden returns the paths the sandbox hides from sandboxed
// commands (run_code, and the shell under --sandbox) as things stand:
// the credential locations that exist on this machine, symbolic links
// resolved, sorted. wield builds its sandboxes with no Config.Hide or
// Config.Show, so this is what each of them hides, save a path inside a
// command's own workspace or scratch directory. It never returns nil, so
// that a JSON report shows an empty list.
func sandboxHidden() []string {
	paths, err := sandbox.Hidden(sandbox.Config{})
	if err != nil || paths == nil {
		return []string{} // a zero Config names no path that could be refused
	}
	return paths
}
