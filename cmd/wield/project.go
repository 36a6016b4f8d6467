package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/trust"
	"github.com/wieldhq/wield/workspace"
)

// Workspace trust: a folder's own configuration (.wield/settings.json,
// .wield/config.json, .mcp.json, declared tools, skills' grants, agents'
// models) is inert until the user trusts the folder; what only restricts
// always applies. wield.Manifest lists what that configuration would
// enable; this file decides once a process whether it applies
// (trustFor), and asks at a terminal; trust.go is the command.

// trustEnv, set to 1 (or true), trusts the workspace for one run, as
// --trust does: for CI that checked out its own code.
const trustEnv = "WIELD_TRUST"

// trustState is what a process decided about its workspace's
// configuration.
type trustState struct {
	ws       string
	manifest trust.Manifest
	verdict  trust.Verdict
	// trusted reports whether the configuration applies whole; how says
	// why ("recorded", "--trust", …), for doctor.
	trusted bool
	how     string
	// problems are the files that could not be read while listing.
	problems []error
	// err is the trust file's error: nothing is trusted by it.
	err error
	// told is set once the headless line is printed.
	told bool
}

// trustStore returns the user's trust file; its Path is empty when the
// user has no configuration directory (nothing is then trusted by file).
func trustStore() *trust.Store {
	u, err := workspace.User()
	if err != nil {
		return &trust.Store{}
	}
	return &trust.Store{Path: filepath.Join(u.Dir, trust.FileName)}
}

// trustFor returns the trust state of workspace ws, found once a process.
// It does not ask and prints nothing: see [globals.trusted] and
// [globals.resolveTrust].
func (g *globals) trustFor(ws string) *trustState {
	if g.trust != nil && g.trust.ws == ws {
		return g.trust
	}
	st := &trustState{ws: ws}
	g.trust = st
	if ws == "" {
		st.trusted, st.how = true, "no workspace"
		return st
	}
	st.manifest, st.problems = wield.Manifest(context.Background(), ws)
	switch v := os.Getenv(trustEnv); {
	case g.trustFlag:
		st.trusted, st.how = true, "--trust"
	case v == "1" || strings.EqualFold(v, "true"):
		st.trusted, st.how = true, trustEnv+"="+v
	}
	st.verdict, st.err = trustStore().Check(st.manifest)
	switch st.verdict.Status {
	case trust.Nothing:
		st.trusted = true
		st.how = cmp.Or(st.how, "nothing to trust")
	case trust.Trusted:
		if !st.trusted {
			st.trusted, st.how = true, "trusted"
			if st.verdict.Record != nil && st.verdict.Record.Tree {
				st.how = "trusted with " + st.verdict.Record.Path
			}
		}
	}
	return st
}

// trusted reports whether the configuration of workspace ws applies
// whole. When it does not, the first call says once on stderr what was
// ignored and how to trust it.
func (g *globals) trusted(ws string) bool {
	st := g.trustFor(ws)
	if !st.trusted && !st.told {
		st.told = true
		g.tellUntrusted(st)
	}
	return st.trusted
}

// tellUntrusted prints the one line a run without a person gets about
// configuration it ignored.
func (g *globals) tellUntrusted(st *trustState) {
	if st.err != nil {
		fmt.Fprintf(g.stderr, "wield: %v\n", st.err)
	}
	what := "not trusted"
	if st.verdict.Status == trust.Changed {
		what = "changed since you trusted it"
	}
	fmt.Fprintf(g.stderr, "wield: ignored this folder's configuration (%s): %s; to use it, run wield trust (or --trust for one run, %s=1 in CI)\n",
		what, st.manifest.Summary(), trustEnv)
}

// resolveTrust decides the trust of workspace ws for a run: at a terminal
// (interactive), configuration that needs trust is shown and the user is
// asked; elsewhere it is ignored with one line on stderr.
func (g *globals) resolveTrust(ws string, interactive bool) error {
	st := g.trustFor(ws)
	if st.trusted || st.told {
		return nil
	}
	if !interactive {
		g.trusted(ws)
		return nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		g.trusted(ws)
		return nil
	}
	defer tty.Close()
	st.told = true
	pal := palette{color: !g.noColor()}
	fmt.Fprint(g.stderr, trustQuestion(pal, st))
	in := bufio.NewReader(tty)
	for {
		fmt.Fprint(g.stderr, pal.bold("trust this folder? [t/n/q] "))
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return &exitError{exitInterrupted, errors.New("no answer to the trust question")}
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "t", "trust", "y", "yes":
			if err := trustStore().Trust(st.manifest, false, time.Now()); err != nil {
				fmt.Fprintf(g.stderr, "wield: %v; trusted for this run only\n", err)
			} else {
				fmt.Fprintf(g.stderr, "trusted %s; wield trust --revoke %s takes it back\n", st.manifest.Root, st.manifest.Root)
			}
			st.trusted, st.how = true, "trusted"
			return nil
		case "", "n", "no":
			fmt.Fprintln(g.stderr, "continuing without this folder's configuration (wield trust uses it later)")
			return nil
		case "q", "quit":
			return &exitError{exitInterrupted, errors.New("stopped at the trust question")}
		}
		fmt.Fprintln(g.stderr, "answer t (trust), n (continue without it) or q (quit)")
	}
}

// retrust records workspace ws as trusted again after wield itself
// changed its configuration (a rule saved by "always in this project"),
// when the user had trusted it as it was, or it had nothing to trust. It
// returns a note for the user when the change will not apply to later
// runs until the folder is trusted, else "".
func (g *globals) retrust(ws string) string {
	st := g.trustFor(ws)
	v := st.verdict
	switch {
	case v.Status == trust.Trusted && v.Record != nil && v.Record.Tree:
		return ""
	case v.Status == trust.Nothing || v.Status == trust.Trusted && st.err == nil:
		m, _ := wield.Manifest(context.Background(), ws)
		if err := trustStore().Trust(m, false, time.Now()); err != nil {
			return fmt.Sprintf("%v: later runs use the rule once you run wield trust", err)
		}
		st.manifest = m
		st.verdict, st.err = trustStore().Check(m)
		return ""
	}
	return "this folder is not trusted: later runs use the rule once you run wield trust"
}

// trustQuestion shows what the configuration of st's folder would
// enable, or what changed since the user trusted it.
func trustQuestion(pal palette, st *trustState) string {
	var b strings.Builder
	m := st.manifest
	if st.err != nil {
		fmt.Fprintf(&b, "wield: %v\n", st.err)
	}
	if st.verdict.Status == trust.Changed {
		fmt.Fprintf(&b, "The configuration of %s changed since you trusted it (%s):\n", m.Root, st.verdict.Record.Time.Local().Format("2006-01-02 15:04"))
		for _, it := range st.verdict.Added {
			fmt.Fprintf(&b, "  %s %-24s %s\n", pal.yellow("+"), it.Source, it)
		}
		for _, it := range st.verdict.Removed {
			fmt.Fprintf(&b, "  %s %-24s %s\n", pal.dim("-"), it.Source, it)
		}
	} else {
		fmt.Fprintf(&b, "%s has its own configuration, which can run commands, allow tool\ncalls or choose where your requests and keys go:\n", m.Root)
		for _, it := range m.Sorted() {
			fmt.Fprintf(&b, "  %-26s %s\n", it.Source, it)
		}
	}
	b.WriteString("  [t] trust it: use this configuration now and later, until it changes\n")
	b.WriteString("  [n] continue without it (deny and ask rules still apply)\n")
	b.WriteString("  [q] quit\n")
	return b.String()
}
