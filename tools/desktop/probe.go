package desktop

import (
	"context"
	"os/exec"
)

// Status is what [Probe] finds: whether the desktop can run here and,
// when it cannot, what is missing.
type Status struct {
	// Xvfb is the Xvfb program found, or "" ([Config.Display] set, or
	// none found).
	Xvfb string `json:"xvfb,omitempty"`
	// Display is the display the probe ran on, Width and Height its size.
	Display string `json:"display,omitempty"`
	Width   int    `json:"width,omitempty"`
	Height  int    `json:"height,omitempty"`
	// Ready reports whether a display started (or opened) with the XTEST
	// extension and a screen the desktop can read.
	Ready bool `json:"ready"`
	// Problem says what is missing and what to install, when not Ready.
	Problem string `json:"problem,omitempty"`
}

// Probe starts the display cfg configures, checks that it has what the
// desktop needs (XTEST, a 24-bit screen, a keyboard mapping) and stops
// it: a start of Xvfb, some hundred milliseconds. A bad cfg is reported
// as a problem.
func Probe(ctx context.Context, cfg Config) Status {
	var st Status
	if cfg.Display == "" {
		name := cfg.Xvfb
		if name == "" {
			name = "Xvfb"
		}
		st.Xvfb, _ = exec.LookPath(name)
	}
	d, err := New(cfg)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	defer d.Close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.start(ctx); err != nil {
		st.Problem = err.Error()
		return st
	}
	st.Ready, st.Display, st.Width, st.Height = true, d.disp.name, d.disp.width, d.disp.height
	return st
}
