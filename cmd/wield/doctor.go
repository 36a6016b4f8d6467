package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/catalog"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/sandbox"
	"github.com/wieldhq/wield/tools/desktop"
	"github.com/wieldhq/wield/trust"
	"github.com/wieldhq/wield/workspace"
)

// A doctorReport is what wield doctor finds.
type doctorReport struct {
	Workspace string `json:"workspace"`
	// Sandbox lists each mechanism, strongest first; Sandboxed names the
	// one commands would run under, "" when none isolates.
	Sandbox   []sandbox.Capabilities `json:"sandbox"`
	Sandboxed sandbox.Mechanism      `json:"sandboxed"`
	// Hidden are the credential locations sandboxed commands cannot
	// read (see sandbox_hidden.go).
	Hidden []string    `json:"sandbox_hidden"`
	Git    string      `json:"git"` // git --version, or ""
	Model  doctorModel `json:"model"`
	MCP    []string    `json:"mcp_servers"`
	// MCPStatus is each server's state after a start, with --check-mcp.
	MCPStatus []doctorServer `json:"mcp_status,omitempty"`
	// Config lists the config, settings and MCP files found, read in that
	// order.
	Config []string `json:"config_files"`
	// State is the workspace's .wield directory: whether git ignores its
	// own state and the personal settings.
	State   doctorState     `json:"state"`
	Desktop *desktop.Status `json:"desktop,omitempty"` // see desktop.go
	// Trust is whether the workspace's own configuration applies.
	Trust    *doctorTrust `json:"trust,omitempty"`
	Problems []string     `json:"problems,omitempty"`
}

// doctorTrust is what wield doctor says of the workspace's trust.
type doctorTrust struct {
	// Status is "trusted", "not trusted", "changed since trusted" or
	// "nothing to trust"; Applies reports whether the configuration is
	// used (also by --trust or WIELD_TRUST, named in How).
	Status  string `json:"status"`
	Applies bool   `json:"applies"`
	How     string `json:"how,omitempty"`
	// Enables lists what the configuration would enable, "FILE: ITEM".
	Enables []string `json:"enables"`
	// Added and Removed are what changed since it was trusted.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// doctorTrustOf reports the trust of workspace ws.
func (g *globals) doctorTrustOf(ws string) (*doctorTrust, []string) {
	st := g.trustFor(ws)
	t := &doctorTrust{Status: st.verdict.Status.String(), Applies: st.trusted, How: st.how, Enables: []string{}}
	lines := func(items []trust.Item) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Source+": "+it.String())
		}
		return out
	}
	t.Enables = append(t.Enables, lines(st.manifest.Sorted())...)
	t.Added, t.Removed = lines(st.verdict.Added), lines(st.verdict.Removed)
	var problems []string
	for _, err := range st.problems {
		problems = append(problems, err.Error())
	}
	if st.err != nil {
		problems = append(problems, st.err.Error())
	}
	if !st.trusted {
		problems = append(problems, fmt.Sprintf("this folder's configuration is %s and not used: %s; wield trust uses it", st.verdict.Status, st.manifest.Summary()))
	}
	return t, problems
}

type doctorModel struct {
	Name   string `json:"name,omitempty"`
	KeySet bool   `json:"key_set"`
	Error  string `json:"error,omitempty"`
	// Reached is set by --check-model: "ok", or why the model could not
	// be reached.
	Reached string `json:"reached,omitempty"`
}

type doctorServer struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
	// Diagnosis is what wield mcp doctor --json reports of the server.
	Diagnosis *mcp.Diagnosis `json:"diagnosis,omitempty"`
}

type doctorState struct {
	Git     bool `json:"git_repository"`
	Ignored bool `json:"state_ignored"`
}

func newDoctorCommand(g *globals) *cobra.Command {
	var asJSON, checkModel, checkMCP bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "report what wield can use on this machine",
		Long: `Doctor reports what wield finds on this machine and in the workspace: the
sandbox mechanisms and what each enforces (file system, network, PID
namespace, limits) with the credential locations sandboxed commands cannot
read, git, the workspace (a git repository? is wield's state
kept out of git?), the config, settings and MCP files it reads with any key
it does not know, whether the workspace is trusted and what its own
configuration would enable (see wield trust), the model configured and whether its API key is set, and
the MCP servers configured. It changes nothing and, unless asked, reaches no
model and starts no MCP server: --check-model sends the model one tiny
request (a few tokens), and --check-mcp diagnoses every MCP server as wield
mcp doctor does (starts it, lists its tools and stops it). Each problem is
listed with what to do about it; the exit status is 1 when there is one.

Sandboxes: bubblewrap (the bwrap program) where it can create namespaces,
else Linux Landlock with resource limits. A mechanism that is missing is
listed with what it would take to get it.

The --json flag prints the report as JSON.

See also: wield help run, wield help mcp.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep := g.doctor(cmd)
			if checkModel {
				g.checkModel(cmd.Context(), &rep)
			}
			if checkMCP && rep.Workspace != "" {
				g.checkMCP(cmd.Context(), &rep)
			}
			var err error
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				err = enc.Encode(rep)
			} else {
				err = printDoctor(g.stdout, rep)
			}
			if err == nil && len(rep.Problems) > 0 {
				return &exitError{code: exitToolFailure}
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&checkModel, "check-model", false, "send the model one tiny request to see that it answers")
	cmd.Flags().BoolVar(&checkMCP, "check-mcp", false, "start each MCP server, list its tools, and stop it (as wield mcp doctor)")
	return cmd
}

func (g *globals) doctor(cmd *cobra.Command) doctorReport {
	var rep doctorReport
	ws, err := g.workspace()
	if err != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("workspace: %v", err))
	}
	rep.Workspace = ws
	if ws != "" {
		g.trustFor(ws).told = true // the report says it: see doctorTrustOf
	}
	rep.Sandbox = sandbox.Probe(cmd.Context(), "")
	rep.Hidden = sandboxHidden()
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
	rep.Model = doctorModelFor(ws, ws != "" && g.trustFor(ws).trusted)
	if rep.Model.Error != "" {
		rep.Problems = append(rep.Problems, "model: "+rep.Model.Error)
	}
	rep.Config = []string{}
	if ws != "" {
		rep.Config = configFiles(ws)
		rep.Problems = append(rep.Problems, wield.UnknownKeys(ws)...)
		rep.State = doctorStateOf(ws)
		var problems []string
		rep.Trust, problems = g.doctorTrustOf(ws)
		rep.Problems = append(rep.Problems, problems...)
		if rep.State.Git && !rep.State.Ignored {
			rep.Problems = append(rep.Problems, ".wield/.gitignore does not keep sessions/, logs/ and settings.local.json out of git: delete it and wield writes a new one")
		}
	}
	if ws != "" {
		servers, err := mcp.LoadConfig(g.mcpConfigFiles(ws), nil)
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
	g.doctorDesktop(cmd.Context(), &rep) // desktop.go
	return rep
}

// doctorModelFor reports the model run and chat would use, without
// reaching it.
func doctorModelFor(ws string, trusted bool) doctorModel {
	cfg, err := wield.LoadConfig(wield.Config{}, ws, os.Getenv, trusted)
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

// configFiles lists the config, settings and MCP files of workspace ws
// that exist.
func configFiles(ws string) []string {
	files := []string{workspace.Layout{Root: ws}.Config()}
	if u, err := workspace.User(); err == nil {
		files = append(files, u.Config())
	}
	files = append(files, policy.SettingsFiles(ws)...)
	files = append(files, wield.LocalSettings(ws))
	files = append(files, mcp.ConfigFiles(ws)...)
	out := []string{}
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// doctorStateOf reports on workspace ws's .wield directory.
func doctorStateOf(ws string) doctorState {
	var st doctorState
	if _, err := os.Stat(filepath.Join(ws, ".git")); err == nil {
		st.Git = true
	}
	data, err := os.ReadFile(workspace.Layout{Root: ws}.GitIgnore())
	if errors.Is(err, fs.ErrNotExist) {
		st.Ignored = true // wield writes it with its first session
		return st
	}
	lines := strings.Split(string(data), "\n")
	st.Ignored = slices.Contains(lines, "sessions/") && slices.Contains(lines, "logs/") && slices.Contains(lines, "settings.local.json")
	return st
}

// checkModel sends the configured model a request of a few tokens.
func (g *globals) checkModel(ctx context.Context, rep *doctorReport) {
	if rep.Model.Error != "" {
		return
	}
	ws := rep.Workspace
	cfg, err := wield.LoadConfig(wield.Config{}, ws, os.Getenv, g.trustFor(ws).trusted)
	if err == nil {
		var cat *catalog.Catalog
		if cat, err = catalogFor(cfg); err == nil {
			var mc modelChoice
			if mc, err = chooseModel(cfg, "", cat, os.Getenv); err == nil {
				var p llm.Provider
				if p, err = newProvider(mc, g); err == nil {
					ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
					defer cancel()
					_, err = p.Stream(ctx, &llm.Request{Model: mc.Model, MaxTokens: 16,
						Messages: []llm.Message{{Role: llm.RoleUser, Content: "Reply with the word OK."}}}, func(llm.Event) {})
				}
			}
		}
	}
	if err != nil {
		rep.Model.Reached = err.Error()
		rep.Problems = append(rep.Problems, "model "+rep.Model.Name+" did not answer: "+err.Error())
		return
	}
	rep.Model.Reached = "ok"
}

// checkMCP diagnoses the workspace's MCP servers as wield mcp doctor
// does, and reports each one's state.
func (g *globals) checkMCP(ctx context.Context, rep *doctorReport) {
	mgr := g.mcpManager(rep.Workspace)
	g.addPluginServers(mgr) // see extensions.go
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	diag, err := mgr.Diagnose(ctx)
	if err != nil {
		rep.Problems = append(rep.Problems, "MCP: "+err.Error())
		return
	}
	for _, d := range diag.Servers {
		ds := doctorServer{Name: d.Name, State: d.Status, Tools: len(d.Mounted), Diagnosis: &d}
		if d.Status == mcp.StatusFailed {
			ds.Error = d.Problem
			rep.Problems = append(rep.Problems, fmt.Sprintf("MCP server %s: %s: %s (wield mcp doctor %s says more)", d.Name, d.Problem, d.Fix, d.Name))
		}
		rep.MCPStatus = append(rep.MCPStatus, ds)
	}
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
	hidden := strings.Join(rep.Hidden, ", ")
	if hidden == "" {
		hidden = "none of the usual credential locations exists here"
	}
	fmt.Fprintf(&b, "  %-11s %s\n", "hidden", hidden)
	git := rep.Git
	if git == "" {
		git = "not found"
	}
	fmt.Fprintf(&b, "git        %s\n", git)
	printDesktopDoctor(&b, rep.Desktop)
	switch {
	case rep.Model.Error != "":
		fmt.Fprintf(&b, "model      %s\n", rep.Model.Error)
	default:
		fmt.Fprintf(&b, "model      %s (API key set: %s)", rep.Model.Name, yes(rep.Model.KeySet))
		if rep.Model.Reached != "" {
			fmt.Fprintf(&b, "; answers: %s", rep.Model.Reached)
		}
		b.WriteString("\n")
	}
	if rep.Workspace != "" {
		fmt.Fprintf(&b, "state      git repository %s, wield's state ignored by git %s\n", yes(rep.State.Git), yes(rep.State.Ignored))
	}
	if t := rep.Trust; t != nil {
		used := "not used"
		if t.Applies {
			used = "used"
		}
		if t.How != "" && t.How != t.Status {
			used += " (" + t.How + ")"
		}
		fmt.Fprintf(&b, "trust      %s; the folder's configuration is %s\n", t.Status, used)
		for _, e := range t.Enables {
			fmt.Fprintf(&b, "  %s\n", e)
		}
		for _, e := range t.Added {
			fmt.Fprintf(&b, "  + %s\n", e)
		}
		for _, e := range t.Removed {
			fmt.Fprintf(&b, "  - %s\n", e)
		}
	}
	files := strings.Join(rep.Config, ", ")
	if files == "" {
		files = "none (defaults only)"
	}
	fmt.Fprintf(&b, "config     %s\n", files)
	mcps := strings.Join(rep.MCP, ", ")
	if mcps == "" {
		mcps = "none configured"
	}
	fmt.Fprintf(&b, "mcp        %s\n", mcps)
	for _, s := range rep.MCPStatus {
		fmt.Fprintf(&b, "  %-11s %s, %d tools", s.Name, s.State, s.Tools)
		if s.Error != "" {
			fmt.Fprintf(&b, ": %s", s.Error)
		}
		b.WriteString("\n")
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "problem    %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
