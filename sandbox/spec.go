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

	// Hide is what the command must not see, and Show what it must see
	// inside a hidden directory, as resolveHidden returns them: none
	// inside a writable directory or inside another of its list.
	Hide []hiddenPath `json:"hide,omitempty"`
	Show []hiddenPath `json:"show,omitempty"`

	// Proxy, when set, is the network proxy the command reaches (see
	// network.go); Network is then false.
	Proxy *proxySpec `json:"proxy,omitempty"`
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
	for _, h := range s.Hide {
		if !filepath.IsAbs(h.Path) || filepath.Clean(h.Path) == "/" {
			return fmt.Errorf("hidden path %q is not absolute or is the root", h.Path)
		}
	}
	for _, h := range s.Show {
		if !filepath.IsAbs(h.Path) {
			return fmt.Errorf("shown path %q is not absolute", h.Path)
		}
	}
	if err := s.Proxy.check(); err != nil {
		return err
	}
	if s.StatusFD > 1<<20 {
		return fmt.Errorf("status descriptor %d out of range", s.StatusFD)
	}
	return nil
}

// bwrapArgs returns bwrap's command line for s: the system read-only, an
// empty tmpfs over each hidden directory and /dev/null (which cannot be
// opened: binds are nodev) over each hidden file, the writable
// directories bound over that, the shown paths bound read-only inside
// the hidden directories, which are then made read-only; fresh /dev and
// /proc, every namespace but the network's when it is allowed, no
// capabilities, and the command in a session of its own (so it cannot
// push input into a terminal) that dies with bwrap. A tmpfs stays
// writable until the binds inside it are made, since bwrap creates their
// mount points; remounting it read-only leaves those binds as they are.
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
	for _, h := range s.Hide {
		if h.Dir {
			a = append(a, "--tmpfs", h.Path)
		} else {
			a = append(a, "--ro-bind", "/dev/null", h.Path)
		}
	}
	for _, w := range s.Writable {
		a = append(a, "--bind", w, w)
	}
	for _, sh := range s.Show {
		a = append(a, "--ro-bind", sh.Path, sh.Path)
	}
	for _, h := range s.Hide {
		if h.Dir {
			a = append(a, "--remount-ro", h.Path)
		}
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
