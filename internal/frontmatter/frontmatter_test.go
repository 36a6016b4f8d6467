package frontmatter

import (
	"bytes"
	"errors"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in    string
		front, body string
		ok          bool
	}{
		{name: "plain", in: "---\na: 1\n---\nbody\n", front: "a: 1\n", body: "body\n", ok: true},
		{name: "crlf and bom", in: "\uFEFF---\r\na: 1\r\n--- \r\nbody", front: "a: 1\r\n", body: "body", ok: true},
		{name: "empty front", in: "---\n---\n", front: "", body: "", ok: true},
		{name: "no opening", in: "a: 1\n---\n"},
		{name: "no closing", in: "---\na: 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			front, body, ok := Split([]byte(tt.in))
			if ok != tt.ok || string(front) != tt.front || string(body) != tt.body {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tt.in, front, body, ok, tt.front, tt.body, tt.ok)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	doc, err := Decode([]byte("name: x\ndescription: y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := Mapping(&doc); !ok || len(m.Content) != 4 {
		t.Errorf("Mapping = %v, %v; want a mapping of two keys", m, ok)
	}
	_, err = Decode([]byte("a: 1\nb: [\n"))
	if se, ok := errors.AsType[*SyntaxError](err); !ok || se.Line < 1 {
		t.Errorf("Decode(bad) error = %v; want a *SyntaxError with a line", err)
	}
	_, err = Decode([]byte("a: 1\n---\nb: 2\n"))
	if err == nil {
		t.Error("Decode(two documents) = nil error; want one")
	}
	doc, err = Decode([]byte("- 1\n"))
	if _, ok := Mapping(&doc); err != nil || ok {
		t.Errorf("Mapping(list) ok = %v (err %v); want false", ok, err)
	}
}

func TestBody(t *testing.T) {
	if got := Body([]byte("\n  \nhello\n\n  ")); got != "hello" {
		t.Errorf("Body = %q; want %q", got, "hello")
	}
}

// FuzzSplit checks that Split never panics, that the frontmatter and body
// are parts of the input, and that Decode never panics on what it splits.
func FuzzSplit(f *testing.F) {
	f.Add([]byte("---\nname: a\n---\nbody"))
	f.Add([]byte("---\n&a [*a]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		front, body, ok := Split(data)
		if !ok {
			return
		}
		if !bytes.Contains(data, front) || !bytes.HasSuffix(data, body) {
			t.Fatalf("Split(%q) = %q, %q: not parts of the input", data, front, body)
		}
		if _, err := Decode(front); err != nil {
			if _, ok := errors.AsType[*SyntaxError](err); !ok {
				t.Fatalf("Decode error %v is not a *SyntaxError", err)
			}
		}
	})
}
