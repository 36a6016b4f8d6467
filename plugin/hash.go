package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Hash returns the hash of the plugin's content: "sha256:" and the hex
// SHA-256 of every file's slash path, executable bit and bytes, in path
// order. The .git directory is left out; a symbolic link is hashed by its
// target's text, never followed, so a link cannot pull in a file from
// outside the plugin unnoticed. Any change to a file, its name or its
// mode changes the hash.
func Hash(dir string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("hash plugin: %w", err)
	}
	defer root.Close()
	h := sha256.New()
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", p, strconv.FormatBool(info.Mode()&0o111 != 0))
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := root.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link\x00%s\x00", target)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := root.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%d\x00", info.Size())
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash plugin %s: %w", dir, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
