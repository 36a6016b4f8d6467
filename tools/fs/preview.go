package fs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

// A Change is what a write_file or replace call would do to one file:
// its content before (empty for a new file) and after.
type Change struct {
	// Path is the file as the call named it.
	Path     string
	Old, New string
	// Created reports whether the file does not exist yet.
	Created bool
}

// Preview returns the change the call c of toolName (write_file or
// replace) with args would make, without writing anything: approvals show
// it as a diff. It returns an error saying why when the call would fail
// (the tool would give the same reason) or names another tool. Reading
// goes through c.Root like the tools' own.
func Preview(c *tool.Call, toolName string, args json.RawMessage) (Change, error) {
	w, ok := openWorkspace(c)
	if !ok {
		return Change{}, errors.New(noWorkspace.Error)
	}
	var in struct {
		Path          string  `json:"path"`
		Content       *string `json:"content"`
		OldString     string  `json:"old_string"`
		NewString     string  `json:"new_string"`
		AllowMultiple bool    `json:"allow_multiple"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return Change{}, fmt.Errorf("arguments: %w", err)
	}
	t, res, ok := openTarget(w, in.Path)
	if !ok {
		return Change{}, errors.New(res.Error)
	}
	ch := Change{Path: in.Path, Old: string(toLF(t.old)), Created: !t.exists}
	switch toolName {
	case "write_file":
		if in.Content == nil {
			return Change{}, errors.New("write_file without content")
		}
		ch.New = string(toLF([]byte(*in.Content)))
	case "replace":
		if in.OldString == "" {
			ch.New = string(toLF([]byte(in.NewString)))
			break
		}
		if !t.exists {
			return Change{}, fmt.Errorf("%s does not exist", in.Path)
		}
		ed, fail := applyReplace(t.old, in.OldString, in.NewString, in.AllowMultiple)
		if fail != "" {
			return Change{}, errors.New(strings.ReplaceAll(fail, "FILE", in.Path))
		}
		ch.New = string(toLF(ed.content))
	default:
		return Change{}, fmt.Errorf("%s is not a file-editing tool: only write_file and replace can be previewed", toolName)
	}
	return ch, nil
}
