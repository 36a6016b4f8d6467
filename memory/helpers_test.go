package memory

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// clock returns a Now that starts at t0 and moves one minute per call.
func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Minute)
		return t
	}
}

// dirs returns a project and a user directory in a temporary directory.
func dirs(t *testing.T) Config {
	t.Helper()
	d := t.TempDir()
	return Config{ProjectDir: filepath.Join(d, "project", ".wield", "memory"), UserDir: filepath.Join(d, "user", "memory")}
}

func newStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = clock()
	}
	return New(cfg)
}

func mustSave(t *testing.T, s *Store, n Note) *SaveResult {
	t.Helper()
	res, err := s.Save(n)
	if err != nil {
		t.Fatalf("Save(%q): %v", n.Body, err)
	}
	return res
}

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = string(h.Note.Scope) + ":" + h.Note.ID
	}
	return out
}
