package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
)

// writeJSON prints v on g.stdout as indented JSON.
func writeJSON(g *globals, v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable prints rows on g.stdout in columns aligned under header, one
// line a row; with no rows it prints only the hint empty, on g.stderr.
func writeTable(g *globals, empty string, header []string, rows [][]string) error {
	if len(rows) == 0 {
		fmt.Fprintln(g.stderr, empty)
		return nil
	}
	w := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	return w.Flush()
}
