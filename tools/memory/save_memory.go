package memory

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/memory"
	"github.com/wieldhq/wield/tool"
)

//go:embed save_memory.md
var saveDescription string

// SaveInput is save_memory's argument object.
type SaveInput struct {
	Fact    string   `json:"fact" jsonschema:"the fact, preference or procedure, self-contained: it will be read in another session without this conversation; its first line is its title"`
	Scope   string   `json:"scope,omitempty" enum:"project,user" jsonschema:"project (this workspace, the default) or user (every workspace of this user)"`
	Tags    []string `json:"tags,omitempty" jsonschema:"short labels to filter by later, such as build or style"`
	Replace string   `json:"replace,omitempty" jsonschema:"the id of a note this fact updates: the note is rewritten with it"`
}

// SaveOutput is save_memory's structured result.
type SaveOutput struct {
	ID       string           `json:"id"`
	Scope    memory.Scope     `json:"scope"`
	Replaced bool             `json:"replaced,omitempty"`
	Tainted  bool             `json:"tainted,omitempty"`
	Similar  []memory.Similar `json:"similar,omitempty"`
}

// SaveMemory returns save_memory, which saves a fact as a note.
func SaveMemory(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "save_memory", Effect: tool.EffectState, KeyArgs: []string{"fact"}, Description: saveDescription}, cfg.save)
}

func (cfg Config) save(_ context.Context, c *tool.Call, in SaveInput) (tool.Result, error) {
	if cfg.Store == nil {
		return tool.Failure(errNoStore.Error()), nil
	}
	scope, err := memory.ParseScope(in.Scope)
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	if in.Replace != "" {
		if _, err := cfg.Store.Get(scope, in.Replace); err != nil {
			return tool.Failure(fmt.Sprintf("replace: %v; search_memory finds the note's id", err)), nil
		}
	}
	res, err := cfg.Store.Save(cfg.note(c, scope, in.Replace, in.Fact, in.Tags))
	if dup, ok := errors.AsType[*memory.DuplicateError](err); ok {
		return tool.Failure(fmt.Sprintf("nothing was saved: %s note %s already says this", dup.Scope, dup.ID)), nil
	}
	if err != nil {
		return tool.Failure(err.Error()), nil
	}
	n := &res.Note
	if err := cfg.journal(c, write{Op: "save", Scope: n.Scope, ID: n.ID, Tainted: n.Tainted}); err != nil {
		return tool.Result{}, err
	}
	var b strings.Builder
	verb := "Saved"
	if res.Replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(&b, "%s %s note %s.", verb, n.Scope, n.ID)
	if n.Tainted {
		b.WriteString(" It is marked as written after reading external content.")
	}
	writeSimilar(&b, res.Similar)
	return tool.Result{Success: true, Output: b.String(), Data: SaveOutput{ID: n.ID, Scope: n.Scope, Replaced: res.Replaced,
		Tainted: n.Tainted, Similar: res.Similar}}, nil
}

// writeSimilar tells the model about near duplicates.
func writeSimilar(b *strings.Builder, similar []memory.Similar) {
	if len(similar) == 0 {
		return
	}
	b.WriteString("\nSimilar notes exist; if one says the same, keep one (save_memory with replace, or delete the other with the memory tool):")
	for _, s := range similar {
		fmt.Fprintf(b, "\n- %s note %s (%.0f%% of words shared): %s", s.Scope, s.ID, 100*s.Jaccard, s.Title)
	}
}
