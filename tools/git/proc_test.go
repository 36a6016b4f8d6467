//go:build unix

package git

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTimeoutKillsProcessGroup runs a fake git that starts a child and
// both wait forever, each holding the write end of a FIFO open. Reading
// the FIFO ends only when both have died: the whole group was killed, not
// just git.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cancel  bool
		want    string
	}{
		{"timeout", 100 * time.Millisecond, false, "timed out after 100ms"},
		{"cancel", time.Hour, true, "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			fake := filepath.Join(dir, "git")
			script := "#!/bin/sh\nexec 3>'" + fifo + "'\nsleep 300 &\nsleep 300\n"
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			read := make(chan error, 1)
			opened := make(chan struct{})
			go func() {
				f, err := os.Open(fifo) // blocks until the fake git opens it
				close(opened)
				if err == nil {
					_, err = io.Copy(io.Discard, f) // ends when every writer is gone
					f.Close()
				}
				read <- err
			}()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r := newRunner(Config{Git: fake, Timeout: tc.timeout})
			done := make(chan error, 1)
			go func() {
				_, err := r.run(ctx, dir, request{args: []string{"status"}, read: true})
				done <- err
			}()
			if tc.cancel {
				// The reader's open returns once the script has opened
				// the FIFO: it is running, so cancelling stops it.
				<-opened
				cancel()
			}
			err := <-done
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run = %v, want an error saying %q", err, tc.want)
			}
			select {
			case err := <-read:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("a process of the fake git still holds the FIFO: the group was not killed")
			}
		})
	}
}
