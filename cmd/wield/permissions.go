package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// policy builds the permission policy of workspace ws from the settings
// files and the --mode flag. When a person can answer (interactive, and a
// terminal is there), "ask" becomes a prompt on the terminal, and "allow
// always" stores a rule in the workspace's .wield/settings.json; otherwise
// the policy is headless and "ask" means deny.
func (g *globals) policy(ws, mode string, interactive bool) (*policy.Policy, *terminalApprover, error) {
	p := &policy.Policy{Root: ws, HeadlessHint: headlessHint, Logger: g.logger()}
	if err := p.Load(policy.SettingsFiles(ws)...); err != nil {
		return nil, nil, &exitError{exitUsage, err}
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
			settings := workspace.Layout{Root: ws}.Settings()
			approver = newTerminalApprover(tty, g.stderr, func(t *tool.Tool, args json.RawMessage) (string, error) {
				rules, err := policy.AllowAlways(p, t.Name(), args)
				if err != nil {
					return "", err
				}
				var names []string
				for _, r := range rules {
					if err := policy.SaveRule(settings, policy.Allow, r); err != nil {
						return "", err
					}
					if err := p.Add(policy.Allow, r); err != nil {
						return "", err
					}
					names = append(names, r.String())
				}
				return strings.Join(names, ", "), nil
			})
		}
	}
	p.Headless = approver == nil
	return p, approver, nil
}
