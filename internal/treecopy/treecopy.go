// Package treecopy copies a directory tree of untrusted content: regular
// files and directories only, through [os.Root]s, so that a symbolic link
// in the source can neither pull in a file from outside it nor write
// outside the destination.
package treecopy

import (
	"io"
	"io/fs"
	"os"
)

// Copy copies the regular files and directories of src into dst, which
// must exist and be empty of the copied names. Symbolic links, devices
// and the like are left out, and so are directories named in skip (such
// as ".git") at any depth. File permissions are kept; every file is
// synced before Copy returns.
func Copy(src, dst string, skip ...string) error {
	sr, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer sr.Close()
	dr, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer dr.Close()
	return fs.WalkDir(sr.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			for _, s := range skip {
				if d.Name() == s {
					return fs.SkipDir
				}
			}
			return dr.Mkdir(p, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(sr, dr, p, info.Mode().Perm())
	})
}

func copyFile(sr, dr *os.Root, p string, perm fs.FileMode) error {
	in, err := sr.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dr.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
