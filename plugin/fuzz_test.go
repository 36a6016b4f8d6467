package plugin

import (
	"strings"
	"testing"
)

// FuzzParseManifest checks that a manifest ParseManifest accepts has a
// valid name and only paths inside the plugin.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"a","commands":["./c"],"hooks":"./h.json"}`))
	f.Add([]byte(`{"name":"a","agents":"../x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := ParseManifest(data)
		if m == nil {
			return
		}
		if !ValidName(m.Name) {
			t.Fatalf("accepted name %q", m.Name)
		}
		for _, ps := range []Paths{m.Commands, m.Agents, m.Skills} {
			for _, p := range ps {
				if c, ok := relPath(p); !ok || strings.HasPrefix(c, "..") || strings.HasPrefix(c, "/") {
					t.Fatalf("accepted path %q (%q)", p, c)
				}
			}
		}
	})
}

// FuzzParseMarketplace checks that every plugin of an accepted
// marketplace has a valid name and a source inside it or a git URL.
func FuzzParseMarketplace(f *testing.F) {
	f.Add([]byte(`{"plugins":[{"name":"a","source":"./a"},{"name":"b","source":{"source":"github","repo":"o/r"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMarketplace(data)
		if err != nil {
			return
		}
		for _, p := range m.Plugins {
			if !ValidName(p.Name) || p.Source.Path == "" && p.Source.Git == "" || strings.HasPrefix(p.Source.Path, "..") {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}

// FuzzParseCommand checks that an accepted command has text and that
// expanding it never panics and keeps the arguments.
func FuzzParseCommand(f *testing.F) {
	f.Add([]byte("---\ndescription: d\n---\nDo $1 with $ARGUMENTS"), "x y")
	f.Add([]byte("plain"), "")
	f.Fuzz(func(t *testing.T, data []byte, args string) {
		c, _ := ParseCommand(data, "c")
		if c == nil {
			return
		}
		if strings.TrimSpace(c.Body) == "" {
			t.Fatal("accepted a command without text")
		}
		out := c.Expand(args)
		if a := strings.TrimSpace(args); a != "" && !strings.Contains(c.Body, "$") && !strings.Contains(out, a) {
			t.Fatalf("Expand(%q) = %q lost the arguments", args, out)
		}
	})
}
