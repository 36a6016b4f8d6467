package retrieval_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/wieldhq/wield/retrieval"
)

func Example() {
	// A workspace with two documents.
	dir, err := os.MkdirTemp("", "retrieval-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "ops.md"), []byte("# Operations\n\nThe on-call engineer owns the pager.\n\n## Backups\n\nBackups rotate every Sunday.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "docs", "team.txt"), []byte("The team meets on Mondays.\n"), 0o644)

	root, err := os.OpenRoot(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()
	lib, err := retrieval.New(retrieval.Config{Dir: filepath.Join(dir, ".wield", "index")})
	if err != nil {
		log.Fatal(err)
	}
	defer lib.Close()

	ctx := context.Background()
	rep, err := lib.Index(ctx, root, retrieval.DefaultCollection, []string{"docs"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("indexed %d documents, %d chunks\n", rep.Added, rep.Chunks)

	hits, err := lib.Search(ctx, retrieval.Query{Text: "when do backups rotate", K: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s lines %d-%d (%s): %q\n", h.Path, h.StartLine, h.EndLine, h.Heading, h.Text)
	}
	// Output:
	// indexed 2 documents, 3 chunks
	// docs/ops.md lines 5-7 (Operations > Backups): "## Backups\n\nBackups rotate every Sunday.\n"
}
