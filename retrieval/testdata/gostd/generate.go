//go:build ignore

// Generate writes corpus.txtar, the documents of the retrieval quality
// test: one Markdown file per public package of the Go standard library
// (its doc comment, then the synopsis of each exported function and type),
// from the GOROOT of the go command that runs it. Run it here with
//
//	go run generate.go
//
// The text is the Go authors' (BSD-style licence, in LICENSE beside this
// file). The queries in queries.tsv were written by hand without looking
// at what the index returns for them.
package main

import (
	"bytes"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

func main() {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", "std").Output()
	if err != nil {
		log.Fatal(err)
	}
	a := &txtar.Archive{Comment: []byte(fmt.Sprintf("The package documentation of the Go standard library, %s: written by go run generate.go.\n", runtime.Version()))}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, "\t")
		if strings.Contains(path, "internal") || strings.HasPrefix(path, "vendor/") || strings.HasPrefix(path, "cmd/") {
			continue
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			log.Fatal(err)
		}
		for name, p := range pkgs {
			if name == "main" || name == "documentation" {
				continue
			}
			d := doc.New(p, path, 0)
			a.Files = append(a.Files, txtar.File{Name: path + ".md", Data: render(d)})
		}
	}
	if err := os.WriteFile("corpus.txtar", txtar.Format(a), 0o644); err != nil {
		log.Fatal(err)
	}
}

func render(d *doc.Package) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Package %s\n\n    import %q\n\n", d.Name, d.ImportPath)
	pr := d.Printer()
	pr.HeadingLevel = 2
	b.Write(pr.Markdown(d.Parser().Parse(d.Doc)))
	item := func(indent, name, text string) {
		if s := d.Synopsis(text); s != "" {
			fmt.Fprintf(&b, "%s- %s: %s\n", indent, name, s)
		}
	}
	if len(d.Funcs) > 0 {
		b.WriteString("\n## Functions\n\n")
		for _, f := range d.Funcs {
			item("", f.Name, f.Doc)
		}
	}
	if len(d.Types) > 0 {
		b.WriteString("\n## Types\n\n")
		for _, t := range d.Types {
			item("", t.Name, t.Doc)
			for _, f := range t.Funcs {
				item("  ", f.Name, f.Doc)
			}
		}
	}
	return b.Bytes()
}
