package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
	"github.com/wieldhq/wield/workspace"
)

// policy builds the permission policy of workspace ws from the settings
// files (the user's, the project's .wield/settings.json and the personal
// .wield/settings.local.json) and the --mode flag. When a person can
// answer (interactive, and a terminal is there), "ask" becomes a prompt on
// the terminal that shows what the call will do; "always" adds a narrow
// rule to the session or saves it in .wield/settings.local.json, which git
// ignores. Otherwise the policy is headless and "ask" means deny.
func (g *globals) policy(ws, mode string, interactive bool) (*policy.Policy, *terminalApprover, error) {
	p := &policy.Policy{Root: ws, HeadlessHint: headlessHint, Logger: g.logger()}
	if err := wield.LoadSettings(p, ws, g.trusted(ws)); err != nil {
		return nil, nil, &exitError{exitUsage, err}
	}
	if rules := g.rulesFile(ws); rules != ".wield/settings.json" {
		p.HeadlessHint = "add an allow rule to " + rules + " to permit it"
	}
	if mode != "" {
		m, err := policy.ParseMode(mode)
		if err != nil {
			return nil, nil, &exitError{exitUsage, fmt.Errorf("--mode: %w", err)}
		}
		p.Mode = m
	}
	if p.Hooks != nil {
		p.Hooks.Dir = ws
	}
	if p.Mode == policy.ModeYolo {
		fmt.Fprintln(g.stderr, "wield: YOLO MODE: every tool call runs without asking (deny rules still apply)")
	}
	var approver *terminalApprover
	if interactive && isTerminal(g.stderr) {
		if tty, err := os.Open("/dev/tty"); err == nil {
			approver = g.newApprover(tty, p, ws)
		}
	}
	p.Headless = approver == nil
	return p, approver, nil
}

// newApprover returns the terminal approver of policy p in workspace ws,
// reading answers from in.
func (g *globals) newApprover(in io.Reader, p *policy.Policy, ws string) *terminalApprover {
	pal := palette{color: (g.tty || isTerminal(g.stderr)) && !g.noColor()}
	local := wield.LocalSettings(ws)
	rel, err := filepath.Rel(ws, local)
	if err != nil {
		rel = local
	}
	return &terminalApprover{
		in: bufio.NewReader(in), out: g.stderr, pal: pal, project: rel, width: func() int { return terminalWidth(g.stderr) },
		preview: func(c *tool.Call, t *tool.Tool, args json.RawMessage) string {
			return approvalPreview(pal, p, c, t.Name(), args)
		},
		rules: func(t *tool.Tool, args json.RawMessage) ([]policy.Rule, error) {
			return policy.AllowAlways(p, t.Name(), args)
		},
		allow: func(rules []policy.Rule, project bool) (string, error) {
			if project {
				for _, r := range rules {
					if err := policy.SaveRule(local, policy.Allow, r); err != nil {
						return "", err
					}
				}
				ignoreLocalSettings(ws)
				if note := g.retrust(ws); note != "" { // see project.go
					fmt.Fprintf(g.stderr, "wield: %s\n", note)
				}
			}
			if err := p.Add(policy.Allow, rules...); err != nil {
				return "", err
			}
			return rel, nil
		},
	}
}

// approvalPreview shows what a call will do: an edit as a diff, a shell
// line split into its commands with what the rules say of each. It is ""
// for other tools, and for calls it cannot preview (the tool will say
// what is wrong).
func approvalPreview(pal palette, p *policy.Policy, c *tool.Call, name string, args json.RawMessage) string {
	switch name {
	case "register_mcp_server": // the names of its variables, never their values
		return mcp.DescribeRegistration(args)
	case "write_file", "replace":
		ch, err := fs.Preview(c, name, args)
		if err != nil {
			return pal.dim("(no preview: "+err.Error()+")") + "\n" + argsPreview(args)
		}
		return renderChange(pal, ch)
	}
	if slices.Contains(policy.DefaultShellTools, name) {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(args, &in) != nil || in.Command == "" {
			return ""
		}
		vs, err := p.Explain(name, in.Command)
		if err != nil {
			return pal.dim("(the command does not parse: "+err.Error()+")") + "\n" + in.Command
		}
		return renderCommand(pal, in.Command, vs)
	}
	return ""
}

// ignoreLocalSettings makes sure .wield/.gitignore of workspace ws names
// settings.local.json, as Claude Code keeps settings.local.json out of
// git. Failing to is harmless.
func ignoreLocalSettings(ws string) {
	wield.IgnoreState(ws)
	path := workspace.Layout{Root: ws}.GitIgnore()
	data, err := os.ReadFile(path)
	if err != nil || slices.Contains(strings.Split(string(data), "\n"), "settings.local.json") {
		return
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
		if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
			_, _ = f.WriteString("\n")
		}
		_, _ = f.WriteString("settings.local.json\n")
		_ = f.Close()
	}
}
