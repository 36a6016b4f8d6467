package policy

import (
	"fmt"
	"strings"

	"github.com/wieldhq/wield/shellcmd"
	"github.com/wieldhq/wield/tool"
)

// wrappers run other commands given as their arguments, so a prefix rule
// cannot vouch for what they run: "allow xargs:*" would allow xargs rm.
// Only an exact rule allows them.
var wrappers = map[string]bool{
	"eval": true, "exec": true, "source": true, ".": true, "command": true, "builtin": true,
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"env": true, "sudo": true, "doas": true, "su": true, "xargs": true, "nohup": true,
	"timeout": true, "time": true, "nice": true, "ionice": true, "stdbuf": true, "watch": true,
	"parallel": true, "ssh": true, "setsid": true, "chroot": true, "unshare": true, "nsenter": true,
	"script": true, "expect": true, "trap": true, "alias": true,
}

// runsCommands reports whether args make an otherwise plain command run
// other commands or delete files (find -exec, find -delete, git -c ...).
func runsCommands(args []shellcmd.Word) bool {
	if len(args) == 0 {
		return false
	}
	name := args[0].Value
	for _, a := range args[1:] {
		v := a.Value
		switch name {
		case "find":
			if v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir" || v == "-delete" || strings.HasPrefix(v, "-fprint") {
				return true
			}
		case "git":
			if v == "-c" || strings.HasPrefix(v, "--config-env") || strings.HasPrefix(v, "--exec-path") {
				return true
			}
		case "awk", "gawk", "sed", "perl", "python", "python3", "ruby", "node":
			// Interpreters run programs given as arguments; only exact rules
			// may allow them (sed's e and w commands, awk's system()).
			return len(args) > 1
		}
	}
	return false
}

// shellVerdict is the decision on one simple command.
type shellVerdict struct {
	verdict tool.Verdict // Allow, Ask, Deny, or "" when no rule matched
	reason  string
	// inert is set on an allow that no rule gave: the command changes
	// nothing and shows no file's content (see inertCommand).
	inert bool
}

// judgeShell decides a command line: every simple command is judged on its
// own and the strictest decision wins. An allow needs every command
// allowed and nothing on the line that can evaluate data as code (see
// design/shell-policy.md): a rule vouches for the commands written on
// the line, and x[$(cmd)] in a variable's value runs cmd in an
// arithmetic context that no rule has seen. A command no rule covers
// falls back to ask.
func (p *Policy) judgeShell(toolName, line string, grants []Rule) (tool.Decision, bool) {
	parsed, err := shellcmd.Parse(line)
	if err != nil {
		return tool.Decision{Verdict: tool.Ask, Reason: fmt.Sprintf("the command line could not be parsed (%v), so no rule can vouch for it", err)}, true
	}
	cmds := parsed.Commands
	if len(cmds) == 0 {
		return tool.Decision{}, false
	}
	allowed, byRule, blocked := 0, 0, false
	var ask []string
	for _, c := range cmds {
		v := p.judgeCommand(toolName, c, line, grants)
		switch v.verdict {
		case tool.Deny:
			return tool.Decision{Verdict: tool.Deny, Reason: v.reason}, true
		case tool.Ask:
			ask = append(ask, v.reason)
		case tool.Allow:
			if len(parsed.Evals) > 0 {
				blocked = true
				continue
			}
			allowed++
			if !v.inert {
				byRule++
			}
		}
	}
	if blocked {
		ask = append(ask, dataAsCode(parsed.Evals))
	}
	if len(ask) > 0 {
		return tool.Decision{Verdict: tool.Ask, Reason: strings.Join(ask, "; ")}, true
	}
	if allowed == len(cmds) {
		switch byRule {
		case allowed:
			return tool.Decision{Verdict: tool.Allow, Reason: "every command is allowed by a rule"}, true
		case 0:
			return tool.Decision{Verdict: tool.Allow, Reason: "it changes nothing and shows no file's content"}, true
		}
		return tool.Decision{Verdict: tool.Allow, Reason: "every command is allowed by a rule or changes nothing and shows no file's content"}, true
	}
	return tool.Decision{}, false // some commands matched no rule: the mode decides
}

// dataAsCode explains why a line with evals cannot be allowed by a rule.
func dataAsCode(evals []shellcmd.Eval) string {
	const show = 3
	var parts []string
	for i, e := range evals {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(evals)-show))
			break
		}
		parts = append(parts, e.String())
	}
	return strings.Join(parts, "; ") + ", so no allow rule can vouch for this line"
}

// judgeCommand decides one simple command against the shell rules.
func (p *Policy) judgeCommand(toolName string, c shellcmd.Command, line string, grants []Rule) shellVerdict {
	src := strings.TrimSpace(line[c.Start:c.End])
	if len(c.Args) == 0 {
		// Only assignments or redirections: judged by its redirections.
		if f := outputFile(c); f != "" {
			return shellVerdict{verdict: tool.Ask, reason: fmt.Sprintf("%q writes to %s", src, f)}
		}
		return shellVerdict{verdict: tool.Allow}
	}
	for _, r := range p.rules(Deny, toolName) {
		if r.Specifier == "" || shellMatch(parseShellPattern(r.Specifier), c, true) {
			return shellVerdict{verdict: tool.Deny, reason: fmt.Sprintf("%q is denied by the rule %s", src, r)}
		}
	}
	for _, r := range p.rules(Ask, toolName) {
		if r.Specifier == "" || shellMatch(parseShellPattern(r.Specifier), c, true) {
			return shellVerdict{verdict: tool.Ask, reason: fmt.Sprintf("%q matches the ask rule %s", src, r)}
		}
	}
	var allowedBy *Rule
	for _, r := range p.rules(Allow, toolName) {
		if r.Specifier == "" || shellMatch(parseShellPattern(r.Specifier), c, false) {
			allowedBy = &r
			break
		}
	}
	for _, r := range grants {
		// A grant of the bare shell would approve every command: grants
		// name commands.
		if allowedBy == nil && r.Specifier != "" && shellMatch(parseShellPattern(r.Specifier), c, false) {
			allowedBy = &r
		}
	}
	if allowedBy == nil {
		if inertCommand(c, src) {
			return shellVerdict{verdict: tool.Allow, reason: fmt.Sprintf("%q changes nothing and shows no file's content", src), inert: true}
		}
		return shellVerdict{}
	}
	// An allow rule vouches for the command, not for what it writes or for
	// the environment it is given.
	if f := outputFile(c); f != "" {
		return shellVerdict{verdict: tool.Ask, reason: fmt.Sprintf("%q is allowed by %s but writes to %s", src, allowedBy, f)}
	}
	if len(c.Assigns) > 0 && allowedBy.Specifier != "" {
		return shellVerdict{verdict: tool.Ask, reason: fmt.Sprintf("%q is allowed by %s but sets environment variables (%s), which can change what it runs", src, allowedBy, c.Assigns[0].Name)}
	}
	return shellVerdict{verdict: tool.Allow, reason: "allowed by " + allowedBy.String()}
}

// outputFile returns the first file an output redirection of c writes,
// other than /dev/null, or "".
func outputFile(c shellcmd.Command) string {
	for _, r := range c.Redirects {
		if r.Output && r.File() && (r.Target.Dynamic || r.Target.Value != "/dev/null") {
			return r.Target.Value
		}
	}
	return ""
}

// shellMatch reports whether c matches pattern pat. For deny and ask rules
// (loose) a dynamic word matches anything, so that "rm $X" is caught by
// "rm:*"; for allow rules every matched word must be static, the command
// name must not be a wrapper unless the rule is exact, and commands that run
// other commands only match exact rules.
func shellMatch(pat shellPattern, c shellcmd.Command, loose bool) bool {
	args := c.Args
	if len(pat.words) == 0 {
		return pat.prefix
	}
	if len(args) < len(pat.words) || !pat.prefix && len(args) != len(pat.words) {
		if !loose {
			return false
		}
		if len(args) < len(pat.words) {
			return false
		}
	}
	for i, w := range pat.words {
		a := args[i]
		if a.Dynamic {
			if !loose {
				return false
			}
			continue
		}
		v := a.Value
		if i == 0 && loose {
			v = baseName(v) // /bin/rm is still rm for a deny rule
		}
		if v != w {
			return false
		}
	}
	if loose {
		return true
	}
	if pat.prefix {
		if wrappers[baseName(args[0].Value)] || runsCommands(args) {
			return false
		}
		// The remaining words may be dynamic: substitutions inside them are
		// judged as commands of their own.
		return true
	}
	for _, a := range args {
		if a.Dynamic {
			return false
		}
	}
	return true
}

// baseName reduces /usr/bin/rm to rm, so a path does not slip past a rule
// on the name.
func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}
