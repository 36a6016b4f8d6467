package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A prepared command is a Command checked and resolved into a spec.
type prepared struct {
	spec      spec
	env       []string
	timeout   time.Duration
	maxOutput int
	cleanup   func() // removes a temporary scratch directory
}

// prepare checks c and resolves its paths, program and limits.
func (s *Sandbox) prepare(c *Command) (*prepared, error) {
	if c == nil || len(c.Args) == 0 || c.Args[0] == "" {
		return nil, errors.New("sandbox: Command.Args is empty")
	}
	p := &prepared{cleanup: func() {}}
	scratch := c.Scratch
	if scratch == "" {
		dir, err := os.MkdirTemp("", "wield-sandbox-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: scratch directory: %w", err)
		}
		scratch = dir
		p.cleanup = func() { os.RemoveAll(dir) }
	}
	ok := false
	defer func() {
		if !ok {
			p.cleanup()
		}
	}()
	var err error
	if scratch, err = realDir(scratch); err != nil {
		return nil, fmt.Errorf("sandbox: scratch directory: %w", err)
	}
	writable := []string{scratch}
	if c.Workspace != "" {
		ws, err := realDir(c.Workspace)
		if err != nil {
			return nil, fmt.Errorf("sandbox: workspace: %w", err)
		}
		writable = append(writable, ws)
	}
	dir := scratch
	if c.Dir != "" {
		if dir, err = realDir(c.Dir); err != nil {
			return nil, fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	p.env = c.Env
	if p.env == nil {
		path := os.Getenv("PATH")
		if path == "" {
			path = "/usr/local/bin:/usr/bin:/bin"
		}
		p.env = []string{"PATH=" + path, "HOME=" + scratch, "TMPDIR=" + scratch, "LANG=C.UTF-8"}
	}
	prog, err := lookPath(c.Args[0], envValue(p.env, "PATH"), dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p.spec = spec{
		Mechanism: s.caps.Mechanism,
		Bwrap:     s.caps.Path,
		UserNS:    s.caps.UserNamespace,
		Args:      append([]string{prog}, c.Args[1:]...),
		Dir:       dir,
		Writable:  writable,
		Network:   c.Network,
		StatusFD:  -1,
	}
	if s.caps.Mechanism != NoIsolation {
		p.spec.Hide, p.spec.Show = resolveHidden(s.hide, s.show, writable)
	}
	s.useProxy(p, c)
	cpu := limit(c.CPUTime, DefaultCPUTime)
	p.spec.CPUSeconds = uint64((cpu + time.Second - 1) / time.Second)
	p.spec.Memory = uint64(limit(c.Memory, DefaultMemory))
	p.spec.FileSize = uint64(limit(c.MaxFileSize, DefaultMaxFileSize))
	p.timeout = c.Timeout
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	p.maxOutput = c.MaxOutput
	if p.maxOutput <= 0 {
		p.maxOutput = DefaultMaxOutput
	}
	ok = true
	return p, nil
}

// limit returns v, def when v is zero, or 0 (no limit) when v is negative.
func limit[T int64 | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// realDir returns the absolute path of dir with symbolic links resolved,
// and an error if it is not a directory.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return abs, nil
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds the program name as the command would: a name with a
// slash is taken relative to dir, any other is looked up in path. The
// sandbox sees the same files, read-only, so what is found here is what
// runs there.
func lookPath(name, path, dir string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if err := executable(name); err != nil {
			return "", fmt.Errorf("program %s: %w", name, err)
		}
		return name, nil
	}
	for d := range strings.SplitSeq(path, ":") {
		if d == "" || !filepath.IsAbs(d) {
			continue // an empty or relative PATH entry would depend on the directory
		}
		p := filepath.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("program %q not found in PATH %s: install it, or give its path", name, path)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}
