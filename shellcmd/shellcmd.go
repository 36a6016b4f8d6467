package shellcmd

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A Word is one word of a command: an argument, an assigned value or a
// redirection target.
type Word struct {
	// Value is the word as the command receives it when Dynamic is false:
	// quotes removed, escapes decoded. When Dynamic is true, Value is the
	// word's source text.
	Value string `json:"value"`
	// Dynamic reports whether the word's value is only known when the line
	// runs: it holds an expansion, a substitution, a glob, a brace
	// expansion or a leading tilde.
	Dynamic bool `json:"dynamic,omitempty"`
}

// An Assign is a variable assignment that prefixes a command, as in
// FOO=bar make.
type Assign struct {
	// Name is the variable's name, with its index for an array element
	// (a[1]).
	Name string `json:"name"`
	// Value is the assigned value. An array value (a=(x y)) is dynamic.
	Value Word `json:"value"`
	// Append reports whether the assignment is += rather than =.
	Append bool `json:"append,omitempty"`
}

// A Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator as written: >, >>, >|, <, <>, >&, <&, &>, &>>, <<,
	// <<- or <<<.
	Op string `json:"op"`
	// Fd is the file descriptor written before the operator (the 2 of
	// 2>err.txt); empty means the operator's default.
	Fd string `json:"fd,omitempty"`
	// Target is what the operator applies to: a file name, a descriptor
	// number for >& and <&, or the text fed to standard input for a
	// here-document (<<, <<-) or here-string (<<<).
	Target Word `json:"target"`
	// Output reports whether the redirection writes: it is true for >, >>,
	// >|, <>, >&, &> and &>>, which may create or change the target file,
	// and false for the input operators.
	Output bool `json:"output,omitempty"`
}

// File reports whether the redirection opens Target as a file, as opposed
// to duplicating a descriptor (2>&1, <&-) or feeding a here-document or
// here-string.
func (r Redirect) File() bool {
	switch r.Op {
	case "<<", "<<-", "<<<":
		return false
	case ">&", "<&":
		return r.Target.Dynamic || !isFd(r.Target.Value)
	}
	return true
}

func isFd(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-") // 3>&1- moves the descriptor
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}

// Context says where a command sits in the line. It is a set of flags.
type Context uint8

// The flags of a [Context].
const (
	// InSubshell marks a command inside ( ... ).
	InSubshell Context = 1 << iota
	// InSubstitution marks a command inside $( ... ) or backquotes: its
	// output becomes part of another command's words.
	InSubstitution
	// InProcessSubstitution marks a command inside <( ... ) or >( ... ).
	InProcessSubstitution
	// InFunction marks a command in a function body: it runs only when
	// the function is called.
	InFunction
	// InBackground marks a command run asynchronously, with & or coproc.
	InBackground
	// InPipeline marks a command that is part of a pipeline (|, |&).
	InPipeline
)

var contextNames = []string{"subshell", "substitution", "process-substitution", "function", "background", "pipeline"}

// String lists the flags of c, separated by '|'.
func (c Context) String() string {
	var names []string
	for i, n := range contextNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, "|")
}

// A Command is one simple command of a command line.
type Command struct {
	// Args are the command's words; Args[0] is the command name. Args is
	// empty for a command made only of assignments or redirections
	// (FOO=1, > file).
	Args []Word `json:"args"`
	// Assigns are the variable assignments before the command name.
	Assigns []Assign `json:"assigns,omitempty"`
	// Redirects are the command's redirections in source order, followed
	// by those of the compound commands around it, innermost first.
	Redirects []Redirect `json:"redirects,omitempty"`
	// Context says where the command sits.
	Context Context `json:"context,omitempty"`
	// Start and End are the byte offsets of the command in the line.
	Start int `json:"start"`
	End   int `json:"end"`
}

// Name returns the command name when it is static, and "" when the
// command has no arguments or its name is dynamic.
func (c Command) Name() string {
	if len(c.Args) == 0 || c.Args[0].Dynamic {
		return ""
	}
	return c.Args[0].Value
}

// Split parses line as Bash and returns its simple commands in the order
// the shell would start them. An empty line or one made of comments has no
// commands. Split returns an error, whose message gives the line and
// column, when line does not parse.
func Split(line string) ([]Command, error) {
	f, err := parse(line)
	if err != nil {
		return nil, err
	}
	s := splitter{line: line}
	s.stmts(f.Stmts, 0, nil)
	return s.cmds, nil
}

// parse parses line with the Bash grammar.
func parse(line string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, fmt.Errorf("parse command line: %w", err)
	}
	return f, nil
}

type splitter struct {
	line string
	cmds []Command
}

// src returns the source text of n.
func (s *splitter) src(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(s.line) || start > end {
		return ""
	}
	return s.line[start:end]
}

func (s *splitter) stmts(list []*syntax.Stmt, ctx Context, outer []Redirect) {
	for _, st := range list {
		s.stmt(st, ctx, outer)
	}
}

func (s *splitter) stmt(st *syntax.Stmt, ctx Context, outer []Redirect) {
	if st == nil {
		return
	}
	if st.Background || st.Coprocess || st.Disown {
		ctx |= InBackground
	}
	// The statement's redirections apply to everything it runs; words in
	// them may hold substitutions, which run first.
	var redirs []Redirect
	for _, r := range st.Redirs {
		redirs = append(redirs, s.redirect(r, ctx))
	}
	redirs = append(redirs, outer...)
	if st.Cmd == nil {
		// A statement of redirections only: "> file".
		if len(st.Redirs) > 0 {
			s.add(Command{Redirects: redirs, Context: ctx}, st)
		}
		return
	}
	s.command(st.Cmd, ctx, redirs)
}

func (s *splitter) command(node syntax.Command, ctx Context, redirs []Redirect) {
	switch c := node.(type) {
	case *syntax.CallExpr:
		call := Command{Context: ctx}
		for _, a := range c.Assigns {
			call.Assigns = append(call.Assigns, s.assign(a, ctx))
		}
		for _, w := range c.Args {
			call.Args = append(call.Args, s.word(w, ctx))
		}
		call.Redirects = redirs
		s.add(call, c)
	case *syntax.Subshell:
		s.stmts(c.Stmts, ctx|InSubshell, redirs)
	case *syntax.Block:
		s.stmts(c.Stmts, ctx, redirs)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			ctx |= InPipeline
		}
		xr := redirs
		if c.Op == syntax.PipeAll {
			// a |& b sends a's standard error down the pipe too.
			xr = append([]Redirect{{Op: ">&", Fd: "2", Target: Word{Value: "1"}, Output: true}}, redirs...)
		}
		s.stmt(c.X, ctx, xr)
		s.stmt(c.Y, ctx, redirs)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			s.stmts(c.Cond, ctx, redirs)
			s.stmts(c.Then, ctx, redirs)
		}
	case *syntax.WhileClause:
		s.stmts(c.Cond, ctx, redirs)
		s.stmts(c.Do, ctx, redirs)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				s.word(w, ctx)
			}
		case *syntax.CStyleLoop:
			s.nested(l.Init, ctx)
			s.nested(l.Cond, ctx)
			s.nested(l.Post, ctx)
		}
		s.stmts(c.Do, ctx, redirs)
	case *syntax.CaseClause:
		s.word(c.Word, ctx)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				s.word(p, ctx)
			}
			s.stmts(item.Stmts, ctx, redirs)
		}
	case *syntax.FuncDecl:
		s.stmt(c.Body, ctx|InFunction, redirs)
	case *syntax.TimeClause:
		s.stmt(c.Stmt, ctx, redirs)
	case *syntax.CoprocClause:
		if c.Name != nil {
			s.word(c.Name, ctx)
		}
		s.stmt(c.Stmt, ctx|InBackground, redirs)
	case *syntax.DeclClause:
		decl := Command{Context: ctx, Args: []Word{{Value: c.Variant.Value}}, Redirects: redirs}
		for _, a := range c.Args {
			decl.Args = append(decl.Args, s.declArg(a, ctx))
		}
		s.add(decl, c)
	case *syntax.LetClause:
		decl := Command{Context: ctx, Args: []Word{{Value: "let"}}, Redirects: redirs}
		for _, x := range c.Exprs {
			s.nested(x, ctx)
			decl.Args = append(decl.Args, Word{Value: s.src(x), Dynamic: true})
		}
		s.add(decl, c)
	case *syntax.ArithmCmd:
		s.nested(c.X, ctx)
		decl := Command{Context: ctx, Redirects: redirs, Args: []Word{{Value: "(("}}}
		if c.X != nil {
			decl.Args = append(decl.Args, Word{Value: s.src(c.X), Dynamic: true})
		}
		decl.Args = append(decl.Args, Word{Value: "))"})
		s.add(decl, c)
	case *syntax.TestClause:
		decl := Command{Context: ctx, Redirects: redirs, Args: []Word{{Value: "[["}}}
		decl.Args = s.testExpr(c.X, ctx, decl.Args)
		decl.Args = append(decl.Args, Word{Value: "]]"})
		s.add(decl, c)
	default:
		// Other node types belong to shells other than Bash (zsh, bats);
		// find any commands nested in them rather than drop them.
		s.nested(c, ctx)
	}
}

// add appends cmd, spanning node n, to the result.
func (s *splitter) add(cmd Command, n syntax.Node) {
	cmd.Start, cmd.End = int(n.Pos().Offset()), int(n.End().Offset())
	if cmd.End > len(s.line) {
		cmd.End = len(s.line)
	}
	if cmd.Start > cmd.End {
		cmd.Start = cmd.End
	}
	s.cmds = append(s.cmds, cmd)
}

func (s *splitter) testExpr(x syntax.TestExpr, ctx Context, args []Word) []Word {
	switch x := x.(type) {
	case *syntax.Word:
		args = append(args, s.word(x, ctx))
	case *syntax.UnaryTest:
		args = append(args, Word{Value: x.Op.String()})
		args = s.testExpr(x.X, ctx, args)
	case *syntax.BinaryTest:
		args = s.testExpr(x.X, ctx, args)
		args = append(args, Word{Value: x.Op.String()})
		args = s.testExpr(x.Y, ctx, args)
	case *syntax.ParenTest:
		args = append(args, Word{Value: "("})
		args = s.testExpr(x.X, ctx, args)
		args = append(args, Word{Value: ")"})
	}
	return args
}

// nested adds the commands of the substitutions found anywhere in n.
func (s *splitter) nested(n syntax.Node, ctx Context) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			s.stmts(n.Stmts, ctx|InSubstitution, nil)
			return false
		case *syntax.ProcSubst:
			s.stmts(n.Stmts, ctx|InProcessSubstitution, nil)
			return false
		}
		return true
	})
}

func (s *splitter) assign(a *syntax.Assign, ctx Context) Assign {
	out := Assign{Append: a.Append}
	if a.Name != nil {
		out.Name = a.Name.Value
	}
	if a.Index != nil {
		s.nested(a.Index, ctx)
		out.Name += "[" + s.src(a.Index) + "]"
	}
	switch {
	case a.Array != nil:
		s.nested(a.Array, ctx)
		out.Value = Word{Value: s.src(a.Array), Dynamic: true}
	case a.Value != nil:
		out.Value = s.word(a.Value, ctx)
		if l, ok := a.Value.Parts[0].(*syntax.Lit); ok && !out.Value.Dynamic && strings.Contains(l.Value, ":~") {
			// PATH=a:~/bin expands the tilde after the colon.
			out.Value = Word{Value: s.src(a.Value), Dynamic: true}
		}
	}
	return out
}

// declArg returns an argument of declare, export and the like as the
// builtin receives it: "name=value", a bare name or an option.
func (s *splitter) declArg(a *syntax.Assign, ctx Context) Word {
	if a.Naked && a.Name == nil {
		return s.word(a.Value, ctx)
	}
	as := s.assign(a, ctx)
	if a.Naked {
		return Word{Value: as.Name, Dynamic: a.Index != nil}
	}
	op := "="
	if as.Append {
		op = "+="
	}
	if as.Value.Dynamic || a.Index != nil {
		return Word{Value: s.src(a), Dynamic: true}
	}
	return Word{Value: as.Name + op + as.Value.Value}
}

func (s *splitter) redirect(r *syntax.Redirect, ctx Context) Redirect {
	out := Redirect{Op: r.Op.String()}
	if r.N != nil {
		out.Fd = r.N.Value
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrInOut,
		syntax.DplOut, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		out.Output = true
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		out.Target = s.heredoc(r, ctx)
	default:
		if r.Word != nil {
			out.Target = s.word(r.Word, ctx)
		}
	}
	return out
}

// heredoc returns the body of a here-document. A quoted delimiter ('EOF')
// leaves the body as written; otherwise it is expanded like a
// double-quoted string.
func (s *splitter) heredoc(r *syntax.Redirect, ctx Context) Word {
	if r.Hdoc == nil {
		return Word{}
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			if _, ok := p.(*syntax.Lit); !ok {
				quoted = true
			} else if strings.Contains(p.(*syntax.Lit).Value, `\`) {
				quoted = true
			}
		}
	}
	var b, raw strings.Builder
	dynamic := false
	for _, p := range r.Hdoc.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			raw.WriteString(p.Value)
			if quoted {
				b.WriteString(p.Value)
			} else {
				b.WriteString(unescapeDouble(p.Value, false))
			}
		default:
			// The body stays as written around its expansions.
			dynamic = true
			s.nested(p, ctx)
			raw.WriteString(s.src(p))
		}
	}
	if dynamic {
		return Word{Value: raw.String(), Dynamic: true}
	}
	return Word{Value: b.String()}
}

// word returns w as a Word, after adding the commands of the
// substitutions it holds.
func (s *splitter) word(w *syntax.Word, ctx Context) Word {
	if w == nil || len(w.Parts) == 0 {
		return Word{}
	}
	var b strings.Builder
	dynamic := false
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") || hasGlob(p.Value) || hasAssignTilde(p.Value) {
				dynamic = true
			}
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			b.WriteString(sglQuoted(p))
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value, true))
				} else {
					dynamic = true
				}
			}
		default:
			dynamic = true
		}
	}
	if !dynamic && hasBraces(w) {
		dynamic = true
	}
	if dynamic {
		s.nested(w, ctx)
		return Word{Value: s.src(w), Dynamic: true}
	}
	return Word{Value: b.String()}
}

// hasBraces reports whether w holds a brace expansion ({a,b}, {1..3}).
func hasBraces(w *syntax.Word) bool {
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	return syntax.SplitBraces(cp)
}

// hasGlob reports whether an unquoted literal holds an unescaped pattern
// character: *, ?, or a [ that a ] closes.
func hasGlob(lit string) bool {
	open := false
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		}
	}
	return false
}

// hasAssignTilde reports whether an unquoted literal holds a tilde that
// Bash expands after = or : in an assignment-like word (a=~/x, PATH=a:~/b).
func hasAssignTilde(lit string) bool {
	eq := strings.IndexByte(lit, '=')
	if eq < 0 {
		return false
	}
	for i := eq; i < len(lit)-1; i++ {
		if (lit[i] == '=' || lit[i] == ':') && lit[i+1] == '~' {
			return true
		}
	}
	return false
}

// unescapeUnquoted removes the backslashes of an unquoted literal: \x is
// x, and a backslash-newline disappears.
func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that are special inside double
// quotes (before $, `, \, newline and, in a string rather than a
// here-document, ").
func unescapeDouble(s string, quote bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch c := s[i+1]; {
			case c == '\n':
				i++
				continue
			case c == '$' || c == '`' || c == '\\' || c == '"' && quote:
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sglQuoted returns the text single-quoted p stands for: as written, or
// for $'...' with its escapes decoded.
func sglQuoted(p *syntax.SglQuoted) string {
	if p.Dollar {
		return ansiC(p.Value)
	}
	return p.Value
}

// ansiC decodes the escapes of a $'...' string as Bash does.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			}
			i = j - 1
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
