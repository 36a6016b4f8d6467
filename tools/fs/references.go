package fs

import (
	"fmt"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// referenceSession returns the call's session when it is in the
// references context mode: then read_file and read_many_files add file
// references instead of returning content, and the prompt builder reads
// each active reference fresh from disk at every prompt.
func (cfg Config) referenceSession(c *tool.Call) (*session.Session, bool) {
	if cfg.Sessions == nil || c == nil || c.SessionID == "" {
		return nil, false
	}
	s, ok := cfg.Sessions.Writer(c.SessionID)
	if !ok || s.ContextMode() != session.ContextReferences {
		return nil, false
	}
	return s, true
}

// addReferences adds rels to s and returns the confirmation the model
// reads.
func addReferences(s *session.Session, rels []string, lines []int) tool.Result {
	for _, rel := range rels {
		if err := s.AddReference(rel, false); err != nil {
			return tool.Failure("could not add the file reference: " + err.Error())
		}
	}
	var b strings.Builder
	for i, rel := range rels {
		if lines != nil {
			fmt.Fprintf(&b, "%s (%d lines)\n", rel, lines[i])
		} else {
			fmt.Fprintf(&b, "%s\n", rel)
		}
	}
	fmt.Fprintf(&b, "Added as file references: their current content is in the file_references section of your next prompts, for the next %d tasks. Do not read them again.", session.DefaultReferenceTTL)
	return tool.Result{Success: true, Output: b.String(), Data: map[string]any{"references": rels}}
}
