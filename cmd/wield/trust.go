package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/trust"
	"github.com/wieldhq/wield/workspace"
)

func newTrustCommand(g *globals) *cobra.Command {
	var list, tree, asJSON bool
	var revoke string
	cmd := &cobra.Command{
		Use:   "trust [--tree] [PATH] | --list | --revoke PATH",
		Short: "let a folder's own configuration run commands and loosen the policy",
		Long: `Trust lets the configuration that comes with a workspace act for you: its hooks
and allow rules (.wield/settings.json, .wield/settings.local.json), its model,
endpoint and catalogue entries (.wield/config.json), its MCP servers (.mcp.json,
.wield/mcp.json), its declared tools (.wield/tools), the grants of its skills
(allowed-tools) and the models of its agent definitions. Until you trust a
folder, all of that is ignored, because anyone who can commit to a repository
can write it; its deny and ask rules apply all the same. Your own files
(~/.config/wield) and flags are always used.

Without flags, trust prints what the workspace holding PATH (default: the
current one) would enable and records that you trust it as it is now. The
record is kept in trusted.json in your wield configuration directory, keyed by
the folder's real path and pinned to what you trusted: when a hook, server,
rule or endpoint changes, wield asks again (at a terminal) or ignores the
configuration again (elsewhere), showing what changed.

At a terminal, wield run and wield chat ask the first time they meet a folder
with such configuration. Elsewhere they say in one line what they ignored.
--trust (any command) uses the configuration for one run without recording it,
and so does WIELD_TRUST=1, for CI that checked out its own code.

  --tree     trust PATH and every folder beneath it, whatever their
             configuration (for your own projects directory, not one that
             receives clones)
  --list     list the trusted folders
  --revoke   forget PATH (its real path)

See also: wield doctor, wield help run.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st := trustStore()
			if st.Path == "" {
				return errors.New("trust: you have no configuration directory to record trust in (set HOME or XDG_CONFIG_HOME); --trust or WIELD_TRUST=1 trust one run")
			}
			switch {
			case list:
				if len(args) > 0 || tree || revoke != "" {
					return &exitError{exitUsage, errors.New("--list takes no path and no other flag")}
				}
				return g.listTrust(st, asJSON)
			case revoke != "":
				if len(args) > 0 || tree {
					return &exitError{exitUsage, errors.New("--revoke takes its path as its value: wield trust --revoke PATH")}
				}
				return g.revokeTrust(st, revoke)
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return g.trustFolder(st, dir, tree, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&list, "list", false, "list the trusted folders")
	fl.BoolVar(&tree, "tree", false, "trust PATH and every folder beneath it")
	fl.StringVar(&revoke, "revoke", "", "forget the trust of `PATH`")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// trustFolder records the trust of the workspace holding dir (or dir
// itself with tree) and says what it enables.
func (g *globals) trustFolder(st *trust.Store, dir string, tree, asJSON bool) error {
	if fi, err := os.Stat(dir); err != nil {
		return &exitError{exitUsage, fmt.Errorf("trust: %w", err)}
	} else if !fi.IsDir() {
		return &exitError{exitUsage, fmt.Errorf("trust: %s is not a folder", dir)}
	}
	ws := dir
	if !tree {
		var err error
		if g.workdir != "" && dir == "." {
			ws, err = g.workspace()
		} else {
			ws, err = workspace.Find(dir)
		}
		if err != nil {
			return err
		}
	}
	m, problems := wield.Manifest(context.Background(), ws)
	if tree {
		real, err := trust.RealPath(ws)
		if err != nil {
			return err
		}
		m = trust.Manifest{Root: real}
	}
	if err := st.Trust(m, tree, time.Now()); err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(g.stderr, "wield: trust: %s (its loosening parts stay unused until it parses)\n", p)
	}
	if asJSON {
		return json.NewEncoder(g.stdout).Encode(map[string]any{"path": m.Root, "tree": tree, "items": nonNil(m.Sorted())})
	}
	switch {
	case tree:
		fmt.Fprintf(g.stdout, "trusted %s and every folder beneath it\n", m.Root)
	case len(m.Items) == 0:
		fmt.Fprintf(g.stdout, "trusted %s; its configuration enables nothing yet, and wield asks again when it does\n", m.Root)
	default:
		fmt.Fprintf(g.stdout, "trusted %s, which enables:\n", m.Root)
		for _, it := range m.Sorted() {
			fmt.Fprintf(g.stdout, "  %-26s %s\n", it.Source, it)
		}
	}
	return nil
}

func nonNil(items []trust.Item) []trust.Item {
	if items == nil {
		return []trust.Item{}
	}
	return items
}

func (g *globals) listTrust(st *trust.Store, asJSON bool) error {
	recs, err := st.Records()
	if err != nil {
		return err
	}
	if asJSON {
		if recs == nil {
			recs = []trust.Record{}
		}
		return json.NewEncoder(g.stdout).Encode(recs)
	}
	if len(recs) == 0 {
		fmt.Fprintln(g.stdout, "no folder is trusted; wield trust trusts the current workspace")
		return nil
	}
	for _, r := range recs {
		what := fmt.Sprintf("%d items", len(r.Items))
		if len(r.Items) == 1 {
			what = "1 item"
		}
		if r.Tree {
			what = "and every folder beneath it"
		}
		fmt.Fprintf(g.stdout, "%s  %s  %s\n", r.Time.Local().Format("2006-01-02 15:04"), r.Path, what)
	}
	return nil
}

func (g *globals) revokeTrust(st *trust.Store, path string) error {
	real, err := trust.RealPath(path)
	if err != nil {
		// A folder that is gone is forgotten by its absolute path.
		if real, err = filepath.Abs(path); err != nil {
			return err
		}
	}
	ok, err := st.Revoke(real)
	if err != nil {
		return err
	}
	if !ok {
		recs, _ := st.Records()
		var paths []string
		for _, r := range recs {
			paths = append(paths, r.Path)
		}
		msg := fmt.Sprintf("trust: %s is not a trusted folder", real)
		if len(paths) > 0 {
			msg += "; trusted: " + strings.Join(paths, ", ")
		}
		return &exitError{exitUsage, errors.New(msg)}
	}
	fmt.Fprintf(g.stdout, "%s is no longer trusted\n", real)
	return nil
}
