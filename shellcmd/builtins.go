package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call records the Evals of a simple command's name and arguments. Only
// Bash's builtins read their arguments as the shell's code; a program
// run from a file gets them as data. Every builtin of Bash 5.2 is
// classified here: inert whatever its arguments, inert under conditions,
// or one that evaluates data as code.
func (e *evaluator) call(n syntax.Node, args []*syntax.Word) {
	if len(args) == 0 {
		return
	}
	name, ok := staticValue(args[0])
	if !ok {
		e.add(args[0], "computed command name", "runs a value as a command")
		return
	}
	if strings.Contains(name, "/") {
		return // a program, not a builtin
	}
	what := "the " + name + " builtin"
	rest := args[1:]
	switch name {
	case ":", "true", "false", "echo", "pwd", "cd", "pushd", "popd", "dirs", "type", "times", "help",
		"jobs", "fg", "bg", "disown", "kill", "shift", "exit", "return", "break", "continue",
		"umask", "ulimit", "caller", "shopt", "unalias", "logout", "suspend":
		// Their arguments are names, numbers, paths or text, read
		// without evaluation.
	case "printf":
		if len(rest) == 0 {
			return
		}
		v, ok := staticValue(rest[0])
		switch {
		case !ok:
			e.add(n, what, "is given a computed first argument, which could be -v: printf -v assigns to a name whose array subscript is evaluated as code")
		case strings.HasPrefix(v, "-") && v != "--" && v != "-":
			e.add(n, what, "with "+v+" assigns to a name whose array subscript is evaluated as code")
		}
	case "read":
		e.names(n, what, rest, optSpec{flags: "ers", withArg: "adinNptu", nameArg: "a", names: true})
	case "mapfile", "readarray":
		e.names(n, what, rest, optSpec{flags: "t", withArg: "dnOsuCc", bad: "C", names: true})
	case "unset":
		e.names(n, what, rest, optSpec{flags: "fvn", names: true})
	case "wait":
		e.names(n, what, rest, optSpec{flags: "nf", bad: "p"})
	case "hash":
		e.names(n, what, rest, optSpec{flags: "rdlt", bad: "p"})
	case "set":
		e.set(n, what, rest)
	case "test", "[":
		if name == "[" && len(rest) > 0 {
			if v, ok := staticValue(rest[len(rest)-1]); ok && v == "]" {
				rest = rest[:len(rest)-1]
			}
		}
		e.testArgs(n, what, rest)
	case "command", "builtin", "exec":
		e.wrapper(n, name, what, rest)
	case ".", "source", "eval", "trap", "let", "declare", "typeset", "local", "export", "readonly",
		"alias", "bind", "compgen", "complete", "compopt", "enable", "fc", "history", "getopts":
		e.add(n, what, "is not known to leave its arguments as data: it may run them, evaluate them as arithmetic or read them as names whose subscripts are evaluated")
	}
}

// optSpec describes the options and operands of a builtin for [evaluator.names].
type optSpec struct {
	flags   string // option letters without an argument
	withArg string // option letters that take an argument
	bad     string // option letters that make data code
	nameArg string // option letters whose argument is a variable name
	names   bool   // whether the operands are variable names
}

// names checks a builtin whose operands are variable names (read, unset)
// or that has an option that assigns to one (wait -p). Options are read
// as Bash's getopt does, up to the first operand or --; every word up to
// there must be static, since a computed one could become an option,
// and so must every operand that is a name, which must be a plain name:
// the subscript of a[i] is evaluated as code.
func (e *evaluator) names(n syntax.Node, what string, args []*syntax.Word, spec optSpec) {
	operands := false
	for i := 0; i < len(args); i++ {
		v, ok := staticValue(args[i])
		switch {
		case !ok && operands && !spec.names:
			continue // a job, a process or a program name
		case !ok:
			e.add(n, what, "is given a computed argument, which could be an option or a name whose array subscript is evaluated as code")
			return
		case operands || v == "-" || !strings.HasPrefix(v, "-"):
			operands = true
			if spec.names && !isName(v) {
				e.add(n, what, "is given "+v+", which is not a plain variable name: its array subscript is evaluated as code")
				return
			}
			if spec.names {
				e.setsVar(n, v)
			}
			continue
		case v == "--":
			operands = true
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			switch {
			case strings.IndexByte(spec.bad, c) >= 0:
				e.add(n, what, "with -"+string(c)+" assigns to a name whose array subscript is evaluated as code, or runs a command given as data")
				return
			case strings.IndexByte(spec.flags, c) >= 0:
			case strings.IndexByte(spec.withArg, c) >= 0:
				a := v[j+1:]
				if a == "" {
					if i+1 == len(args) {
						return // a missing argument: the builtin fails
					}
					i++
					if a, ok = staticValue(args[i]); !ok {
						e.add(n, what, "is given a computed option argument")
						return
					}
				}
				if strings.IndexByte(spec.nameArg, c) >= 0 && !isName(a) {
					e.add(n, what, "is given "+a+", which is not a plain variable name: its array subscript is evaluated as code")
					return
				}
				if strings.IndexByte(spec.nameArg, c) >= 0 {
					e.setsVar(n, a)
				}
				j = len(v)
			default:
				e.add(n, what, "has the option "+v+", which this check does not know")
				return
			}
		}
	}
}

// setOptions are the set options that change nothing about how values
// are read; not -x (xtrace expands PS4 as a prompt, running the
// substitutions in its value) nor -k (arguments become assignments).
const setOptions = "abefhmnuvBCEHPT"

func (e *evaluator) set(n syntax.Node, what string, args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		v, ok := staticValue(args[i])
		if !ok {
			e.add(n, what, "is given a computed argument, which could be an option such as -x")
			return
		}
		if v == "--" || v == "-" || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			return // the positional parameters follow
		}
		for j := 1; j < len(v); j++ {
			switch c := v[j]; {
			case c == 'o':
				if i+1 >= len(args) {
					return // set -o lists the options
				}
				i++
				o, ok := staticValue(args[i])
				if !ok || !inertSetOption(o) {
					e.add(n, what, "sets an option that may evaluate values as code (xtrace expands PS4 as a prompt)")
					return
				}
			case strings.IndexByte(setOptions, c) < 0:
				e.add(n, what, "with "+v+" sets an option that may evaluate values as code (-x expands PS4 as a prompt)")
				return
			}
		}
	}
}

func inertSetOption(o string) bool {
	switch o {
	case "allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
		"histexpand", "history", "ignoreeof", "interactive-comments", "monitor", "noclobber",
		"noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail",
		"posix", "privileged", "verbose", "vi":
		return true
	}
	return false
}

// testArgs checks the arguments of test and [. Their only operators that
// evaluate data are -v and -R, which take a name and evaluate its
// subscript; -eq and the like read plain numbers, unlike in [[ ]]. A
// computed argument is inert only where the POSIX rules for one to three
// arguments make it an operand.
func (e *evaluator) testArgs(n syntax.Node, what string, args []*syntax.Word) {
	type arg struct {
		v      string
		static bool
	}
	var as []arg
	dynamic := false
	for _, w := range args {
		v, ok := staticValue(w)
		if !ok && !singleField(w) {
			e.add(n, what, "is given an unquoted expansion, which may split into operators such as -v, which evaluates the array subscript of the name it tests as code")
			return
		}
		if ok && (v == "-v" || v == "-R") {
			e.add(n, what, "with "+v+" evaluates the array subscript of the name it tests as code")
			return
		}
		dynamic = dynamic || !ok
		as = append(as, arg{v, ok})
	}
	if !dynamic {
		return
	}
	switch len(as) {
	case 1:
		return
	case 2:
		if as[0].static {
			return
		}
	case 3:
		if as[1].static && testBinary(as[1].v) ||
			as[0].static && as[0].v == "!" && as[1].static ||
			as[0].static && as[0].v == "(" && as[2].static && as[2].v == ")" {
			return
		}
	}
	e.add(n, what, "is given a computed argument where it could be read as an operator such as -v, which evaluates the array subscript of the name it tests as code")
}

func testBinary(op string) bool {
	switch op {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "-a", "-o":
		return true
	}
	return false
}

// singleField reports whether a word always expands to exactly one field:
// its expansions are all inside double quotes, and none of them is "$@"
// or "${a[@]}".
func singleField(w *syntax.Word) bool {
	if hasBraces(w) {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasGlob(p.Value) {
				return false
			}
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if pe, ok := q.(*syntax.ParamExp); ok {
					if pe.Param != nil && pe.Param.Value == "@" || pe.Index != nil && litArith(pe.Index) == "@" || pe.Names != 0 {
						return false
					}
				}
			}
		default:
			return false
		}
	}
	return true
}

func litArith(x syntax.ArithmExpr) string {
	if w, ok := x.(*syntax.Word); ok {
		return litValue(w)
	}
	return ""
}

// wrapper checks command, builtin and exec, which run their operands as a
// command: that command is checked in turn.
func (e *evaluator) wrapper(n syntax.Node, name, what string, args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		v, ok := staticValue(args[i])
		if !ok {
			e.add(n, what, "is given a computed argument, which it runs as a command")
			return
		}
		if v == "--" {
			e.call(n, args[i+1:])
			return
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			e.call(n, args[i:])
			return
		}
		switch {
		case name == "command" && strings.ContainsAny(v, "vV"):
			return // command -v looks a name up
		case name == "exec" && strings.Contains(v, "a"):
			i++ // exec -a NAME: the name the program sees
		}
	}
}
