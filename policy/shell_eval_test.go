package policy

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// evalRules allow echo and every builtin that can evaluate data as code,
// so that a line is refused only because of the construct in it, never
// for want of a rule.
var evalRules = []string{"echo:*", "printf:*", "read:*", "test:*", "[:*", "[[:*", "((:*", "let:*",
	"declare:*", "typeset:*", "local:*", "export:*", "readonly:*", "unset:*", "mapfile:*", "readarray:*",
	"set:*", "wait:*", "hash:*", ":", "true", "cd:*", "shift:*", "shopt:*",
	// Wrappers match exact rules only.
	"eval echo", "builtin let a", "command declare -i a"}

func evalPolicy(t testing.TB, allow []string) *Policy {
	t.Helper()
	p := &Policy{Headless: true, Logger: slog.New(slog.DiscardHandler)}
	for _, s := range allow {
		if err := p.Add(Allow, Rule{Tool: "run_shell_command", Specifier: s}); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// evalCases are lines in which Bash evaluates a value as code. Each was
// allowed before the rule that no allow rule vouches for such a line
// (every command in it matches a rule of evalRules), and each must now
// be refused, with a reason naming the construct.
var evalCases = []struct {
	name, line, reason string
}{
	{"issue: arithmetic expansion of a variable", `a='x[$(touch pwned1)]'; echo $((a))`, "arithmetic expansion $((a)) evaluates a variable's value as code"},
	{"issue: prompt expansion", `x='$(touch pwned2)'; echo ${x@P}`, "prompt expansion ${x@P}"},
	{"arithmetic expansion of $x", `echo $(($x))`, "arithmetic expansion"},
	{"old arithmetic expansion", `echo $[a]`, "arithmetic expansion $[a]"},
	{"arithmetic in a default word", `echo ${x:-$((a))}`, "arithmetic expansion $((a))"},
	{"arithmetic in a here-string", `echo <<< $((a))`, "arithmetic expansion"},
	{"arithmetic in a here-document", "echo <<EOF\n$((a))\nEOF", "arithmetic expansion"},
	{"arithmetic in a substitution", `echo $(echo $((a)))`, "arithmetic expansion"},
	{"indirect expansion", `echo ${!x}`, "indirect expansion ${!x}"},
	{"indirect keys", `echo ${!a[@]}`, "indirect expansion"},
	{"escape transformation", `echo ${x@E}`, "transformation ${x@E}"},
	{"array subscript in an expansion", `echo ${a[$i]}`, "array subscript ${a[$i]}"},
	{"array subscript named", `echo "${a[i]}"`, "array subscript"},
	{"substring offset", `echo ${x:a}`, "substring expansion"},
	{"substring length", `echo ${x:1:$n}`, "substring expansion"},
	{"arithmetic command", `(( a )) && echo`, "arithmetic command"},
	{"arithmetic for loop", `for ((i=a; i<1; i++)); do echo; done`, "arithmetic for loop"},
	{"let", `let a; echo`, "the let builtin"},
	{"let quoted", `'let' a`, "the let builtin"},
	{"[[ -eq ]]", `[[ $a -eq 1 ]] && echo`, "[[ ]] comparison"},
	{"[[ -lt ]] on a name", `[[ a -lt 1 ]]`, "[[ ]] comparison"},
	{"[[ -v ]]", `[[ -v $x ]]`, "[[ ]] test"},
	{"[[ -v a[i] ]]", `[[ -v a[i] ]]`, "[[ ]] test"},
	{"declare -i", `declare -i n; n=$x; echo`, "the declare builtin"},
	{"typeset -i", `typeset -i n=x`, "the typeset builtin"},
	{"local -i", `f() { local -i n=$1; }; echo`, "the local builtin"},
	{"declare -n", `declare -n r=$x; echo $r`, "the declare builtin"},
	{"declare -a from a value", `declare -a a="($x)"`, "the declare builtin"},
	{"declare of an array from a value", `a=(1); declare a="($x)"`, "the declare builtin"},
	{"local of an array from a value", `f() { local a=(1); local a="($x)"; }; echo`, "the local builtin"},
	{"declare of a computed argument", `declare "$x=1"`, "the declare builtin"},
	{"export of a subscripted name", `export 'a[$i]=1'`, "the export builtin"},
	{"declare of a subscripted name", `declare a[$i]=1`, "assignment to an array element"},
	{"readonly of a subscripted name", `readonly a[i]`, "assignment to an array element"},
	{"unset of a subscripted name", `unset 'a[$i]'`, "the unset builtin"},
	{"unset of a computed name", `unset "$x"`, "the unset builtin"},
	{"printf -v", `printf -v 'a[$i]' %s x`, "the printf builtin"},
	{"printf -v plain", `printf -v v %s x`, "the printf builtin"},
	{"printf computed first argument", `printf "$f" x`, "the printf builtin"},
	{"read into a subscript", `read 'a[$i]' <<< x`, "the read builtin"},
	{"read into a computed name", `read "$x" <<< x`, "the read builtin"},
	{"read -a into a subscript", `read -a 'a[i]' <<< x`, "the read builtin"},
	{"mapfile callback", `mapfile -C "$x" -c 1 v <<< x`, "the mapfile builtin"},
	{"test -v", `test -v x && echo`, "the test builtin"},
	{"[ -v", `[ -v "$x" ] && echo`, "the [ builtin"},
	{"[ computed operator", `[ "$op" "$x" ]`, "the [ builtin"},
	{"[ ! computed operator", `[ ! "$op" "$x" ]`, "the [ builtin"},
	{"[ unquoted", `[ $x ]`, "the [ builtin"},
	{"set -x with PS4", `PS4='$(touch p)'; set -x; echo`, "the set builtin"},
	{"set computed option", `set "$x"`, "the set builtin"},
	{"wait -p", `wait -p 'a[$i]'`, "the wait builtin"},
	{"hash -p", `hash -p /bin/sh echo`, "the hash builtin"},
	{"array element assignment", `a[$x]=1; echo`, "assignment to an array element"},
	{"array element named", `a[i]=1`, "assignment to an array element"},
	{"array literal with subscript", `a=([$x]=1)`, "array assignment with a subscript"},
	{"redirection <& a computed target", `echo hi <&"$v"`, "redirection <&"},
	{"redirection <& a quoted literal", `echo hi <&'$(touch p)'`, "redirection <&"},
	{"redirection into a subscripted variable", `echo hi {a[x]}>/dev/null`, "redirection into a variable"},
	{"locale translation", `echo $"hi"`, "locale translation"},
	{"eval", `eval echo`, "the eval builtin"},
	{"builtin let", `builtin let a`, "the let builtin"},
	{"command declare", `command declare -i a`, "the declare builtin"},
	{"in a function body", `f() { echo $((a)); }; echo`, "arithmetic expansion"},
	{"in a case word", `case ${!x} in *) echo;; esac`, "indirect expansion"},
	{"in a for list", `for v in ${a[i]}; do echo; done`, "array subscript"},
	{"in a pipeline", `echo | echo ${x@P}`, "prompt expansion"},
	{"single quotes in a double-quoted default", `echo "${v:-'$(touch p)'}"`, "single quotes in a double-quoted parameter expansion"},
	{"single quotes in a double-quoted default, read", `read -a a <<< "${i:-'x[$(touch p)]'}"`, "single quotes in a double-quoted parameter expansion"},
	{"single quotes in a default in a here-document", "echo <<EOF\n${x:-'$(touch p)'}\nEOF", "single quotes in a double-quoted parameter expansion"},
	{"substitution in an extended glob", "shopt -s extglob\necho @($(touch p))", "extended glob pattern"},
	{"substitution in an extended glob case pattern", "shopt -s extglob\ncase a in +(a|`touch p`)) echo;; esac", "extended glob pattern"},
	{"in a process substitution", `echo <(echo $((a)))`, "arithmetic expansion"},
	// Assigning a variable the shell or a program reads changes what a
	// command runs: PATH=. makes ls the workspace's ./ls, HOME=/tmp/x
	// makes git read (and run hooks from) another configuration.
	{"PATH assignment", `PATH=.; echo`, "assignment PATH=. sets a variable"},
	{"HOME assignment", `HOME=/tmp/x; echo`, "assignment HOME=/tmp/x"},
	{"IFS in a case arm", `case x in x) IFS=/ ;; esac; echo $a`, "assignment IFS=/"},
	{"for loop variable", `for PATH in .; do echo; done`, "assignment PATH"},
	{"select loop variable", `select PATH in .; do echo; done`, "assignment PATH"},
	{"read into PATH", `read PATH <<< .; echo`, "assignment"},
	{"read -a into an upper-case name", `read -a BASH_ARGV <<< .; echo`, "assignment"},
	{"export", `export GIT_DIR=/tmp/x; echo`, "assignment GIT_DIR=/tmp/x"},
	{"export a name alone", `export PATH; echo`, "assignment PATH"},
	{"append", `PATH+=:.; echo`, "assignment PATH+=:."},
	{"proxy", `http_proxy=x; echo`, "assignment http_proxy=x"},
	{"environment prefix", `GIT_DIR=/tmp/x echo`, "sets environment variables (GIT_DIR)"},
}

// inertCases stay allowed: their expansions read values as data only.
var inertCases = []string{
	`echo $x ${x} "$x" '$x' $'a\tb'`,
	`echo "${x:-default}" ${x:+alt} ${x-d} ${x?err} ${x:=v}`,
	`echo ${x#a} ${x##a} ${x%a} ${x%%a} ${x/a/b} ${x//a/$y} ${x^^} ${x,} ${#x}`,
	`echo ${x@Q} ${x@U} ${x@L} ${x@A}`,
	`echo ${a[@]} "${a[*]}" ${a[0]} ${#a[@]} ${!pre*}`,
	`echo $((1+2)) $[3*4] ${x:1:2}`,
	`echo $(echo $x) ` + "`echo hi`" + ` <(echo x)`,
	`echo "$(echo 'x')" "${x:-$(echo 'y')}" ${x:-'z'}`,
	`echo {a,b} {1..3} ~ *.go`,
	`a='x[$(touch p)]'; echo "$a"`,
	`x='$(touch p)'; echo $x`,
	`a=(x y); a[0]=z; echo "${a[@]}"`,
	`for v in a b; do echo "$v"; done`,
	`if [[ -n $x && $x == y* ]]; then echo; fi`,
	`[[ 1 -lt 2 ]] && echo`,
	`[ -f "$f" ] && echo`,
	`[ "$a" = "$b" ] || echo`,
	`[ "$a" ]`,
	`test "$a" -eq 1`,
	`read -r line <<< x; echo "$line"`,
	`printf '%s\n' "$x" $x`,
	`set -euo pipefail; echo`,
	`set -- "$x"; echo "$@"`,
	`unset x`,
	`export foo=bar`,
	`export foo="$x" bar=$y; readonly r="($x)"`,
	`x=1; echo "$x"; for f in *.go; do echo "$f"; done`,
	`declare -r x=1`,
	`mapfile -t lines <<< x`,
	`echo hi 2>&1 >/dev/null`,
	`echo hi {fd}>/dev/null`,
	"echo <<'EOF'\n$((a))\nEOF",
	`case $x in a|b) echo;; esac`,
	"shopt -s extglob\necho @(a|b*) !(x)",
	`(echo; { echo; }) | echo && echo || echo`,
}

// TestShellEvaluatesDataAsCode: a line in which Bash may evaluate a value
// as code is never allowed by a rule; the reason names the construct.
func TestShellEvaluatesDataAsCode(t *testing.T) {
	p := evalPolicy(t, evalRules)
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	for _, tt := range evalCases {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Decide(t.Context(), nil, sh, shellArgs(tt.line))
			if d.Verdict != tool.Deny || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Decide(%q) = %s (%s), want deny (headless ask) naming %q", tt.line, d.Verdict, d.Reason, tt.reason)
			}
		})
	}
	// Interactive, the same lines ask rather than deny.
	p.Headless = false
	for _, tt := range evalCases {
		if d := p.Decide(t.Context(), nil, sh, shellArgs(tt.line)); d.Verdict != tool.Ask {
			t.Errorf("interactive Decide(%q) = %s (%s), want ask", tt.line, d.Verdict, d.Reason)
		}
	}
}

// TestShellInertExpansionsStayAllowed: the check does not refuse the
// expansions that only read values as data.
func TestShellInertExpansionsStayAllowed(t *testing.T) {
	p := evalPolicy(t, evalRules)
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	for _, line := range inertCases {
		if d := p.Decide(t.Context(), nil, sh, shellArgs(line)); d.Verdict != tool.Allow {
			t.Errorf("Decide(%q) = %s (%s), want allow", line, d.Verdict, d.Reason)
		}
	}
}

// TestShellDataAsCodeDenyStillWins: a deny rule still decides a line
// that also evaluates data as code.
func TestShellDataAsCodeDenyStillWins(t *testing.T) {
	p := evalPolicy(t, evalRules)
	p.Add(Deny, Rule{Tool: "run_shell_command", Specifier: "rm:*"})
	sh := fakeTool(t, "run_shell_command", tool.Annotations{})
	d := p.Decide(t.Context(), nil, sh, shellArgs(`echo $((a)); rm -rf x`))
	if d.Verdict != tool.Deny || !strings.Contains(d.Reason, "denied by the rule") {
		t.Errorf("Decide = %s (%s), want the deny rule's reason", d.Verdict, d.Reason)
	}
}
