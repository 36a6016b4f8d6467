package fs

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user and group id that tests of file permissions run as
// when the tests run as root, for whom permissions do not apply.
const nobody = 65534

// childEnv marks the child process of [asUnprivileged].
const childEnv = "WIELD_FS_TEST_UNPRIVILEGED"

// asUnprivileged makes the calling test exercise real permission errors
// whoever runs it. As an ordinary user it returns true: the caller goes on
// and runs its body. As root (CI runs as root) it runs the same test again
// in a copy of the test binary as the user nobody, fails if that child does
// not pass it (a skip is a failure too), and returns false: the caller
// returns at once. The child runs the body unprivileged, so the tool meets
// EACCES from open(2), the very error the test is about.
func asUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv(childEnv) != "" {
		t.Fatalf("still root in the child that should run as uid %d", nobody)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The build cache's directories may be closed to other users: run a
	// copy from a directory nobody can enter, and let it make its
	// temporary files there.
	// (t.TempDir's parent is closed to other users.)
	dir, err := os.MkdirTemp("", "fs-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "fs.test")
	if err := copyExecutable(exe, copied); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), copied, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir, childEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as uid %d: %v\n%s", t.Name(), nobody, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()+" ") {
		t.Fatalf("%s as uid %d did not pass:\n%s", t.Name(), nobody, out)
	}
	return false
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestAsUnprivileged checks the helper itself: the body it lets run is
// never root's, so permission tests cannot pass vacuously.
func TestAsUnprivileged(t *testing.T) {
	if !asUnprivileged(t) {
		return
	}
	if os.Geteuid() == 0 {
		t.Fatal("the body runs as root")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := os.WriteFile(locked, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(locked); !os.IsPermission(err) {
		t.Fatalf("reading a mode 0 file: err = %v, want a permission error", err)
	}
}
