package session

import (
	"encoding/json"
	"fmt"
	"maps"
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
	meta := s.MetaPrefixed(PinPrefix)
	keys := slices.Sorted(maps.Keys(meta))
	var out []Pin
	for _, k := range keys {
		var p Pin
		if json.Unmarshal(meta[k], &p) == nil && p.Generation < gen {
			out = append(out, p)
		}
	}
	return out
}

// MetaPrefixed returns the metadata ([Session.Set]) whose keys start with
// prefix, without copying the rest of the state as [Session.State] does:
// it is called for every prompt and every policy decision. The map is the
// caller's; the values are shared and must not be modified.
func (s *Session) MetaPrefixed(prefix string) map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]json.RawMessage{}
	for k, v := range s.st.Meta {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}
