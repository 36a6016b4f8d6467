package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/docs"
	"github.com/wieldhq/wield/workspace"
)

// docsLibrary returns the document library of workspace ws, searching
// with embeddings when the environment configures them (see memory.go).
func (g *globals) docsLibrary(ws string) (*retrieval.Library, error) {
	cfg := retrieval.Config{Dir: workspace.Layout{Root: ws}.Index(), Logger: g.logger()}
	if e := wield.Embedder(os.Getenv); e != nil {
		cfg.Embedder, cfg.EmbeddingModel = e, e.Model
	}
	return retrieval.New(cfg)
}

// docsCommands returns the commands of retrieval over local documents.
func (g *globals) docsCommands() []*cobra.Command {
	return []*cobra.Command{newIndexCommand(g), newDocsCommand(g)}
}

const docsEmbeddingsHelp = `Search ranks passages with BM25. Set ` + wield.EnvEmbeddingsURL + ` (an
OpenAI-compatible API base) and ` + wield.EnvEmbeddingsModel + ` to give passages
embeddings too, when they are indexed; searches then fuse both rankings by
reciprocal rank. The key is ` + wield.EnvEmbeddingsKey + `, else OPENAI_API_KEY.`

// openDocs returns the workspace's root and document library.
func (g *globals) openDocs() (*os.Root, *retrieval.Library, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, nil, err
	}
	lib, err := g.docsLibrary(ws)
	if err != nil {
		root.Close()
		return nil, nil, err
	}
	return root, lib, nil
}

// progressEvery is how often wield index reports progress on long runs.
const progressEvery = time.Second

func newIndexCommand(g *globals) *cobra.Command {
	var collection string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "index [--collection C] [--json] PATH...",
		Short: "index documents for search",
		Long: `Index reads the Markdown, text, HTML and PDF files at or below each PATH
(relative to the current directory, inside the workspace), cuts them into
chunks by headings and size, and stores them in a collection of the
workspace's document index (.wield/index), where wield docs search and the
search_documents tool find them. Files that .gitignore or .wieldignore hide
are skipped, as the file tools skip them.

Run it again after documents change: only files whose content changed are
read again, and documents that no longer exist below a PATH are dropped.
Long runs report progress on standard error every second.

` + docsEmbeddingsHelp + `

The --collection flag names the collection (default "default"). The --json
flag prints the report as JSON.

	wield index docs
	wield index --collection papers ~/project/papers README.md

See also: wield docs, wield help call (index_documents).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := retrieval.ValidCollection(collection); err != nil {
				return &exitError{exitUsage, fmt.Errorf("--collection: %w", err)}
			}
			root, lib, err := g.openDocs()
			if err != nil {
				return err
			}
			defer root.Close()
			defer lib.Close()
			paths, err := workspacePaths(root.Name(), args)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			rep, err := lib.Index(cmd.Context(), root, collection, paths, g.indexProgress())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g, rep)
			}
			_, err = fmt.Fprintln(g.stdout, docs.Summary(rep))
			return err
		},
	}
	cmd.Flags().StringVar(&collection, "collection", retrieval.DefaultCollection, "the collection to index into")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// indexProgress returns a progress function that prints a line on
// stderr at most every progressEvery, and none for runs shorter than that.
func (g *globals) indexProgress() func(retrieval.Progress) {
	last := time.Now()
	return func(p retrieval.Progress) {
		if now := time.Now(); now.Sub(last) >= progressEvery {
			last = now
			fmt.Fprintf(g.stderr, "wield: index: %d of %d documents (%s)\n", p.Done, p.Total, p.Path)
		}
	}
}

// workspacePaths turns paths given relative to the current directory
// into absolute ones, which Index takes relative to the workspace root.
func workspacePaths(ws string, args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, err
		}
		if rel, err := filepath.Rel(ws, abs); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%s is outside the workspace %s: index documents inside it", a, ws)
		}
		out[i] = abs
	}
	return out, nil
}

func newDocsCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "search, list and show indexed documents",
		Long: `Docs works on the workspace's document index, which wield index fills: search
finds passages, ls lists collections and documents, show prints a document's
numbered lines. The agent has the same abilities as tools: search_documents,
list_documents, get_document and index_documents.

` + docsEmbeddingsHelp + `

	wield docs search "how are backups rotated"
	wield docs search -k 3 --filter 'docs/**/*.md' --json rotation
	wield docs ls
	wield docs ls default
	wield docs show docs/ops.md#4

See also: wield index.`,
	}
	cmd.AddCommand(newDocsSearchCommand(g), newDocsListCommand(g), newDocsShowCommand(g))
	return cmd
}

func newDocsSearchCommand(g *globals) *cobra.Command {
	var (
		collection, filter string
		k                  int
		asJSON             bool
	)
	cmd := &cobra.Command{
		Use:   "search [--collection C] [-k N] [--filter GLOB] [--json] QUERY",
		Short: "search the indexed documents",
		Long: `Search prints the passages that best match QUERY, best first: source path,
lines (and pages of a PDF), heading, score and the start of the text. With
--json it prints the hits whole. Without --collection every collection is
searched; --filter keeps documents whose path matches a glob.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, lib, err := g.openDocs()
			if err != nil {
				return err
			}
			defer lib.Close()
			hits, err := lib.Search(cmd.Context(), retrieval.Query{Text: strings.Join(args, " "), Collection: collection, K: k,
				Filter: retrieval.Filter{Paths: filter}})
			if err != nil {
				return &exitError{exitToolFailure, err}
			}
			if asJSON {
				if hits == nil {
					hits = []retrieval.Hit{}
				}
				return writeJSON(g, hits)
			}
			if len(hits) == 0 {
				fmt.Fprintln(g.stderr, "no passages match")
				return nil
			}
			for i, h := range hits {
				where := fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine)
				if h.StartPage > 0 {
					where += fmt.Sprintf(" (p%d-%d)", h.StartPage, h.EndPage)
				}
				head := ""
				if h.Heading != "" {
					head = "  " + h.Heading
				}
				fmt.Fprintf(g.stdout, "%d. %s  %.4g%s\n   %s\n", i+1, where, h.Score, head, oneLine(h.Text, 160))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&collection, "collection", "", "the collection to search; empty searches all")
	cmd.Flags().IntVarP(&k, "k", "k", retrieval.DefaultK, "how many passages to print")
	cmd.Flags().StringVar(&filter, "filter", "", "a glob over document paths, such as 'docs/**/*.md'")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hits as JSON")
	return cmd
}

func newDocsListCommand(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [--json] [COLLECTION]",
		Short: "list collections, or the documents of one",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, lib, err := g.openDocs()
			if err != nil {
				return err
			}
			defer lib.Close()
			if len(args) == 0 {
				return g.listCollections(cmd.Context(), lib, asJSON)
			}
			if err := retrieval.ValidCollection(args[0]); err != nil {
				return &exitError{exitUsage, err}
			}
			ds, err := lib.Documents(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				if ds == nil {
					ds = []retrieval.Document{}
				}
				return writeJSON(g, ds)
			}
			rows := make([][]string, len(ds))
			for i, d := range ds {
				size := fmt.Sprintf("%d %s", d.Lines, plural(d.Lines, "line", "lines"))
				if d.Pages > 0 {
					size = fmt.Sprintf("%d %s", d.Pages, plural(d.Pages, "page", "pages"))
				}
				rows[i] = []string{d.Path, d.Kind, size, fmt.Sprint(d.Chunks), d.Indexed.Local().Format(time.DateTime), oneLine(d.Title, 50)}
			}
			return writeTable(g, "no documents in "+args[0], []string{"PATH", "KIND", "SIZE", "CHUNKS", "INDEXED", "TITLE"}, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// collectionInfo is one collection in wield docs ls.
type collectionInfo struct {
	Name      string `json:"name"`
	Documents int    `json:"documents"`
	Chunks    int    `json:"chunks"`
}

func (g *globals) listCollections(ctx context.Context, lib *retrieval.Library, asJSON bool) error {
	names, err := lib.Collections()
	if err != nil {
		return err
	}
	infos := []collectionInfo{}
	for _, n := range names {
		ds, err := lib.Documents(ctx, n)
		if err != nil {
			return err
		}
		info := collectionInfo{Name: n, Documents: len(ds)}
		for _, d := range ds {
			info.Chunks += d.Chunks
		}
		infos = append(infos, info)
	}
	if asJSON {
		return writeJSON(g, infos)
	}
	rows := make([][]string, len(infos))
	for i, c := range infos {
		rows[i] = []string{c.Name, fmt.Sprint(c.Documents), fmt.Sprint(c.Chunks)}
	}
	return writeTable(g, "no documents are indexed: wield index adds them", []string{"COLLECTION", "DOCUMENTS", "CHUNKS"}, rows)
}

func newDocsShowCommand(g *globals) *cobra.Command {
	var rng string
	cmd := &cobra.Command{
		Use:   "show [--range R] ID",
		Short: "print a document's numbered lines",
		Long: `Show prints a document as the index reads it (HTML as Markdown, a PDF as
text), with line numbers: ID is a path relative to the workspace root or a
chunk id from search (docs/ops.md#4), which prints that chunk's lines.
--range picks lines ("40-80") or PDF pages ("p2-4").`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, lib, err := g.openDocs()
			if err != nil {
				return err
			}
			defer root.Close()
			defer lib.Close()
			raw, err := json.Marshal(docs.GetInput{ID: args[0], Range: rng})
			if err != nil {
				return err
			}
			// No budget: the terminal takes the whole document.
			get := docs.NewGet(docs.Config{Library: lib, OutputBudget: retrieval.DefaultMaxFileBytes * 4})
			res, err := get.Handler().Handle(cmd.Context(), &tool.Call{Root: root}, raw)
			if err != nil {
				return err
			}
			if !res.Success {
				return &exitError{exitToolFailure, errors.New(res.Error)}
			}
			_, err = fmt.Fprintln(g.stdout, res.Output)
			return err
		},
	}
	cmd.Flags().StringVar(&rng, "range", "", `lines ("40-80") or PDF pages ("p2-4")`)
	return cmd
}
