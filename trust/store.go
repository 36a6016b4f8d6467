package trust

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/wieldhq/wield/internal/jsonpos"
)

// FileName is the name of the trust file in the user's wield
// configuration directory.
const FileName = "trusted.json"

// fileVersion is the version of the trust file's format this package
// writes and reads.
const fileVersion = 1

// A Status says what a [Store] knows of a folder.
type Status int

const (
	// Untrusted means the folder has configuration that needs trust and
	// the user has not trusted it (or the trust file cannot be read). It
	// is the zero Status: what is not known to be trusted is not.
	Untrusted Status = iota
	// Trusted means the user trusted the folder as its configuration is
	// now, or a folder above it with --tree.
	Trusted
	// Changed means the user trusted the folder, but its configuration
	// has changed since: it is not trusted until the user says so again.
	Changed
	// Nothing means the folder has no configuration that needs trust.
	Nothing
)

func (s Status) String() string {
	switch s {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed since trusted"
	case Nothing:
		return "nothing to trust"
	}
	return "not trusted"
}

// A Record is one folder the user trusted.
type Record struct {
	// Path is the folder's real path.
	Path string `json:"path"`
	// Tree reports whether every folder beneath Path is trusted too,
	// whatever its configuration; Hash and Items are then empty.
	Tree bool `json:"tree,omitempty"`
	// Hash is the [Manifest.Hash] of what was trusted.
	Hash string `json:"hash,omitempty"`
	// Items are the items trusted, to show what changed.
	Items []Item `json:"items,omitempty"`
	// Time is when the user trusted it.
	Time time.Time `json:"time"`
}

// A Verdict is what [Store.Check] finds for a manifest.
type Verdict struct {
	Status Status
	// Record is the record that trusts the folder (Trusted), or the one
	// that no longer matches it (Changed); nil otherwise.
	Record *Record
	// Added and Removed are what changed since the record (Changed).
	Added, Removed []Item
}

// A Store is the user's trust file. Path is the file; the zero Store has
// none and trusts nothing. Methods may be called from several processes at
// once: writes take a lock beside the file, and replace it whole.
type Store struct {
	Path string
}

type file struct {
	Version int      `json:"version"`
	Folders []Record `json:"folders"`
}

// CorruptError is returned when the trust file is not a trust file. Every
// folder is then untrusted until the user fixes or removes it.
type CorruptError struct {
	Path string
	Line int // 0 when unknown
	Err  error
}

func (e *CorruptError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("trust file %s is unreadable (%v): every folder is untrusted until it is fixed or removed", where, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Records returns the records of the trust file, sorted by path. A
// missing file has none; an unreadable or corrupt one is an error.
func (s *Store) Records() ([]Record, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	return f.Folders, nil
}

func (s *Store) read() (file, error) {
	var f file
	if s.Path == "" {
		return f, nil
	}
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, &CorruptError{Path: s.Path, Err: err}
	}
	return parse(s.Path, data)
}

// parse reads a trust file. Anything but a well-formed file of this
// version is a *CorruptError.
func parse(path string, data []byte) (file, error) {
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		line, _, _ := jsonpos.Line(data, err)
		return file{}, &CorruptError{Path: path, Line: line, Err: err}
	}
	if dec.More() {
		return file{}, &CorruptError{Path: path, Err: errors.New("more than one JSON value")}
	}
	if f.Version != fileVersion {
		return file{}, &CorruptError{Path: path, Err: fmt.Errorf("version %d, want %d", f.Version, fileVersion)}
	}
	for i, r := range f.Folders {
		switch {
		case !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path:
			return file{}, &CorruptError{Path: path, Err: fmt.Errorf("folders[%d]: path %q is not absolute and clean", i, r.Path)}
		case !r.Tree && r.Hash == "":
			return file{}, &CorruptError{Path: path, Err: fmt.Errorf("folders[%d]: no hash", i)}
		}
	}
	slices.SortFunc(f.Folders, func(a, b Record) int { return cmp.Compare(a.Path, b.Path) })
	return f, nil
}

// Check returns what the store knows of the folder of m. A manifest with
// no items is [Nothing] whatever the store holds. An error (the trust
// file unreadable or corrupt) comes with [Untrusted].
func (s *Store) Check(m Manifest) (Verdict, error) {
	if len(m.Items) == 0 {
		return Verdict{Status: Nothing}, nil
	}
	f, err := s.read()
	if err != nil {
		return Verdict{Status: Untrusted}, err
	}
	var changed *Record
	for i := range f.Folders {
		r := &f.Folders[i]
		switch {
		case r.Path == m.Root && !r.Tree:
			if r.Hash == m.Hash() {
				return Verdict{Status: Trusted, Record: r}, nil
			}
			changed = r
		case r.Tree && within(r.Path, m.Root):
			return Verdict{Status: Trusted, Record: r}, nil
		}
	}
	if changed != nil {
		added, removed := Diff(changed.Items, m.Items)
		return Verdict{Status: Changed, Record: changed, Added: added, Removed: removed}, nil
	}
	return Verdict{Status: Untrusted}, nil
}

// within reports whether dir is parent or beneath it.
func within(parent, dir string) bool {
	rel, err := filepath.Rel(parent, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Trust records that the user trusts the folder of m as m describes it,
// replacing an earlier record of the folder. With tree, the record trusts
// every folder beneath m.Root too, whatever its configuration.
func (s *Store) Trust(m Manifest, tree bool, now time.Time) error {
	if m.Root == "" || !filepath.IsAbs(m.Root) {
		return fmt.Errorf("trust: folder %q is not an absolute path", m.Root)
	}
	r := Record{Path: filepath.Clean(m.Root), Tree: tree, Time: now.UTC().Truncate(time.Second)}
	if !tree {
		r.Hash, r.Items = m.Hash(), m.Sorted()
	}
	return s.update(func(f *file) {
		f.Folders = slices.DeleteFunc(f.Folders, func(x Record) bool { return x.Path == r.Path && x.Tree == tree })
		f.Folders = append(f.Folders, r)
	})
}

// Revoke removes the records of the folder path (its real path), folder
// and tree alike, and reports whether there was one.
func (s *Store) Revoke(path string) (bool, error) {
	path = filepath.Clean(path)
	found := false
	err := s.update(func(f *file) {
		n := len(f.Folders)
		f.Folders = slices.DeleteFunc(f.Folders, func(x Record) bool { return x.Path == path })
		found = len(f.Folders) < n
	})
	return found, err
}

// update changes the trust file under its lock. A corrupt file is not
// overwritten: the user's records would be lost without a word.
func (s *Store) update(change func(*file)) error {
	if s.Path == "" {
		return errors.New("trust: no trust file (the user has no configuration directory)")
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	lock := flock.New(s.Path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("trust: lock %s: %w", s.Path, err)
	}
	defer lock.Unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	f.Version = fileVersion
	change(&f)
	slices.SortFunc(f.Folders, func(a, b Record) int { return cmp.Or(cmp.Compare(a.Path, b.Path), boolCmp(a.Tree, b.Tree)) })
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return writeFile(s.Path, append(data, '\n'))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// writeFile replaces path with data, mode 0600: a temporary file beside
// it, synced, then renamed over it.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}
