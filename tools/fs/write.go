package fs

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"github.com/wieldhq/wield/internal/diff"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

//go:embed write.md
var writeDescription string

// WriteInput is the argument object of write_file.
type WriteInput struct {
	Path    string `json:"path" jsonschema:"the file to write, relative to the workspace root or absolute inside it"`
	Content string `json:"content" jsonschema:"the whole new content of the file"`
}

// WriteData is the structured result of write_file.
type WriteData struct {
	Path    string `json:"path"`
	Created bool   `json:"created,omitempty"`
	Lines   int    `json:"lines"`
	Bytes   int    `json:"bytes"`
	Added   int    `json:"added,omitempty"`
	Removed int    `json:"removed,omitempty"`
	// LineEndings is "CRLF" when the content's line endings were changed
	// to match the file's.
	LineEndings string `json:"lineEndings,omitempty"`
}

// NewWrite returns the write_file tool.
func NewWrite(cfg Config) *tool.Tool {
	wr := writer{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:         "write_file",
		Effect:       tool.EffectWrite,
		KeyArgs:      []string{"path"},
		Aliases:      []string{"Write"},
		Description:  describe("write_file", writeDescription, wr.cfg),
		OutputSchema: tool.SchemaOf[WriteData](),
		Annotations:  tool.Annotations{Destructive: true},
	}, inWorkspace(wr.write))
}

type writer struct{ cfg Config }

func (wr writer) write(ctx context.Context, c *tool.Call, w *fstree.Tree, in WriteInput) (tool.Result, error) {
	t, res, ok := openTarget(w, in.Path)
	if !ok {
		return res, nil
	}
	content := []byte(in.Content)
	if privateKey(content) {
		return tool.Failure("refusing to write " + in.Path + ": the content holds a private key"), nil
	}
	data := WriteData{Path: in.Path, Created: !t.exists}
	mode := newFileMode
	if t.exists {
		mode = t.mode
		// Keep the file's line endings and byte-order mark.
		switch styleOf(t.old) {
		case crlfLines:
			if styleOf(content) != crlfLines && bytes.IndexByte(content, '\n') >= 0 {
				content = toCRLF(toLF(content))
				data.LineEndings = "CRLF"
			}
		case lfLines:
			if bytes.Contains(t.old, []byte{'\n'}) && bytes.Contains(content, []byte("\r\n")) {
				content = toLF(content)
				data.LineEndings = "LF"
			}
		}
		if bytes.HasPrefix(t.old, bom) && !bytes.HasPrefix(content, bom) {
			content = append(append([]byte(nil), bom...), content...)
		}
		if bytes.Equal(content, t.old) {
			data.Lines, data.Bytes = countLines(content), len(content)
			return tool.Result{Success: true, Output: in.Path + " already has this content; nothing was written.", Data: data}, nil
		}
	}
	if err := writeAtomic(w.Root, t.rel, content, mode); err != nil {
		return tool.Failure(fstree.DescribeError(in.Path, err) + "; the file was not changed"), nil
	}
	if err := wr.cfg.record(ctx, c, w, t.rel, &t, content, mode); err != nil {
		return tool.Result{}, err
	}
	data.Lines, data.Bytes = countLines(content), len(content)
	out := newOutput(wr.cfg.OutputBudget)
	if !t.exists {
		out.line(fmt.Sprintf("Created %s (%s, %s).", in.Path, plural(data.Lines, "line"), formatSize(int64(data.Bytes))))
		return tool.Result{Success: true, Output: out.String(), Data: data}, nil
	}
	a, b := diff.SplitLines(string(toLF(t.old))), diff.SplitLines(string(toLF(content)))
	es := diff.Edits(a, b)
	data.Added, data.Removed = diff.Count(es)
	summary := fmt.Sprintf("Updated %s: %s added, %s removed (%d → %d lines).",
		in.Path, plural(data.Added, "line"), plural(data.Removed, "line"), len(a), len(b))
	if data.LineEndings != "" {
		summary += fmt.Sprintf(" Line endings were changed to %s, as in the file.", data.LineEndings)
	}
	out.line(summary)
	out.line(unified(diff.HunksOf(a, b, es, diffContext), maxDiffLines))
	return tool.Result{Success: true, Output: out.String(), Data: data}, nil
}

var bom = []byte("\xef\xbb\xbf")
