package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/workspace"
)

// bound cuts out to the output limit, keeping the head (20%) and the tail
// (80%), and writes the whole output to a spill file.
func (r *Runner) bound(c *Call, out string) string {
	head, tail := textcut.HeadTail(out, r.opts.OutputLimit)
	omitted := len(out) - len(head) - len(tail)
	where, err := r.spill(c, out)
	note := fmt.Sprintf("\n[... %d bytes omitted of %d; ", omitted, len(out))
	if err != nil {
		r.opts.Logger.Error("cannot write spill file", "call", c.ID, "err", err)
		note += "the full output could not be saved: " + err.Error() + " ...]\n"
	} else {
		note += "the full output is in " + where + "; read it in parts rather than whole ...]\n"
	}
	return head + note + tail
}

// spill writes out to a file and returns the path the model should use.
func (r *Runner) spill(c *Call, out string) (string, error) {
	name := spillName(c)
	if r.opts.SpillDir == "" && c.Root != nil {
		rel := filepath.Join(workspace.Layout{}.Spill(""), name)
		if err := c.Root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return "", err
		}
		if err := c.Root.WriteFile(rel, []byte(out), 0o644); err != nil {
			return "", err
		}
		return rel, nil
	}
	dir := r.opts.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wield-spill")
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(out), 0o644)
}

func spillName(c *Call) string { return SpillName(c, c.ID, ".txt") }

// SpillName returns the workspace-relative file name under .wield/spill
// for output a tool saves for call c: <session>/<name><ext>, with path
// separators in the parts made harmless. Tools that keep more output than
// they return (the shell's full log) save it there, beside the runner's
// own spill files.
func SpillName(c *Call, name, ext string) string {
	clean := func(s, empty string) string {
		s = strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == 0 {
				return '_'
			}
			return r
		}, s)
		if s == "" || s == "." || s == ".." {
			return empty
		}
		return s
	}
	return filepath.Join(clean(c.SessionID, "run"), clean(name, "call")+ext)
}
