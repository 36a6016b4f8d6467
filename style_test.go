// Package wield_test holds the repository's style test: the mechanical
// rules of STYLE.md that a program can check. It sits at the module root so
// that it walks the whole module from where it stands.
package wield_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var bannedPackage = regexp.MustCompile(`^(util|utils|common|helpers|misc)$|ext$`)

// TestStyle checks the rules of STYLE.md's "Checks" paragraph over every Go
// file of the repository and reports all offenders at once.
func TestStyle(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "bench" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Logf("skipping %s: %v", rel, err)
			return nil
		}
		test := strings.HasSuffix(path, "_test.go")
		pkg := f.Name.Name
		library := pkg != "main" && !test && !strings.Contains(rel, "internal"+string(filepath.Separator)) && !strings.HasPrefix(rel, "examples")
		if bannedPackage.MatchString(strings.TrimSuffix(pkg, "_test")) {
			problems = append(problems, rel+": package name "+pkg+" says nothing about what it provides")
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Name.Name == "init" && fn.Recv == nil && pkg != "main" && !test {
				problems = append(problems, rel+": func init in a library package; register things explicitly")
			}
		}
		if library {
			problems = append(problems, undocumented(fset, rel, f)...)
		}
		if !test && strings.HasPrefix(filepath.ToSlash(rel), "tools/") {
			problems = append(problems, missingDescriptions(path, rel, f)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// undocumented lists exported names without doc comments.
func undocumented(fset *token.FileSet, rel string, f *ast.File) []string {
	var out []string
	report := func(pos token.Pos, name string) {
		out = append(out, rel+":"+itoa(fset.Position(pos).Line)+": exported "+name+" has no doc comment")
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv != nil && !exportedReceiver(d.Recv) {
				continue
			}
			if d.Recv != nil && isStandardMethod(d.Name.Name) {
				continue // Error, String, Unwrap, MarshalJSON... document themselves
			}
			report(d.Pos(), d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
						report(s.Pos(), s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
							report(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func exportedReceiver(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func isStandardMethod(name string) bool {
	switch name {
	case "Error", "String", "Unwrap", "MarshalJSON", "UnmarshalJSON", "Handle", "Lookup", "Decide", "Approve",
		"RecordCall", "RecordResult", "Stream", "Read", "Write", "Close":
		return true
	}
	return false
}

var embedMD = regexp.MustCompile(`//go:embed\s+(\S+\.md)`)

// missingDescriptions reports tool files (files that call tool.New or
// tool.NewRaw) without an embedded .md description, or whose .md is absent.
func missingDescriptions(path, rel string, f *ast.File) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		return []string{rel + ": " + err.Error()}
	}
	if !regexp.MustCompile(`\btool\.(New|NewRaw)\(`).Match(src) {
		return nil
	}
	m := embedMD.FindSubmatch(src)
	if m == nil {
		return []string{rel + ": a tool file without its //go:embed NAME.md description"}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), string(m[1]))); err != nil {
		return []string{rel + ": embeds " + string(m[1]) + ", which does not exist"}
	}
	return nil
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
