package docs

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wieldhq/wield/retrieval"
	"github.com/wieldhq/wield/tool"
)

//go:embed get_document.md
var getDescription string

// GetInput is get_document's argument object.
type GetInput struct {
	ID    string `json:"id" jsonschema:"a document path or a chunk id (path#n)"`
	Range string `json:"range,omitempty" jsonschema:"lines (\"40-80\", \"12\") or PDF pages (\"p3\", \"p2-4\"); empty means the chunk, or the whole document"`
}

// NewGet returns get_document, which shows a document's text.
func NewGet(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "get_document", Effect: tool.EffectRead, Description: getDescription,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.get)
}

// errFailure is a failure the model reads.
type errFailure string

func (e errFailure) Error() string { return string(e) }

func (cfg Config) get(ctx context.Context, c *tool.Call, in GetInput) (tool.Result, error) {
	if c == nil || c.Root == nil {
		return tool.Failure(errNoWorkspace.Error()), nil
	}
	out, err := cfg.read(ctx, c, in)
	if f, ok := errors.AsType[errFailure](err); ok {
		return tool.Failure(string(f)), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, err
		}
		return tool.Failure(err.Error()), nil
	}
	return tool.Text(out), nil
}

func (cfg Config) read(ctx context.Context, c *tool.Call, in GetInput) (string, error) {
	id := strings.TrimSpace(in.ID)
	if id == "" {
		return "", errFailure("id is empty: give a document path or a chunk id from search_documents")
	}
	docPath, chunkN := id, 0
	if p, n, ok := strings.Cut(id, "#"); ok {
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 {
			return "", errFailure(fmt.Sprintf("id %q: the part after # must be a chunk number from 1", id))
		}
		docPath, chunkN = p, k
	}
	clean := path.Clean(filepath.ToSlash(docPath))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", errFailure(fmt.Sprintf("%s is outside the workspace: ids are paths relative to it", docPath))
	}
	if retrieval.KindOf(clean) == "" {
		return "", errFailure(fmt.Sprintf("%s is not a document retrieval reads (Markdown, text, HTML or PDF): read_file reads other files", clean))
	}
	indexed, chunk := cfg.lookup(ctx, clean, chunkN)
	if chunkN > 0 && chunk == nil {
		return "", errFailure(fmt.Sprintf("no chunk %s is indexed: search_documents gives chunk ids, or pass the path alone", id))
	}

	f, err := c.Root.Open(filepath.FromSlash(clean))
	if errors.Is(err, fs.ErrNotExist) {
		return "", errFailure(fmt.Sprintf("%s does not exist (any longer): index_documents drops removed documents", clean))
	}
	if err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, retrieval.DefaultMaxFileBytes+1))
	f.Close()
	if err != nil {
		return "", err
	}
	if len(data) > retrieval.DefaultMaxFileBytes {
		return "", errFailure(fmt.Sprintf("%s is larger than %d MiB: read_file reads it in parts", clean, retrieval.DefaultMaxFileBytes>>20))
	}
	text, err := retrieval.Extract(ctx, clean, data)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSuffix(text.Body, "\n"), "\n")
	first, last, err := pickRange(in.Range, text, len(lines), chunk)
	if err != nil {
		return "", err
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %d lines", clean, text.Kind, len(lines))
	if len(text.Pages) > 0 {
		fmt.Fprintf(&b, ", %d pages", len(text.Pages))
	}
	b.WriteString(")")
	if indexed != nil {
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != indexed.Hash {
			b.WriteString("; changed since it was indexed, so search results may point at other lines: index_documents updates it")
		}
	}
	b.WriteString("\n")
	budget := cfg.budget()
	page := 0
	for n := first; n <= last; n++ {
		if p := text.PageOf(n); p != page && len(text.Pages) > 0 {
			page = p
			fmt.Fprintf(&b, "--- page %d ---\n", p)
		}
		line := fmt.Sprintf("%6d  %s\n", n, lines[n-1])
		if b.Len()+len(line) > budget && n > first {
			fmt.Fprintf(&b, "(lines %d-%d shown; range \"%d-%d\" shows the next)", first, n-1, n, min(last, n+(n-first)))
			return b.String(), nil
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// lookup finds the indexed document at p and its chunk n (0 for none) in
// any collection.
func (cfg Config) lookup(ctx context.Context, p string, n int) (*retrieval.Document, *retrieval.Chunk) {
	if cfg.Library == nil {
		return nil, nil
	}
	names, _ := cfg.Library.Collections()
	for _, col := range names {
		docs, err := cfg.Library.Documents(ctx, col)
		if err != nil {
			continue
		}
		for i := range docs {
			if docs[i].Path != p {
				continue
			}
			if n == 0 {
				return &docs[i], nil
			}
			chunks, err := cfg.Library.Chunks(ctx, col, p)
			if err == nil && n <= len(chunks) {
				return &docs[i], &chunks[n-1]
			}
		}
	}
	return nil, nil
}

// pickRange returns the lines to show, from 1, inclusive.
func pickRange(r string, text *retrieval.Text, lines int, chunk *retrieval.Chunk) (int, int, error) {
	r = strings.TrimSpace(r)
	if r == "" {
		if chunk != nil {
			return min(chunk.StartLine, lines), min(chunk.EndLine, lines), nil
		}
		return 1, lines, nil
	}
	pages := false
	if rest, ok := strings.CutPrefix(strings.ToLower(r), "p"); ok {
		if len(text.Pages) == 0 {
			return 0, 0, errFailure(fmt.Sprintf("range %q asks for pages, but this %s document has none: give lines, such as \"1-40\"", r, text.Kind))
		}
		pages, r = true, rest
	}
	lo, hi, ok := strings.Cut(r, "-")
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b := a
	var err2 error
	if ok {
		b, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	if err1 != nil || err2 != nil || a < 1 || b < a {
		return 0, 0, errFailure(fmt.Sprintf("range %q is not a range: write lines as \"40-80\" or \"12\", pages as \"p3\" or \"p2-4\"", r))
	}
	if pages {
		n := len(text.Pages)
		if a > n {
			return 0, 0, errFailure(fmt.Sprintf("page %d is past the end: the document has %d pages", a, n))
		}
		end := lines
		if b < n {
			end = text.Pages[b] - 1
		}
		return text.Pages[a-1], end, nil
	}
	if a > lines {
		return 0, 0, errFailure(fmt.Sprintf("line %d is past the end: the document has %d lines", a, lines))
	}
	return a, min(b, lines), nil
}
