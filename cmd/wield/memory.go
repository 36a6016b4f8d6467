package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/memory"
)

// memoryStore returns the memory of workspace ws ("" for none: user
// notes only) and of the user. Nothing is read until it is used, and a
// command reads it once: the prompt's index and the memory tools share
// the store.
func (g *globals) memoryStore(ws string) *memory.Store {
	if g.memory == nil || g.memoryWS != ws {
		g.memory, g.memoryWS = wield.DefaultMemory(ws, os.Getenv, g.logger()), ws
	}
	return g.memory
}

func newMemoryCommand(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "list, show, search and delete memory notes",
		Long: `Memory holds what sessions saved to remember: one Markdown file per note, with
frontmatter, in .wield/memory of the workspace (project scope) and in the
memory directory of the user's wield configuration (user scope). MEMORY.md in
each is an index generated from the notes; it goes into every run's prompt.
Edit the notes with any editor; wield reads them again when they change.

Search ranks notes with BM25 over their title, text and tags. Set
` + wield.EnvEmbeddingsURL + ` (an OpenAI-compatible API base) and ` + wield.EnvEmbeddingsModel + `
to blend in embeddings; the key is ` + wield.EnvEmbeddingsKey + `, else OPENAI_API_KEY.

A note is named SCOPE:ID (project:build/toolchain) or ID (project, then user).

See also: wield help run.`,
	}
	storeFor := func() *memory.Store {
		ws, _ := g.workspace()
		return g.memoryStore(ws)
	}
	var scopeFlag string
	scope := func() (memory.Scope, error) {
		if scopeFlag == "" {
			return "", nil
		}
		s, err := memory.ParseScope(scopeFlag)
		if err != nil {
			return "", &exitError{exitUsage, fmt.Errorf("--scope: %w", err)}
		}
		return s, nil
	}
	var asJSON bool
	printNotes := func(notes []memory.Note, scores []float64) error {
		if asJSON {
			return writeJSON(g, notes)
		}
		rows := make([][]string, len(notes))
		for i, n := range notes {
			rows[i] = []string{string(n.Scope) + ":" + n.ID, n.Modified.Local().Format(time.DateOnly), strings.Join(n.Tags, ","), oneLine(n.Title(), 60)}
			if scores != nil {
				rows[i] = append(rows[i], fmt.Sprintf("%.3f", scores[i]))
			}
		}
		head := []string{"NOTE", "MODIFIED", "TAGS", "TITLE"}
		if scores != nil {
			head = append(head, "SCORE")
		}
		return writeTable(g, "no notes", head, rows)
	}
	ls := &cobra.Command{
		Use:   "ls",
		Short: "list notes, newest first",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			sc, err := scope()
			if err != nil {
				return err
			}
			notes, err := storeFor().List(sc)
			if err != nil {
				return err
			}
			return printNotes(notes, nil)
		},
	}
	show := &cobra.Command{
		Use:   "show NOTE",
		Short: "print a note's file",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			sc, id := splitNote(args[0])
			n, err := storeFor().Get(sc, id)
			if err != nil {
				return noteError(err)
			}
			_, err = g.stdout.Write(n.Markdown())
			return err
		},
	}
	var tags []string
	var limit int
	search := &cobra.Command{
		Use:   "search [QUERY]",
		Short: "search notes",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := scope()
			if err != nil {
				return err
			}
			q := memory.Query{Tags: tags, Scope: sc, Limit: limit}
			if len(args) == 1 {
				q.Text = args[0]
			}
			hits, err := storeFor().Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			notes, scores := make([]memory.Note, len(hits)), make([]float64, len(hits))
			for i, h := range hits {
				notes[i], scores[i] = h.Note, h.Score
			}
			return printNotes(notes, scores)
		},
	}
	search.Flags().StringSliceVar(&tags, "tag", nil, "keep notes with this `tag` (repeatable: all must match)")
	search.Flags().IntVar(&limit, "limit", 20, "print at most `N` notes")
	rm := &cobra.Command{
		Use:   "rm NOTE...",
		Short: "delete notes",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s := storeFor()
			for _, a := range args {
				sc, id := splitNote(a)
				if sc == "" {
					n, err := s.Get("", id)
					if err != nil {
						return noteError(err)
					}
					sc = n.Scope
				}
				if err := s.Delete(sc, id); err != nil {
					return noteError(err)
				}
				fmt.Fprintf(g.stderr, "deleted %s:%s\n", sc, id)
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{ls, search} {
		c.Flags().StringVar(&scopeFlag, "scope", "", "only the notes of this `scope` (project or user)")
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	}
	cmd.AddCommand(ls, show, search, rm)
	return cmd
}

// splitNote reads SCOPE:ID or ID.
func splitNote(arg string) (memory.Scope, string) {
	if sc, id, ok := strings.Cut(arg, ":"); ok {
		if s, err := memory.ParseScope(sc); err == nil && sc != "" {
			return s, strings.TrimSuffix(id, ".md")
		}
	}
	return "", strings.TrimSuffix(arg, ".md")
}

// noteError makes a missing note a usage error that says how to list them.
func noteError(err error) error {
	if errors.Is(err, memory.ErrNotFound) {
		return &exitError{exitUsage, fmt.Errorf("%w; wield memory ls lists them", err)}
	}
	return err
}
