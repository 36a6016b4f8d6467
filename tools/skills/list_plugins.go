package skills

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

//go:embed list_plugins.md
var listPluginsDescription string

// A PluginInfo describes one installed plugin for list_plugins.
type PluginInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// Enabled reports whether the user trusts the plugin as it is now;
	// Changed whether it was trusted but its content changed since.
	Enabled bool `json:"enabled"`
	Changed bool `json:"changed,omitempty"`
	// Contents lists what it brings: "command /review", "mcp counter", …
	Contents []string `json:"contents,omitempty"`
}

// A PluginLister lists the installed plugins. It may be called
// concurrently.
type PluginLister interface {
	ListPlugins() ([]PluginInfo, error)
}

// PluginListerFunc adapts a function to a [PluginLister].
type PluginListerFunc func() ([]PluginInfo, error)

// ListPlugins calls f.
func (f PluginListerFunc) ListPlugins() ([]PluginInfo, error) { return f() }

// ListPluginsInput is list_plugins's argument object: it has none.
type ListPluginsInput struct{}

// ListPlugins returns the list_plugins tool, which lists what lister
// returns; a nil lister means no plugins are installed. It never enables
// a plugin: only the user can.
func ListPlugins(lister PluginLister) *tool.Tool {
	return tool.New(tool.Spec{Name: "list_plugins", Effect: tool.EffectRead, Description: listPluginsDescription,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, _ ListPluginsInput) (tool.Result, error) {
			return listPlugins(lister)
		})
}

func listPlugins(lister PluginLister) (tool.Result, error) {
	var ps []PluginInfo
	if lister != nil {
		var err error
		if ps, err = lister.ListPlugins(); err != nil {
			return tool.Failure("cannot list the plugins: " + err.Error()), nil
		}
	}
	if len(ps) == 0 {
		return tool.Result{Success: true, Output: "No plugins are installed.", Data: map[string]any{"plugins": []PluginInfo{}}}, nil
	}
	var b strings.Builder
	for _, p := range ps {
		state := "enabled"
		switch {
		case p.Changed:
			state = "changed since the user trusted it: not loaded until enabled again"
		case !p.Enabled:
			state = "not enabled"
		}
		fmt.Fprintf(&b, "- %s %s (%s): %s\n", p.Name, p.Version, state, p.Description)
		for _, c := range p.Contents {
			fmt.Fprintf(&b, "    %s\n", c)
		}
	}
	return tool.Result{Success: true, Output: b.String(), Data: map[string]any{"plugins": ps}}, nil
}
