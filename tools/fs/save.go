package fs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"strings"

	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
	layout "github.com/wieldhq/wield/workspace"
)

// newFileMode is the mode of files the tools create.
const newFileMode iofs.FileMode = 0o644

// A target is a file a tool is about to write.
type target struct {
	arg    string // as the model wrote it
	rel    string // where the path leads, links followed
	exists bool
	mode   iofs.FileMode
	old    []byte // the current content, if it exists
}

// openTarget resolves a path to write: inside the workspace, links
// followed, not a directory, not sensitive. It reads the current content
// (at most maxReadBytes) when the file exists.
func openTarget(w *fstree.Tree, arg string) (target, tool.Result, bool) {
	t := target{arg: arg}
	if strings.TrimSpace(arg) == "" {
		return t, tool.Failure("path is empty: give the file to write"), false
	}
	rel, err := w.Rel(arg)
	if err != nil {
		return t, pathFailure(arg, err), false
	}
	if reason := sensitive(rel); reason != "" {
		return t, tool.Failure(fmt.Sprintf("refusing to write %s: %s", arg, reason)), false
	}
	real, err := w.Resolve(rel)
	if err != nil {
		return t, pathFailure(arg, err), false
	}
	if reason := sensitive(real); reason != "" {
		return t, tool.Failure(fmt.Sprintf("refusing to write %s, a link to %s: %s", arg, real, reason)), false
	}
	if real == "." {
		return t, tool.Failure(arg + " is the workspace root, a directory: give a file path"), false
	}
	t.rel = real
	fi, err := w.Root.Lstat(real)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return t, tool.Result{}, true
	case err != nil:
		return t, pathFailure(arg, err), false
	case fi.IsDir():
		return t, tool.Failure(arg + " is a directory: give a file path"), false
	case !fi.Mode().IsRegular():
		return t, tool.Failure(fmt.Sprintf("%s is a %s, not a regular file; it cannot be written", arg, fileKind(fi.Mode()))), false
	case fi.Size() > maxReadBytes:
		return t, tool.Failure(fmt.Sprintf("%s is %s, more than the %s the file tools edit", arg, formatSize(fi.Size()), formatSize(maxReadBytes))), false
	}
	old, err := w.Root.ReadFile(real)
	if err != nil {
		return t, pathFailure(arg, err), false
	}
	t.exists, t.mode, t.old = true, fi.Mode().Perm(), old
	return t, tool.Result{}, true
}

// sensitive returns why the tools refuse to write rel, or "".
func sensitive(rel string) string {
	parts := strings.Split(strings.ToLower(rel), "/")
	for _, p := range parts {
		switch p {
		case ".git":
			return "files in .git are git's internals; change them with git commands"
		case ".ssh":
			return ".ssh holds keys and their configuration"
		}
	}
	if parts[0] == layout.Dir {
		return layout.Dir + " is wield's own state directory"
	}
	base := parts[len(parts)-1]
	switch base {
	case ".env.example", ".env.sample", ".env.template", ".env.dist":
		return "" // templates without secrets
	case ".netrc", ".pgpass", ".git-credentials":
		return base + " holds credentials"
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk":
		return base + " is a private key"
	}
	if strings.HasPrefix(base, ".env") {
		return ".env files hold secrets; write a template such as .env.example instead"
	}
	switch path.Ext(base) {
	case ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk":
		return base + " may hold a private key"
	}
	return ""
}

// privateKey reports whether content holds a PEM private key.
func privateKey(content []byte) bool {
	return bytes.Contains(content, []byte("PRIVATE KEY-----"))
}

// writeAtomic replaces rel with data: it writes a temporary file next to
// it, syncs it, renames it over rel and syncs the directory, so that rel
// holds either its old content or data, whatever happens. Parent
// directories are created. The file gets mode; ownership and other links
// to the old file are not kept.
func writeAtomic(root *os.Root, rel string, data []byte, mode iofs.FileMode) (err error) {
	dir := fstree.Parent(rel)
	if dir != "" {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var r [6]byte
	rand.Read(r[:])
	tmp := fstree.Join(dir, "."+baseOf(rel)+".wield-"+hex.EncodeToString(r[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Chmod(tmp, mode); err != nil {
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		return err
	}
	if d, err := root.Open(display(dir)); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
	return nil
}

// lineStyle says how a text ends its lines.
type lineStyle int8

const (
	lfLines   lineStyle = iota // "\n" only, or no line breaks
	crlfLines                  // "\r\n" only
	mixedLines
)

func styleOf(b []byte) lineStyle {
	crlf := bytes.Count(b, []byte("\r\n"))
	lf := bytes.Count(b, []byte{'\n'}) - crlf
	switch {
	case crlf > 0 && lf == 0:
		return crlfLines
	case crlf > 0:
		return mixedLines
	}
	return lfLines
}

// toLF replaces "\r\n" with "\n".
func toLF(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte{'\n'}) }

// toCRLF replaces every "\n" with "\r\n"; b must not hold "\r\n".
func toCRLF(b []byte) []byte { return bytes.ReplaceAll(b, []byte{'\n'}, []byte("\r\n")) }

func (s lineStyle) String() string {
	switch s {
	case crlfLines:
		return "CRLF"
	case mixedLines:
		return "mixed"
	}
	return "LF"
}
