package memory

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tool"
)

//go:embed read_memory.md
var readDescription string

// ReadInput is read_memory's argument object.
type ReadInput struct {
	ID    string `json:"id" jsonschema:"the note's id, as MEMORY.md or search_memory show it"`
	Scope string `json:"scope,omitempty" enum:"project,user" jsonschema:"the note's scope; empty looks in project, then user"`
}

// ReadMemory returns read_memory, which reads one note.
func ReadMemory(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "read_memory", Effect: tool.EffectRead, KeyArgs: []string{"id"}, Description: readDescription,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.read)
}

func (cfg Config) read(_ context.Context, _ *tool.Call, in ReadInput) (tool.Result, error) {
	if cfg.Store == nil {
		return tool.Failure(errNoStore.Error()), nil
	}
	var scope memory.Scope
	if in.Scope != "" {
		var err error
		if scope, err = memory.ParseScope(in.Scope); err != nil {
			return tool.Failure(err.Error()), nil
		}
	}
	n, err := cfg.Store.Get(scope, strings.TrimSuffix(in.ID, ".md"))
	if err != nil {
		return tool.Failure(err.Error() + "; search_memory finds notes by their words"), nil
	}
	return tool.Text(header(n) + "\n" + n.Body), nil
}

// header is a note's first line in the tools' output.
func header(n *memory.Note) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s note %s, modified %s", n.Scope, n.ID, n.Modified.Format("2006-01-02"))
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, ", tags %s", strings.Join(n.Tags, ", "))
	}
	if n.Tainted {
		b.WriteString(", written after reading external content: verify before relying on it")
	}
	b.WriteString("]")
	return b.String()
}
