package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// PinPrefix starts the metadata keys ([Session.Set]) of pinned
// documents: "pin:KEY".
const PinPrefix = "pin:"

// A Pin is a document a tool showed the model that must outlive a
// compaction: the instructions of an activated skill. It is journaled as
// metadata with the compaction generation it was pinned at; once the
// session is compacted past it, [Session.Pinned] returns it, and the
// agent shows it in every prompt again.
type Pin struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	Generation int    `json:"generation"`
}

// Pin records the document content (read from path) under key. Pinning
// a key again replaces its document. The record is redacted like any
// metadata.
func (s *Session) Pin(key, path, content string) error {
	p := Pin{Path: path, Content: content, Generation: s.CompactionGeneration()}
	if err := s.Set(map[string]any{PinPrefix + key: p}); err != nil {
		return fmt.Errorf("pin %s: %w", key, err)
	}
	return nil
}

// Pinned returns the documents pinned before the session's last
// compaction, sorted by key: those the compacted prompt may no longer
// show. Documents pinned since are still in the prompt as the results
// that showed them, and are left out.
func (s *Session) Pinned() []Pin {
	gen := s.CompactionGeneration()
	st := s.State()
	var keys []string
	for k := range st.Meta {
		if strings.HasPrefix(k, PinPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []Pin
	for _, k := range keys {
		var p Pin
		if json.Unmarshal(st.Meta[k], &p) == nil && p.Generation < gen {
			out = append(out, p)
		}
	}
	return out
}
