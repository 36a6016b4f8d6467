package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/sandbox"
)

// A doctorReport is what wield doctor finds.
type doctorReport struct {
	Workspace string `json:"workspace"`
	// Sandbox lists each mechanism, strongest first; Sandboxed names the
	// one commands would run under, "" when none isolates.
	Sandbox   []sandbox.Capabilities `json:"sandbox"`
	Sandboxed sandbox.Mechanism      `json:"sandboxed"`
	Git       string                 `json:"git"` // git --version, or ""
	Model     doctorModel            `json:"model"`
	MCP       []string               `json:"mcp_servers"`
	Problems  []string               `json:"problems,omitempty"`
}

type doctorModel struct {
	Name   string `json:"name,omitempty"`
	KeySet bool   `json:"key_set"`
	Error  string `json:"error,omitempty"`
}

func newDoctorCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "report what wield can use on this machine",
		Long: `Doctor reports what wield finds on this machine and in the workspace: the
sandbox mechanisms and what each enforces (file system, network, PID
namespace, limits), git, the model configured and whether its API key is
set, and the MCP servers configured. It changes nothing and starts no MCP
server.

Sandboxes: bubblewrap (the bwrap program) where it can create namespaces,
else Linux Landlock with resource limits. A mechanism that is missing is
listed with what it would take to get it.

The --json flag prints the report as JSON.

See also: wield help run, wield help mcp.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := g.doctor(cmd)
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return printDoctor(g.stdout, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func (g *globals) doctor(cmd *cobra.Command) doctorReport {
	var rep doctorReport
	ws, err := g.workspace()
	if err != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("workspace: %v", err))
	}
	rep.Workspace = ws
	rep.Sandbox = sandbox.Probe(cmd.Context(), "")
	// The mechanism sandbox.New would choose with the default minimum.
	for _, c := range rep.Sandbox {
		if c.Available && c.Level >= sandbox.LevelNetwork {
			rep.Sandboxed = c.Mechanism
			break
		}
	}
	if rep.Sandboxed == "" {
		rep.Problems = append(rep.Problems, (&sandbox.UnavailableError{Minimum: sandbox.LevelNetwork, Probed: rep.Sandbox}).Error())
	}
	if out, err := exec.CommandContext(cmd.Context(), "git", "--version").Output(); err == nil {
		rep.Git = strings.TrimSpace(string(out))
	} else {
		rep.Problems = append(rep.Problems, "git not found: the git tools and workspace detection need it")
	}
	rep.Model = doctorModelFor(ws)
	if ws != "" {
		servers, err := mcp.LoadConfig(mcp.ConfigFiles(ws), nil)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("MCP configuration: %v", err))
		}
		for name := range servers {
			rep.MCP = append(rep.MCP, name)
		}
		slices.Sort(rep.MCP)
	}
	if rep.MCP == nil {
		rep.MCP = []string{}
	}
	return rep
}

// doctorModelFor reports the model run and chat would use, without
// reaching it.
func doctorModelFor(ws string) doctorModel {
	cfg, err := loadRunConfig(runConfig{}, ws, os.Getenv)
	if err != nil {
		return doctorModel{Error: err.Error()}
	}
	m := doctorModel{Name: cfg.Model}
	if cfg.Model == "" {
		m.Error = "no model configured: set WIELD_MODEL, pass --model, or add \"model\" to .wield/config.json"
		return m
	}
	cat, err := catalogFor(cfg)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	mc, err := chooseModel(cfg, "", cat, os.Getenv)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	m.Name, m.KeySet = mc.String(), mc.APIKey != ""
	return m
}

func printDoctor(w io.Writer, rep doctorReport) error {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "workspace  %s\n", rep.Workspace)
	sandboxed := string(rep.Sandboxed)
	if sandboxed == "" {
		sandboxed = "none: commands cannot be sandboxed here"
	}
	fmt.Fprintf(&b, "sandbox    %s\n", sandboxed)
	for _, c := range rep.Sandbox {
		if !c.Available {
			fmt.Fprintf(&b, "  %-11s unavailable: %s\n", c.Mechanism, c.Reason)
			continue
		}
		fmt.Fprintf(&b, "  %-11s level %s", c.Mechanism, c.Level)
		if c.Version != "" {
			fmt.Fprintf(&b, " (%s)", c.Version)
		}
		network := c.Network
		if network == "" {
			network = "open"
		}
		fmt.Fprintf(&b, "; read-only system %s, network denied %s, PID namespace %s, signals confined %s, limits %s\n",
			yes(c.Filesystem), network, yes(c.PIDNamespace), yes(c.Signals), strings.Join(c.Limits, ","))
		if c.Reason != "" {
			fmt.Fprintf(&b, "  %-11s note: %s\n", "", c.Reason)
		}
	}
	git := rep.Git
	if git == "" {
		git = "not found"
	}
	fmt.Fprintf(&b, "git        %s\n", git)
	switch {
	case rep.Model.Error != "":
		fmt.Fprintf(&b, "model      %s\n", rep.Model.Error)
	default:
		fmt.Fprintf(&b, "model      %s (API key set: %s)\n", rep.Model.Name, yes(rep.Model.KeySet))
	}
	mcps := strings.Join(rep.MCP, ", ")
	if mcps == "" {
		mcps = "none configured"
	}
	fmt.Fprintf(&b, "mcp        %s\n", mcps)
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "problem    %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
