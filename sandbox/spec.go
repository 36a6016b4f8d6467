package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// A spec is what the host tells the helper: the one argument after the
// helper's command line, as JSON.
type spec struct {
	Mechanism Mechanism `json:"mechanism"`
	Bwrap     string    `json:"bwrap,omitempty"`
	UserNS    bool      `json:"userns,omitempty"`
	// Args[0] is an absolute path.
	Args     []string `json:"args"`
	Dir      string   `json:"dir"`
	Writable []string `json:"writable,omitempty"`
	Network  bool     `json:"network,omitempty"`
	// Limits; zero means none.
	CPUSeconds uint64 `json:"cpu,omitempty"`
	Memory     uint64 `json:"memory,omitempty"`
	FileSize   uint64 `json:"file_size,omitempty"`
	// StatusFD, when not negative, is a descriptor the helper writes a
	// setup failure to; it is closed on exec, so the host reads end of
	// file when the command starts. Negative means stderr.
	StatusFD int `json:"status_fd"`
	// Host is the pid of the process that starts the helper; 0 means
	// unknown. The helper fails if its parent is no longer Host.
	Host int `json:"host,omitempty"`
}

func (s *spec) encode() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a spec always marshals
	}
	return string(b)
}

// decodeSpec parses and checks a spec from the helper's argument.
func decodeSpec(arg string) (*spec, error) {
	var s spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		return nil, fmt.Errorf("sandbox helper: bad spec: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("sandbox helper: bad spec: %w", err)
	}
	return &s, nil
}

func (s *spec) check() error {
	switch s.Mechanism {
	case Bubblewrap:
		if !filepath.IsAbs(s.Bwrap) {
			return fmt.Errorf("bwrap path %q is not absolute", s.Bwrap)
		}
	case Landlock, NoIsolation:
	default:
		return fmt.Errorf("unknown mechanism %q", s.Mechanism)
	}
	if len(s.Args) == 0 || !filepath.IsAbs(s.Args[0]) {
		return errors.New("want an absolute program path")
	}
	if !filepath.IsAbs(s.Dir) {
		return fmt.Errorf("directory %q is not absolute", s.Dir)
	}
	for _, w := range s.Writable {
		if !filepath.IsAbs(w) {
			return fmt.Errorf("writable directory %q is not absolute", w)
		}
	}
	if s.StatusFD > 1<<20 {
		return fmt.Errorf("status descriptor %d out of range", s.StatusFD)
	}
	return nil
}

// bwrapArgs returns bwrap's command line for s: the system read-only, the
// writable directories bound over it, fresh /dev and /proc, every
// namespace but the network's when it is allowed, no capabilities, and
// the command in a session of its own (so it cannot push input into a
// terminal) that dies with bwrap.
func (s *spec) bwrapArgs() []string {
	a := []string{s.Bwrap, "--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"}
	if s.UserNS {
		a = append(a, "--unshare-user")
	}
	if !s.Network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, w := range s.Writable {
		a = append(a, "--bind", w, w)
	}
	a = append(a, "--chdir", s.Dir, "--")
	return append(a, s.Args...)
}

// signalExit reports the signal that an exit status of 128+N from bwrap
// stands for.
func signalExit(code int) (int, bool) {
	if code > 128 && code < 128+65 {
		return code - 128, true
	}
	return 0, false
}
