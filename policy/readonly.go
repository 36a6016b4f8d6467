package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wieldhq/wield/shellcmd"
)

// The read-only classifier says which shell command lines plan mode lets
// through to the rules. It is a whitelist, and conservative: a line is
// read-only only if Bash cannot evaluate data on it as code (no
// [shellcmd.Line] Evals) and every simple command on it, those in
// substitutions and function bodies included, is read-only:
//
//   - no variable assignments (PATH=, GIT_DIR=, IFS= change what runs);
//   - no output redirection except to /dev/null;
//   - a static command name, written bare (not ./ls), from readOnly;
//   - for commands that have options that write or run programs, every
//     argument static, so that none can turn into such an option when
//     the line runs, and none of those options (in any abbreviation).
//
// It judges what a command writes, not what it reads: cat ~/.ssh/id_rsa
// is read-only. Programs' own caches outside the workspace may still be
// written (the Go build cache, git's refresh of its index in git status).

// argCheck returns why a command's arguments (after its name) make it
// write or run other programs, or "".
type argCheck func(args []shellcmd.Word) string

// anyArgs is the check of commands that no argument makes write.
func anyArgs([]shellcmd.Word) string { return "" }

// readOnly lists the read-only commands and the check of their arguments.
var readOnly = map[string]argCheck{
	"ls": anyArgs, "cat": anyArgs, "head": anyArgs, "tail": anyArgs, "wc": anyArgs, "nl": anyArgs,
	"grep": anyArgs, "egrep": anyArgs, "fgrep": anyArgs, "cut": anyArgs, "tr": anyArgs, "jq": anyArgs,
	"diff": anyArgs, "cmp": anyArgs, "stat": anyArgs, "du": anyArgs, "df": anyArgs, "which": anyArgs, "type": anyArgs,
	"basename": anyArgs, "dirname": anyArgs, "realpath": anyArgs, "readlink": anyArgs,
	"pwd": anyArgs, "echo": anyArgs, "true": anyArgs, "false": anyArgs, ":": anyArgs, "cd": anyArgs, "sleep": anyArgs,
	"test": anyArgs, "[": anyArgs, "[[": anyArgs, "printenv": anyArgs, "whoami": anyArgs, "id": anyArgs, "uname": anyArgs,
	"printf": printfArgs,
	"find":   findArgs,
	"sort":   options("oT", "--output", "--compress-program", "--temporary-directory"),
	"uniq":   uniqArgs,
	"tree":   options("oR", "--output"),
	"file":   options("C", "--compile"),
	"date":   options("s", "--set"),
	"rg":     options("", "--pre", "--pre-glob", "--hostname-bin"),
	"git":    gitArgs,
	"go":     goArgs,
}

// inert lists the read-only commands that show no file's content: what
// they print is their arguments, names, sizes, times, the user, the
// system. Such a command runs without asking in every mode when no rule
// decides it and its arguments are known or only globs ([inertCommand]):
// it cannot change anything or reveal a secret.
var inert = map[string]bool{
	"ls": true, "tree": true, "stat": true, "du": true, "df": true, "file": true, "pwd": true,
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true, "[[": true,
	"sleep": true, "date": true, "whoami": true, "id": true, "uname": true, "basename": true, "dirname": true,
	"which": true, "type": true, "realpath": true, "readlink": true,
}

// inertCommand reports whether the simple command c, whose source is
// src, is inert: read-only, in the inert list, and with no argument that
// expands a variable or a command's output (a glob, a brace or a tilde
// shows names only), so that what it prints holds no secret.
func inertCommand(c shellcmd.Command, src string) bool {
	if len(c.Args) == 0 || !inert[c.Name()] || readOnlyCommand(c, src) != "" {
		return false
	}
	for _, a := range c.Args {
		if a.Dynamic && strings.ContainsAny(a.Value, "$`") {
			return false
		}
	}
	return true
}

// readOnlyLine returns why line is not read-only, in words for the model,
// or "" when it is.
func readOnlyLine(line string) string {
	parsed, err := shellcmd.Parse(line)
	if err != nil {
		return fmt.Sprintf("the line does not parse (%v)", err)
	}
	if len(parsed.Evals) > 0 {
		return "Bash may run data on this line as code (" + parsed.Evals[0].String() + ")"
	}
	for _, c := range parsed.Commands {
		if why := readOnlyCommand(c, strings.TrimSpace(line[c.Start:c.End])); why != "" {
			return why
		}
	}
	return ""
}

// readOnlyCommand returns why the simple command c, whose source is src,
// is not read-only, or "".
func readOnlyCommand(c shellcmd.Command, src string) string {
	if f := outputFile(c); f != "" {
		return fmt.Sprintf("%q writes to %s", src, f)
	}
	if len(c.Assigns) > 0 {
		return fmt.Sprintf("%q sets %s, which can change what commands do", src, c.Assigns[0].Name)
	}
	if len(c.Args) == 0 {
		return "" // redirections that read, such as < file
	}
	name := c.Name()
	if name == "" {
		return fmt.Sprintf("the command name of %q is known only when it runs", src)
	}
	check, ok := readOnly[name]
	if !ok {
		return fmt.Sprintf("%s is not a read-only command (%s)", name, src)
	}
	if why := check(c.Args[1:]); why != "" {
		return fmt.Sprintf("in %q, %s", src, why)
	}
	return ""
}

// staticArgs returns why args are not all static, or "".
func staticArgs(args []shellcmd.Word) string {
	for _, a := range args {
		if a.Dynamic {
			return fmt.Sprintf("the argument %s is known only when the line runs and could be an option that writes", a.Value)
		}
	}
	return ""
}

// options returns the check of a command whose short options (any letter
// of shorts, in any cluster) or long options (any abbreviation of longs:
// GNU getopt accepts --out for --output) write or run programs. Every
// argument that starts with - is checked as an option, wherever it is,
// and every argument must be static.
func options(shorts string, longs ...string) argCheck {
	return func(args []shellcmd.Word) string {
		if why := staticArgs(args); why != "" {
			return why
		}
		for _, a := range args {
			if why := badOption(a.Value, shorts, longs); why != "" {
				return why
			}
		}
		return ""
	}
}

// badOption returns why the argument v is one of the options that write,
// or "".
func badOption(v, shorts string, longs []string) string {
	switch {
	case v == "-" || v == "--" || !strings.HasPrefix(v, "-"):
		return ""
	case strings.HasPrefix(v, "--"):
		name, _, _ := strings.Cut(v, "=")
		for _, l := range longs {
			if strings.HasPrefix(l, name) {
				return fmt.Sprintf("%s (%s) writes files or runs programs", v, l)
			}
		}
	default:
		if i := strings.IndexAny(v[1:], shorts); shorts != "" && i >= 0 {
			return fmt.Sprintf("%s holds -%c, which writes files or runs programs", v, v[1+i])
		}
	}
	return ""
}

// findActions are find's actions that write, delete or run programs.
var findActions = []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}

func findArgs(args []shellcmd.Word) string {
	for _, a := range args {
		if !a.Dynamic && slices.Contains(findActions, a.Value) {
			return fmt.Sprintf("find's %s writes, deletes or runs programs", a.Value)
		}
	}
	return staticArgs(args)
}

// uniqArgs allows one file operand at most: uniq's second operand is the
// file it writes.
func uniqArgs(args []shellcmd.Word) string {
	if why := staticArgs(args); why != "" {
		return why
	}
	n := 0
	for _, a := range args {
		if a.Value == "-" || !strings.HasPrefix(a.Value, "-") {
			n++
		}
	}
	if n > 1 {
		return "uniq writes its second operand (an option's value counts as one)"
	}
	return ""
}

// printfArgs refuses printf -v, which assigns a variable, in any form.
func printfArgs(args []shellcmd.Word) string {
	if len(args) > 0 && (args[0].Dynamic || strings.HasPrefix(args[0].Value, "-")) {
		return "printf's first argument must be a static format, not an option"
	}
	return ""
}

// gitReadOnly are the git subcommands that only read the repository.
var gitReadOnly = []string{"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "blame", "branch", "grep", "rev-list", "merge-base", "describe", "shortlog"}

// gitGlobals are the global options allowed before the subcommand; the
// others can run programs or point git at another repository (-c, -C,
// --exec-path, --git-dir, --work-tree, --config-env, -p).
var gitGlobals = []string{"--no-pager", "-P", "--no-optional-locks"}

// gitBranchOptions are git branch's listing options. Those in
// gitBranchValues take the next argument as their value; those in
// gitBranchLists make git branch list (its operands are then patterns,
// not branches to create).
var (
	gitBranchOptions = []string{"--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current",
		"-i", "--ignore-case", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format",
		"--color", "--no-color", "--column", "--no-column", "--abbrev", "--no-abbrev", "--omit-empty"}
	gitBranchValues = []string{"--points-at", "--sort", "--format"}
	gitBranchLists  = []string{"--list", "-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}
	// gitBranchShorts are the letters of listing options that may be
	// clustered (-av, -vv).
	gitBranchShorts = "alrvi"
)

func gitArgs(args []shellcmd.Word) string {
	if why := staticArgs(args); why != "" {
		return why
	}
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		if !slices.Contains(gitGlobals, args[i].Value) {
			return fmt.Sprintf("git's option %s can run programs or change the repository git works on", args[i].Value)
		}
		i++
	}
	if i == len(args) {
		return "git without a subcommand"
	}
	sub, rest := args[i].Value, args[i+1:]
	if !slices.Contains(gitReadOnly, sub) {
		return fmt.Sprintf("git %s is not a read-only git command", sub)
	}
	if sub == "branch" {
		return gitBranchArgs(rest)
	}
	shorts := ""
	if sub == "grep" {
		shorts = "O" // -O opens the matches in a pager program
	}
	for _, a := range rest {
		if why := badOption(a.Value, shorts, []string{"--output", "--ext-diff", "--open-files-in-pager"}); why != "" {
			return why
		}
	}
	return ""
}

// gitBranchArgs allows git branch only to list: listing options, and
// patterns after --list.
func gitBranchArgs(args []shellcmd.Word) string {
	list := false
	var operands []string
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		name, _, hasValue := strings.Cut(v, "=")
		switch {
		case !strings.HasPrefix(v, "-") || v == "-":
			operands = append(operands, v)
		case v == "--":
			for _, a := range args[i+1:] {
				operands = append(operands, a.Value)
			}
			i = len(args)
		case slices.Contains(gitBranchOptions, name):
			list = list || slices.Contains(gitBranchLists, name)
			if !hasValue && slices.Contains(gitBranchValues, name) {
				i++ // the option's value
			}
		case !strings.HasPrefix(v, "--") && strings.Trim(v[1:], gitBranchShorts) == "":
			list = list || strings.Contains(v, "l")
		default:
			return fmt.Sprintf("git branch %s is not a listing option (git branch can create, delete and rename branches)", v)
		}
	}
	if len(operands) > 0 && !list {
		return fmt.Sprintf("git branch %s creates a branch; list branches with git branch --list PATTERN", operands[0])
	}
	return ""
}

// goReadOnly maps the read-only go subcommands to the flags they may have.
var goReadOnly = map[string][]string{
	"version": {"m", "v", "json"},
	"doc":     {"all", "c", "cmd", "short", "src", "u"},
	"env":     {"json", "changed"},
	"list":    {"m", "json", "f", "e", "deps", "find", "test", "u", "versions", "retracted", "tags"},
}

// goValues are the go flags that take the next argument as their value.
var goValues = []string{"f", "tags"}

func goArgs(args []shellcmd.Word) string {
	if why := staticArgs(args); why != "" {
		return why
	}
	if len(args) == 0 {
		return "go without a subcommand"
	}
	flags, ok := goReadOnly[args[0].Value]
	if !ok {
		return fmt.Sprintf("go %s is not a read-only go command (go version, doc, env and list are)", args[0].Value)
	}
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if !strings.HasPrefix(v, "-") || v == "-" {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
		if !slices.Contains(flags, name) {
			return fmt.Sprintf("go %s %s is not a read-only flag (go list -mod, -modfile, -toolexec, -export and the like write or run programs)", args[0].Value, v)
		}
		if !hasValue && slices.Contains(goValues, name) {
			i++
		}
	}
	return ""
}
