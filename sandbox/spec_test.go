package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzDecodeSpec checks that any helper argument either fails to decode
// or decodes to a spec that passes its own checks and survives a round
// trip.
func FuzzDecodeSpec(f *testing.F) {
	good := spec{Mechanism: Bubblewrap, Bwrap: "/usr/bin/bwrap", Args: []string{"/bin/sh", "-c", "echo hi"},
		Dir: "/tmp/s", Writable: []string{"/tmp/s"}, CPUSeconds: 2, Memory: 1 << 20, StatusFD: 3, Host: 12}
	f.Add(good.encode())
	f.Add(`{"mechanism":"landlock","args":["/bin/true"],"dir":"/","status_fd":-1}`)
	f.Add(`{"mechanism":"none","args":["true"],"dir":"/"}`)
	f.Add(`{"mechanism":"landlock","args":["/bin/true"],"dir":"/","writable":["rel"]}`)
	f.Add(`{"mechanism":"bubblewrap","bwrap":"/b","args":["/bin/true"],"dir":"/","hide":[{"path":"/h/.ssh","dir":true},{"path":"/h/.netrc"}],"show":[{"path":"/h/.ssh/k"}]}`)
	f.Add(`{"mechanism":"landlock","args":["/bin/true"],"dir":"/","hide":[{"path":"/"}]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, arg string) {
		s, err := decodeSpec(arg)
		if err != nil {
			return
		}
		if err := s.check(); err != nil {
			t.Fatalf("decoded spec fails its check: %v", err)
		}
		again, err := decodeSpec(s.encode())
		if err != nil {
			t.Fatalf("re-decoding %s: %v", s.encode(), err)
		}
		// An empty list and no list mean the same (omitempty drops it).
		if diff := cmp.Diff(s, again, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
		if s.Mechanism == Bubblewrap {
			a := s.bwrapArgs()
			if a[0] != s.Bwrap || a[len(a)-len(s.Args)-1] != "--" {
				t.Errorf("bwrap command line %q does not end with -- and the command", a)
			}
		}
	})
}

func TestBwrapArgs(t *testing.T) {
	head := []string{"/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	cases := []struct {
		name string
		spec spec
		want []string
	}{
		{"plain", spec{Mechanism: Bubblewrap, Bwrap: "/usr/bin/bwrap", Args: []string{"/bin/echo", "hi"}, Dir: "/w", Writable: []string{"/s", "/w"}},
			[]string{"--bind", "/s", "/s", "--bind", "/w", "/w", "--chdir", "/w", "--", "/bin/echo", "hi"}},
		// Hidden directories get a tmpfs, made read-only only after the
		// workspace and the shown file are bound inside them.
		{"hidden", spec{Mechanism: Bubblewrap, Bwrap: "/usr/bin/bwrap", Args: []string{"/bin/true"}, Dir: "/h/.config/gh/w", Writable: []string{"/h/.config/gh/w"},
			Hide: []hiddenPath{{Path: "/h/.config/gh", Dir: true}, {Path: "/h/.netrc"}, {Path: "/h/.ssh", Dir: true}},
			Show: []hiddenPath{{Path: "/h/.ssh/known_hosts"}}},
			[]string{"--tmpfs", "/h/.config/gh", "--ro-bind", "/dev/null", "/h/.netrc", "--tmpfs", "/h/.ssh",
				"--bind", "/h/.config/gh/w", "/h/.config/gh/w", "--ro-bind", "/h/.ssh/known_hosts", "/h/.ssh/known_hosts",
				"--remount-ro", "/h/.config/gh", "--remount-ro", "/h/.ssh", "--chdir", "/h/.config/gh/w", "--", "/bin/true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(append(head[:len(head):len(head)], c.want...), c.spec.bwrapArgs()); diff != "" {
				t.Errorf("bwrapArgs (-want +got):\n%s", diff)
			}
		})
	}
}
