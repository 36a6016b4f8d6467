package memory

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseNote(t *testing.T) {
	at := time.Date(2026, 5, 2, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		want     *Note
		err      string
	}{
		{"no frontmatter", "Just a fact.\n", &Note{Body: "Just a fact.\n"}, ""},
		{"full", "---\nid: a/b\nscope: user\ntags: [Go, go, \" build \"]\ncreated: 2026-05-02T11:30:00+02:00\nmodified: 2026-05-02T09:30:00.9Z\nsource: agent\nsource_session: s1\ntainted: true\nextra: ignored\n---\nBody\n---\nmore\n",
			&Note{ID: "a/b", Scope: ScopeUser, Tags: []string{"go", "build"}, Created: at, Modified: at, Source: SourceAgent, SourceSession: "s1", Tainted: true, Body: "Body\n---\nmore\n"}, ""},
		{"empty frontmatter", "---\n---\nBody", &Note{Body: "Body"}, ""},
		{"closing fence at end", "---\nid: x\n---", &Note{ID: "x"}, ""},
		{"crlf", "---\r\nid: x\r\n---\r\nBody\r\n", &Note{ID: "x", Body: "Body\n"}, ""},
		{"unclosed", "---\nid: x\nBody\n", nil, "no closing ---"},
		{"bad yaml", "---\ntags: [x\n---\n", nil, "frontmatter"},
		{"bad time", "---\ncreated: yesterday\n---\n", nil, "frontmatter"},
		{"not utf-8", "\xff\xfe", nil, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNote([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseNote(%q) error = %v, want one saying %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseNote(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestNote_Title(t *testing.T) {
	tests := []struct{ body, want string }{
		{"\n\n## Deploy  \nsteps", "Deploy"},
		{"one line", "one line"},
		{"", ""},
		{strings.Repeat("é", 120), strings.Repeat("é", 99) + "…"},
	}
	for _, tt := range tests {
		n := Note{Body: tt.body}
		if got := n.Title(); got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "a/b-c_d.e", "A1", strings.Repeat("x", MaxIDLength)} {
		if err := ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "..", "../x", "a/../b", "/x", "a/", "a//b", ".x", "a/.b", "MEMORY", "memory", "a b", "a\\b", "é", strings.Repeat("x", MaxIDLength+1)} {
		if ValidID(id) == nil {
			t.Errorf("ValidID(%q) = nil, want an error", id)
		}
	}
}

// FuzzParseNote checks that ParseNote never panics, and that a note it
// returns survives a round trip: Markdown, parsed again, gives the same
// note.
func FuzzParseNote(f *testing.F) {
	for _, s := range []string{"", "fact", "---\nid: x\ntags: [a]\n---\nbody\n", "---\n---\n", "---\ncreated: 2026-01-01T00:00:00Z\n---\n---\n",
		"---\nsource_session: \"a\\nb\"\n---\nx", "---\ntags:\n- \"#x\"\n- \"---\"\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseNote(data)
		if err != nil {
			return
		}
		if !utf8.ValidString(n.Body) {
			t.Fatalf("body of %q is not UTF-8", data)
		}
		again, err := ParseNote(n.Markdown())
		if err != nil {
			t.Fatalf("ParseNote(Markdown(ParseNote(%q))): %v\nmarkdown: %q", data, err, n.Markdown())
		}
		if diff := cmp.Diff(n, again); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", data, diff)
		}
	})
}

// FuzzNoteMarkdown checks the other direction: any note built from
// strings (and the times a store writes) comes back from its file.
func FuzzNoteMarkdown(f *testing.F) {
	f.Add("id", "tag", "s1", "body\n", int64(0), true)
	f.Add("a/b", "---", "", "---\n---\n", int64(1e9), false)
	f.Fuzz(func(t *testing.T, id, tag, session, body string, sec int64, tainted bool) {
		for _, s := range []string{id, tag, session, body} {
			if !utf8.ValidString(s) {
				return
			}
		}
		at := time.Unix(sec%(1<<33), 0).UTC()
		n := &Note{ID: id, Scope: ScopeProject, Tags: normalTags([]string{tag}), Created: at, Modified: at,
			Source: SourceAgent, SourceSession: session, Tainted: tainted, Body: strings.ReplaceAll(body, "\r", "")}
		got, err := ParseNote(n.Markdown())
		if err != nil {
			t.Fatalf("ParseNote(Markdown(%+v)): %v\n%q", n, err, n.Markdown())
		}
		if diff := cmp.Diff(n, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s\n%q", diff, n.Markdown())
		}
	})
}
