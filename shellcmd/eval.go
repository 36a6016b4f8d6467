package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An Eval is a place in a command line where Bash may evaluate a value as
// code: a variable's value, a command's output or a literal is read
// again as an arithmetic expression, an array subscript, a prompt string,
// a variable name or a command. A value that holds x[$(cmd)] then runs
// cmd, although no command substitution is written on the line.
type Eval struct {
	// What names the construct: "arithmetic expansion", "indirect
	// expansion", "the declare builtin" and so on.
	What string `json:"what"`
	// Text is the construct's source text.
	Text string `json:"text"`
	// Why says how the construct turns data into code.
	Why string `json:"why"`
	// Start and End are the byte offsets of the construct in the line.
	Start int `json:"start"`
	End   int `json:"end"`
}

// String reads like "arithmetic expansion $((a)) evaluates a variable's
// value as code".
func (e Eval) String() string {
	return e.What + " " + e.Text + " " + e.Why
}

// A Line is a parsed command line: the simple commands it runs and the
// places where it may evaluate data as code.
type Line struct {
	// Commands are the simple commands, as [Split] returns them.
	Commands []Command `json:"commands"`
	// Evals lists, in source order, every construct of the line that is
	// not known to be inert: one that may make Bash evaluate a value as
	// code. A line with no Evals expands its words only in ways that
	// cannot run anything but the commands in Commands.
	Evals []Eval `json:"evals,omitempty"`
}

// Parse parses line as Bash, like [Split], and also reports the
// constructs of the line that may evaluate data as code (see
// [Line.Evals]). The analysis is a whitelist: every construct that Parse
// does not know to be inert is reported. Parse returns an error, whose
// message gives the line and column, when line does not parse.
func Parse(line string) (*Line, error) {
	f, err := parse(line)
	if err != nil {
		return nil, err
	}
	s := splitter{line: line}
	s.stmts(f.Stmts, 0, nil)
	e := evaluator{line: line}
	e.stmts(f.Stmts)
	return &Line{Commands: s.cmds, Evals: e.evals}, nil
}

// evaluator walks a parsed line and records its [Eval]s.
type evaluator struct {
	line  string
	evals []Eval
	// dq counts the double quotes around the word being walked.
	dq int
}

func (e *evaluator) add(n syntax.Node, what, why string) {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if end > len(e.line) {
		end = len(e.line)
	}
	if start > end {
		start = end
	}
	e.evals = append(e.evals, Eval{What: what, Text: e.line[start:end], Why: why, Start: start, End: end})
}

func (e *evaluator) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		e.stmt(st)
	}
}

func (e *evaluator) stmt(st *syntax.Stmt) {
	if st == nil {
		return
	}
	if st.Cmd != nil {
		e.command(st.Cmd)
	}
	for _, r := range st.Redirs {
		e.redirect(r)
	}
}

// whyArith explains arithmetic: a variable named in an expression has its
// value evaluated as an expression in turn, and an array subscript in
// that value (x[$(cmd)]) is expanded, running cmd.
const whyArith = "evaluates a variable's value as code"

func (e *evaluator) command(node syntax.Command) {
	switch c := node.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			e.assign(a)
		}
		for _, w := range c.Args {
			e.word(w)
		}
		e.call(c, c.Args)
	case *syntax.Subshell:
		e.stmts(c.Stmts)
	case *syntax.Block:
		e.stmts(c.Stmts)
	case *syntax.BinaryCmd:
		e.stmt(c.X)
		e.stmt(c.Y)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			e.stmts(c.Cond)
			e.stmts(c.Then)
		}
	case *syntax.WhileClause:
		e.stmts(c.Cond)
		e.stmts(c.Do)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				e.setsVar(l.Name, l.Name.Value)
			}
			for _, w := range l.Items {
				e.word(w)
			}
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
				if x != nil && !literalArith(x) {
					e.add(l, "arithmetic for loop", whyArith)
					break
				}
			}
		default:
			e.add(c, "loop", "is not a Bash form this check knows")
		}
		e.stmts(c.Do)
	case *syntax.CaseClause:
		e.word(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				e.word(p)
			}
			e.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		e.stmt(c.Body)
	case *syntax.ArithmCmd:
		if c.X == nil || !literalArith(c.X) {
			e.add(c, "arithmetic command", whyArith)
		}
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			if !literalArith(x) {
				e.add(c, "the let builtin", whyArith)
				break
			}
		}
	case *syntax.TestClause:
		e.test(c.X)
	case *syntax.DeclClause:
		e.decl(c)
	case *syntax.TimeClause:
		e.stmt(c.Stmt)
	case *syntax.CoprocClause:
		if c.Name != nil {
			e.word(c.Name)
		}
		e.stmt(c.Stmt)
	default:
		e.add(node, "construct", "is not a Bash form this check knows")
	}
}

// literalArith reports whether an arithmetic expression is made only of
// decimal literals and operators that assign nothing: it reads no
// variable, so no value can turn into code.
func literalArith(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case *syntax.Word:
		v, ok := litWord(x)
		return ok && isDecimal(v)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Add, syntax.Sub, syntax.Mul, syntax.Quo, syntax.Rem, syntax.Pow,
			syntax.Eql, syntax.Gtr, syntax.Lss, syntax.Neq, syntax.Leq, syntax.Geq,
			syntax.And, syntax.Or, syntax.Xor, syntax.Shr, syntax.Shl,
			syntax.AndArit, syntax.OrArit, syntax.Comma, syntax.TernQuest, syntax.TernColon:
			return literalArith(x.X) && literalArith(x.Y)
		}
		return false // assignments, and operators of other shells
	case *syntax.UnaryArithm:
		switch x.Op {
		case syntax.Not, syntax.BitNegation, syntax.Plus, syntax.Minus:
			return literalArith(x.X)
		}
		return false // ++ and -- assign
	case *syntax.ParenArithm:
		return literalArith(x.X)
	}
	return false
}

// litWord returns the value of a word made of one unquoted literal.
func litWord(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// inertSubscript reports whether an array subscript cannot evaluate
// anything: @, * or a decimal number.
func inertSubscript(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	v, ok := litWord(w)
	return ok && (v == "@" || v == "*" || isDecimal(v))
}

func (e *evaluator) word(w *syntax.Word) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		e.wordPart(p)
	}
}

func (e *evaluator) wordPart(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
		// Literals, globs and brace expansions are values, never
		// evaluated.
	case *syntax.ExtGlob:
		// mvdan.cc/sh keeps an extended glob's pattern as text, but Bash
		// expands it: with extglob on, @($(cmd)) runs cmd unseen by
		// Split.
		if p.Pattern != nil && strings.ContainsAny(p.Pattern.Value, "$`\\'\"") {
			e.add(p, "extended glob pattern", "is expanded by Bash, running the substitutions in it")
		}
	case *syntax.SglQuoted:
		if e.dq > 0 {
			// mvdan.cc/sh reads '...' in "${x:-'...'}" as a quoted
			// string, but there Bash keeps the quotes as characters and
			// expands what is between them: "${x:-'$(cmd)'}" runs cmd
			// unseen by Split.
			e.add(p, "single quotes in a double-quoted parameter expansion", "are literal characters in Bash, so the text between them is expanded, running the substitutions in it")
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			e.add(p, "locale translation", "replaces the string with a message catalogue's translation, which is then expanded")
		}
		e.dq++
		for _, q := range p.Parts {
			e.wordPart(q)
		}
		e.dq--
	case *syntax.CmdSubst:
		if p.TempFile || p.ReplyVar {
			e.add(p, "substitution", "is not a Bash form this check knows")
		}
		// The commands inside are judged as commands of their own; quotes
		// inside them start afresh.
		dq := e.dq
		e.dq = 0
		e.stmts(p.Stmts)
		e.dq = dq
	case *syntax.ProcSubst:
		dq := e.dq
		e.dq = 0
		e.stmts(p.Stmts)
		e.dq = dq
	case *syntax.ArithmExp:
		if p.Unsigned || p.X == nil || !literalArith(p.X) {
			e.add(p, "arithmetic expansion", whyArith)
		}
	case *syntax.ParamExp:
		e.param(p)
	default:
		e.add(p, "expansion", "is not a Bash form this check knows")
	}
}

func (e *evaluator) param(p *syntax.ParamExp) {
	switch {
	case p.Flags != nil || p.Width || p.IsSet || p.NestedParam != nil || len(p.Modifiers) > 0 ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset || p.Param == nil:
		e.add(p, "parameter expansion", "is not a Bash form this check knows")
		return
	case p.Excl && p.Names != 0 && p.Index == nil:
		// ${!prefix*} lists variable names: inert.
	case p.Excl:
		e.add(p, "indirect expansion", "uses a variable's value as a variable name, whose array subscript is evaluated as code")
		return
	}
	if p.Index != nil && !inertSubscript(p.Index) {
		e.add(p, "array subscript", "is evaluated as arithmetic, which evaluates a variable's value as code")
	}
	if p.Slice != nil {
		for _, x := range []syntax.ArithmExpr{p.Slice.Offset, p.Slice.Length} {
			if x != nil && !literalArith(x) {
				e.add(p, "substring expansion", "evaluates its offset and length as arithmetic, which evaluates a variable's value as code")
				break
			}
		}
	}
	if p.Repl != nil {
		e.word(p.Repl.Orig)
		e.word(p.Repl.With)
	}
	if p.Exp == nil {
		return
	}
	if p.Exp.Op == syntax.OtherParamOps {
		v, _ := litWord(p.Exp.Word)
		switch v {
		case "Q", "U", "u", "L", "a", "A", "K", "k":
			// Quoting, case and attribute reports: text only.
		case "P":
			e.add(p, "prompt expansion", "expands the value as a prompt string, running the command substitutions in it")
		default:
			e.add(p, "transformation", "is not known to leave the value as data")
		}
		return
	}
	// Defaults, alternatives, errors, assignments, pattern removal and
	// case changes: the word is expanded like any other, the value is
	// not evaluated.
	e.word(p.Exp.Word)
}

func (e *evaluator) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		e.word(x)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); !ok || !isName(litValue(w)) {
				e.add(x, "[[ ]] test", "evaluates the array subscript of the name it is given as code")
			}
		}
		e.test(x.X)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !intOperand(x.X) || !intOperand(x.Y) {
				e.add(x, "[[ ]] comparison", "evaluates its operands as arithmetic, which evaluates a variable's value as code")
			}
		}
		e.test(x.X)
		e.test(x.Y)
	case *syntax.ParenTest:
		e.test(x.X)
	default:
		e.add(x, "test", "is not a Bash form this check knows")
	}
}

// litValue returns the value of a static word made of one unquoted
// literal, or "".
func litValue(w *syntax.Word) string {
	v, _ := litWord(w)
	return v
}

// intOperand reports whether an operand of [[ -eq ]] is a decimal
// literal, optionally signed.
func intOperand(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	v := litValue(w)
	v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	return isDecimal(v)
}

// whySetsEnv explains why a line that assigns a variable with an
// environment-style name cannot be vouched for by a rule on its commands.
const whySetsEnv = "sets a variable that the shell or the programs it runs may read (PATH, HOME, IFS, BASH_ENV, GIT_DIR, …), which changes what a command on the line runs"

// privateName reports whether a variable name is one that neither Bash
// nor common programs read: lower case letters, digits and underscores,
// as shell scripts name their own variables, less the lower-case proxy
// variables (http_proxy and the like) that network programs read. Bash's
// own variables and the environment's conventional names have an upper
// case letter, so assigning one (PATH=., HOME=/tmp/x, for IFS in ...)
// changes what later commands do: which program a name runs, which
// configuration git reads and runs hooks from.
func privateName(name string) bool {
	if name == "" || strings.HasSuffix(name, "proxy") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// setsVar records an assignment to name when the name is not private.
func (e *evaluator) setsVar(n syntax.Node, name string) {
	if !privateName(name) {
		e.add(n, "assignment", whySetsEnv)
	}
}

func (e *evaluator) assign(a *syntax.Assign) {
	if a.Name != nil {
		e.setsVar(a, a.Name.Value)
	}
	if a.Index != nil && !inertSubscript(a.Index) {
		e.add(a, "assignment to an array element", "evaluates the subscript as arithmetic, which evaluates a variable's value as code")
	}
	e.word(a.Value)
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Index != nil && !inertSubscript(el.Index) {
				e.add(a, "array assignment with a subscript", "evaluates the subscript as arithmetic, which evaluates a variable's value as code")
			}
			e.word(el.Value)
		}
	}
}

// declOptions are the option letters of declare, typeset, local, export
// and readonly that change no way a value is read: -r, -x, -g, -p, -f,
// -F, -l, -u and -t. Not -i (values become arithmetic), -n (values
// become names), -a and -A (values become array assignments).
const declOptions = "rxgpfFlut"

func (e *evaluator) decl(c *syntax.DeclClause) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	what := "the " + variant + " builtin"
	switch variant {
	case "declare", "typeset", "local", "export", "readonly":
	default:
		e.add(c, what, "is not a Bash builtin this check knows")
		return
	}
	for _, a := range c.Args {
		switch {
		case a.Naked && a.Name == nil:
			// An option or a computed argument.
			e.word(a.Value)
			v, ok := staticValue(a.Value)
			switch {
			case !ok:
				e.add(c, what, "is given a computed argument, which it reads as a declaration: a name's subscript or an array value in it is evaluated as code")
			case v == "--":
			case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
				allowed := declOptions
				if variant == "export" {
					allowed += "n" // export -n unexports
				}
				if strings.Trim(v[1:], allowed) != "" {
					e.add(c, what, "with the option "+v+" makes values arithmetic, names or array assignments, which are evaluated as code")
				}
			default:
				e.add(c, what, "is given the argument "+v+", which it reads as a declaration: a name's subscript in it is evaluated as code")
			}
		default:
			e.assign(a)
			// declare, typeset and local (not export or readonly)
			// re-parse name="(...)" as an array assignment when name is
			// already an array.
			if a.Value != nil && variant != "export" && variant != "readonly" {
				if v, ok := staticValue(a.Value); !ok || strings.HasPrefix(v, "(") {
					e.add(c, what, "re-parses a computed value, or one that starts with (, as an array assignment when the name is an array, evaluating the subscripts and expansions in it")
				}
			}
		}
	}
}

// staticValue returns the value of a word that holds no expansion.
func staticValue(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasGlob(p.Value) {
				return "", false
			}
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(sglQuoted(p))
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value, true))
			}
		default:
			return "", false
		}
	}
	if hasBraces(w) {
		return "", false
	}
	return b.String(), true
}

func (e *evaluator) redirect(r *syntax.Redirect) {
	if r.N != nil && !isDecimal(r.N.Value) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.N.Value, "{"), "}")
		if !isName(name) {
			e.add(r, "redirection into a variable", "assigns to a name whose array subscript is evaluated as code")
		}
	}
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		// >&word and <&word expand word a second time when it is not a
		// descriptor number: >&'$(cmd)' runs cmd.
		if v, ok := staticValue(r.Word); !ok || !isFd(v) {
			e.add(r, "redirection "+r.Op.String(), "expands its target a second time when it is not a descriptor number, running the substitutions in its value")
		}
	}
	e.word(r.Word)
	// A here-document's body is expanded like a double-quoted string.
	e.dq++
	e.word(r.Hdoc)
	e.dq--
}
