package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/jezek/xgb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wieldhq/wield/tools/desktop"
)

// desktopState is the desktop tool's flags and, once a command has built
// the tool, the desktop, whose display close stops.
type desktopState struct {
	enabled  bool   // --desktop, or WIELD_DESKTOP=1
	size     string // --desktop-size
	display  string // --desktop-display: the user's own display, opted into
	viewOnly bool   // --desktop-view-only

	d *desktop.Desktop
}

// register adds the flags, which every command that builds tools heeds.
func (s *desktopState) register(fl *pflag.FlagSet) {
	fl.BoolVar(&s.enabled, "desktop", false, `offer the desktop tool: a virtual screen (Xvfb) on which the model launches programs, takes screenshots and clicks and types (see docs/desktop.md); also WIELD_DESKTOP=1`)
	fl.StringVar(&s.size, "desktop-size", "", "the `WxH` of the desktop's virtual screen (default 1280x800; also WIELD_DESKTOP_SIZE); larger screens are scaled down in screenshots")
	fl.StringVar(&s.display, "desktop-display", "", "drive this existing X `display` (\":0\", your own desktop) instead of a virtual one: the model then sees and operates your screen")
	fl.BoolVar(&s.viewOnly, "desktop-view-only", false, "offer only the desktop actions that change nothing (screenshot, zoom, cursor_position, wait), which need no approval")
}

// config returns the desktop's configuration from the flags and the
// environment.
func (s *desktopState) config(getenv func(string) string) (desktop.Config, bool, error) {
	enabled := s.enabled
	if v := getenv("WIELD_DESKTOP"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return desktop.Config{}, false, fmt.Errorf("WIELD_DESKTOP=%q: want 1 or 0", v)
		}
		enabled = enabled || b
	}
	cfg := desktop.Config{Display: s.display, ViewOnly: s.viewOnly}
	size := s.size
	if size == "" {
		size = getenv("WIELD_DESKTOP_SIZE")
	}
	if size != "" {
		w, h, ok := strings.Cut(size, "x")
		var err1, err2 error
		cfg.Width, err1 = strconv.Atoi(w)
		cfg.Height, err2 = strconv.Atoi(h)
		if !ok || err1 != nil || err2 != nil {
			return cfg, false, fmt.Errorf("--desktop-size %q: want WIDTHxHEIGHT, such as 1280x800", size)
		}
	}
	return cfg, enabled || s.display != "", nil
}

// desktopCommands returns the commands of the desktop tool: none; the
// tool is offered by run, chat, call and mcp with --desktop.
func (g *globals) desktopCommands() []*cobra.Command { return nil }

// desktopOn returns the desktop when --desktop (or
// WIELD_DESKTOP=1, or --desktop-display) asks for it. Its programs run in
// the sandbox when this machine has one; the display starts on the first
// call and stops when wield exits ([globals.close]).
func (g *globals) desktopOn() *desktop.Desktop {
	cfg, enabled, err := g.desktop.config(os.Getenv)
	if err != nil {
		g.logger().Warn("desktop tool not offered", "err", err)
		return nil
	}
	if !enabled {
		return nil
	}
	if g.desktop.d != nil {
		return g.desktop.d
	}
	// xgb logs to stderr when no $XAUTHORITY names a cookie; the desktop
	// presents its own.
	xgb.Logger = log.New(io.Discard, "", 0)
	settings, err := g.codeSettings()
	if err != nil {
		g.logger().Warn("desktop tool not offered", "err", err)
		return nil
	}
	if sb, err := g.code.sandboxed(context.Background()); err == nil {
		cfg.Sandbox, cfg.SandboxNetwork = sb, settings.SandboxNetwork
	} else {
		g.logger().Warn("desktop: programs launched on the desktop run unsandboxed", "err", err)
	}
	cfg.Logger = g.logger()
	d, err := desktop.New(cfg)
	if err != nil {
		g.logger().Warn("desktop tool not offered", "err", err)
		return nil
	}
	g.desktop.d = d
	return d
}

// close stops the desktop's display and the programs on it.
func (s *desktopState) close() error {
	if s.d == nil {
		return nil
	}
	return s.d.Close()
}

// doctorDesktop reports whether the desktop tool can run here: it starts
// Xvfb (or opens --desktop-display) for a moment and checks XTEST. What
// is missing is a problem only when the desktop is asked for.
func (g *globals) doctorDesktop(ctx context.Context, rep *doctorReport) {
	cfg, enabled, err := g.desktop.config(os.Getenv)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		return
	}
	xgb.Logger = log.New(io.Discard, "", 0)
	st := desktop.Probe(ctx, cfg)
	rep.Desktop = &st
	if !st.Ready && enabled {
		rep.Problems = append(rep.Problems, st.Problem)
	}
}

// printDesktopDoctor prints the desktop line of wield doctor.
func printDesktopDoctor(w io.Writer, st *desktop.Status) {
	switch {
	case st == nil:
	case st.Ready:
		fmt.Fprintf(w, "desktop    can run: %s (%s, %dx%d, XTEST)\n", st.Display, st.Xvfb, st.Width, st.Height)
	default:
		fmt.Fprintf(w, "desktop    cannot run: %s\n", st.Problem)
	}
}
