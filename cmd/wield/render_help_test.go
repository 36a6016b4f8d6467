package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// singleDash finds a long flag written with one dash ("-json"), which the
// command line rejects; go's own flags (go build -ldflags) are fine.
var singleDash = regexp.MustCompile(`(^|[\s(,"'])-([a-z][a-z-]+)`)

var goFlags = map[string]bool{"ldflags": true, "race": true, "run": true, "count": true, "update": true, "tags": true, "rf": true, "la": true, "exec": true, "delete": true}

// TestHelp: every command's help has an example, names no long flag with
// a single dash, and examples name no command that does not exist.
func TestHelp(t *testing.T) {
	root, _ := newRootCommand(strings.NewReader(""), nil, nil)
	setExamples(root)
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		seen[path] = true
		if c.Example == "" {
			t.Errorf("%s: no example in its help (add one to examples in render_help.go)", path)
		}
		texts := []string{c.Long, c.Example}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, text := range texts {
			for _, m := range singleDash.FindAllStringSubmatch(text, -1) {
				name := m[2]
				if goFlags[name] || c.Flags().ShorthandLookup(name[:1]) != nil && len(name) == 1 {
					continue
				}
				if c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
					t.Errorf("%s: help writes the flag --%s as -%s", path, name, name)
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for path := range examples {
		if !seen[path] {
			t.Errorf("examples has %q, which is no command", path)
		}
	}
}
