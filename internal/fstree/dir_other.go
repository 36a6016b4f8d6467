//go:build !linux

package fstree

import (
	"io"
	iofs "io/fs"
	"os"
	"time"
)

// A rootDir is an open directory of a walk, as an os.Root.
type rootDir struct{ r *os.Root }

func openStart(root *os.Root, rel string) (dirHandle, error) {
	r, err := root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return rootDir{r}, nil
}

func (d rootDir) entries([]byte) ([]dirent, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	list, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(list))
	for _, e := range list {
		typ := e.Type()
		if !typ.IsDir() && !typ.IsRegular() && typ&iofs.ModeSymlink == 0 {
			typ = iofs.ModeIrregular
		}
		out = append(out, dirent{name: e.Name(), typ: typ})
	}
	return out, err
}

func (d rootDir) sub(name string) (dirHandle, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: name, Err: iofs.ErrInvalid}
	}
	r, err := d.r.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return rootDir{r}, nil
}

func (d rootDir) open(name string) (fileReader, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: name, Err: iofs.ErrInvalid}
	}
	return d.r.Open(name)
}

func (d rootDir) lstat(name string) (int64, time.Time, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return 0, time.Time{}, err
	}
	return fi.Size(), fi.ModTime(), nil
}

func (d rootDir) close() error { return d.r.Close() }

var _ io.Reader = (*os.File)(nil)
