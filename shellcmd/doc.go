// Package shellcmd splits a shell command line into the simple commands it
// would run, so that a policy can judge each of them.
//
// A command line such as
//
//	cd web && npm test 2>&1 | tee log.txt; rm -rf "$(mktemp -d)"
//
// holds five simple commands: cd, npm, tee, rm and, inside the command
// substitution, mktemp. [Split] parses the line with the Bash grammar of
// mvdan.cc/sh and returns each of them as a [Command]: its arguments, its
// prefix assignments, its redirections and the context it runs in.
//
//	cmds, err := shellcmd.Split(`git log | head -n 5 > out.txt`)
//	// cmds[0].Args: git log       (InPipeline)
//	// cmds[1].Args: head -n 5     (InPipeline), Redirects: > out.txt (Output)
//
// # Static and dynamic words
//
// A [Word] is static when the shell passes it to the command exactly as
// its Value says: quotes are removed and escapes decoded, so 'a b', "a b"
// and a\ b are all the static word "a b". A word is dynamic when its value
// is only known when the line runs: it expands a parameter ($HOME), a
// command or process substitution, an arithmetic expression, a glob
// (*.go), a brace expansion ({a,b}) or a leading tilde. A dynamic word's
// Value is its source text. A policy should treat a dynamic command name
// or argument as unknown rather than guess.
//
// # What is reported
//
// Every simple command is reported, wherever it sits: in lists (;, &,
// newlines), and-or lists (&&, ||), pipelines (|, |&), subshells, braces,
// if, while, until, for, select and case clauses, function bodies,
// command substitutions ($(...) and backquotes), process substitutions
// (<(...) and >(...)), parameter expansions (${x:-$(cmd)}), arithmetic and
// here-documents. Commands appear in source order, a substitution's
// commands before the command whose word holds it. Redirections of a
// compound command, such as the > out of { a; b; } > out, are added to
// every command inside it. Bash keywords that are not simple commands
// are reported as commands too: [[ ... ]] with the name "[[", (( ... ))
// with the name "((", and declare, export, local, readonly, typeset and
// let with their own names.
//
// # Values evaluated as code
//
// Bash evaluates some values as code: with a='x[$(cmd)]', echo $((a))
// runs cmd, although no substitution of cmd is written where it runs.
// [Parse] returns the commands together with [Line.Evals]: every
// construct on the line that is not known to leave values as data —
// arithmetic that reads a variable, non-literal array subscripts,
// indirection (${!x}), the @P transformation, [[ -eq ]] and -v tests,
// declare -i and -n, printf -v, read, unset and redirections into
// subscripted names, >&word with a word that is not a descriptor, eval
// and the other builtins that run or evaluate their arguments. The check
// is a whitelist: a construct it does not know is reported.
//
// # What is not guaranteed
//
// Split is a static reading of the line; it does not run anything. It
// cannot see what eval, bash -c, sh -c, xargs, find -exec, sudo, env or a
// script will run with their arguments, nor what a function or alias
// defined elsewhere does: those are ordinary commands with arguments, and
// a policy must judge them as such. The grammar is mvdan.cc/sh's reading
// of Bash, which refuses a few lines Bash accepts and accepts a few it
// refuses; Split returns an error for a line it cannot parse, and a policy
// should then ask rather than allow.
package shellcmd
