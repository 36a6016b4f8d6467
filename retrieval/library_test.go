package retrieval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeTree writes files (slash path → content) below dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openWorkspace returns a workspace root with files and a library whose
// index lives in its .wield directory.
func openWorkspace(t testing.TB, files map[string]string, cfg Config) (*os.Root, *Library) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	cfg.Dir = filepath.Join(dir, ".wield", "index")
	lib, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return root, lib
}

func hitIDs(hits []Hit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID())
	}
	return ids
}

func TestLibrary_IndexAndSearch(t *testing.T) {
	root, lib := openWorkspace(t, map[string]string{
		".gitignore":       "drafts/\n",
		"docs/install.md":  "# Install\n\nRun the installer.\n\n## Linux\n\nUse the tarball and unpack it into /usr/local.\n",
		"docs/usage.txt":   "Usage\n\nCall wield with a prompt.\n",
		"docs/page.html":   "<html><head><title>Colours</title></head><body><h1>Colours</h1><p>The palette has teal and amber.</p></body></html>",
		"docs/image.png":   "\x89PNG",
		"drafts/secret.md": "# Tarball secrets\n",
	}, Config{})
	ctx := t.Context()
	rep, err := lib.Index(ctx, root, "docs", []string{"."}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 3 || rep.Ignored != 2 || rep.Documents != 3 || len(rep.Skipped) != 0 {
		t.Errorf("first Index = %+v, want 3 added, 2 ignored (.gitignore, image.png), 3 documents", rep)
	}
	hits, err := lib.Search(ctx, Query{Text: "unpack the tarball", Collection: "docs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "docs/install.md" || hits[0].Heading != "Install > Linux" || hits[0].StartLine != 5 || hits[0].EndLine != 7 {
		t.Fatalf("Search(unpack the tarball) = %+v, want docs/install.md lines 5-7 under Install > Linux first", hits)
	}
	hits, err = lib.Search(ctx, Query{Text: "teal amber palette"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Path != "docs/page.html" || hits[0].Collection != "docs" {
		t.Fatalf("Search(teal amber palette) = %+v, want docs/page.html", hits)
	}

	// A second run changes nothing; an edit, a removal and a touch are seen.
	rep, err = lib.Index(ctx, root, "docs", []string{"."}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 3 || rep.Added+rep.Updated+rep.Removed != 0 {
		t.Errorf("second Index = %+v, want 3 unchanged", rep)
	}
	dir := root.Name()
	writeTree(t, dir, map[string]string{"docs/usage.txt": "Usage\n\nCall wield with a question.\n"})
	os.Remove(filepath.Join(dir, "docs/page.html"))
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "docs/install.md"), later, later)
	rep, err = lib.Index(ctx, root, "docs", []string{"docs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Updated != 1 || rep.Removed != 1 || rep.Unchanged != 1 || rep.Documents != 2 || rep.Chunks != 1 {
		t.Errorf("third Index = %+v, want 1 updated (1 chunk), 1 removed, 1 unchanged, 2 documents", rep)
	}
	hits, err = lib.Search(ctx, Query{Text: "teal amber palette"})
	if err != nil || len(hits) != 0 {
		t.Errorf("Search after removal = %v, %v; want no hits", hitIDs(hits), err)
	}

	// Another library reads the same index from the file.
	lib2, err := New(Config{Dir: lib.cfg.Dir})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := lib2.Documents(ctx, "docs")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range docs {
		paths = append(paths, d.Path)
	}
	if diff := cmp.Diff([]string{"docs/install.md", "docs/usage.txt"}, paths); diff != "" {
		t.Errorf("Documents from the file (-want +got):\n%s", diff)
	}
	hits, err = lib2.Search(ctx, Query{Text: "question", Collection: "docs", Filter: Filter{Paths: "**/*.txt"}})
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Text, "question") {
		t.Errorf("Search(question) from the file = %+v, %v", hits, err)
	}
}

func TestLibrary_IndexEmbedsAgainForAnotherModel(t *testing.T) {
	calls := 0
	emb := funcEmbedder(func(_ context.Context, texts []string) ([][]float32, error) {
		calls += len(texts)
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = trigramVector(s, 32)
		}
		return out, nil
	})
	root, lib := openWorkspace(t, map[string]string{"a.md": "# A\n\nalpha\n"}, Config{Embedder: emb, EmbeddingModel: "one"})
	for _, step := range []struct {
		model      string
		wantCalls  int
		wantUpdate int
	}{{"one", 1, 0}, {"one", 1, 0}, {"two", 2, 1}} {
		lib.cfg.EmbeddingModel = step.model
		rep, err := lib.Index(t.Context(), root, "c", []string{"."}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if calls != step.wantCalls || rep.Updated != step.wantUpdate {
			t.Errorf("Index with model %s: %d texts embedded so far, %d updated; want %d and %d", step.model, calls, rep.Updated, step.wantCalls, step.wantUpdate)
		}
	}
	docs, err := lib.Documents(t.Context(), "c")
	if err != nil || len(docs) != 1 || docs[0].Model != "two" || !docs[0].Embedded {
		t.Errorf("Documents = %+v, %v; want a.md embedded by model two", docs, err)
	}
}
