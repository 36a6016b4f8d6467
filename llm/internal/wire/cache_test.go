package wire

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestAssemble checks the bodies Assemble makes against the JSON they
// stand for.
func TestAssemble(t *testing.T) {
	tests := []struct {
		name     string
		parts    [][]byte
		tools    string
		envelope string
		want     string
	}{
		{"parts, tools and fields", [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`)}, `[{"t":1}]`, `{"model":"m","stream":true}`,
			`{"messages":[{"a":1},{"b":2}],"tools":[{"t":1}],"model":"m","stream":true}`},
		{"no tools", [][]byte{[]byte(`1`)}, "", `{"model":"m"}`, `{"messages":[1],"model":"m"}`},
		{"an empty list", [][]byte{}, "", `{"model":"m"}`, `{"messages":[],"model":"m"}`},
		{"nil parts are null", nil, "", `{"model":"m"}`, `{"messages":null,"model":"m"}`},
		{"an empty envelope", [][]byte{[]byte(`1`)}, `[]`, `{}`, `{"messages":[1],"tools":[]}`},
	}
	for _, tt := range tests {
		var tools []byte
		if tt.tools != "" {
			tools = []byte(tt.tools)
		}
		got, err := Assemble("messages", tt.parts, tools, []byte(tt.envelope))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", tt.name, got, err)
		}
		if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if _, err := Assemble("messages", nil, nil, []byte(`[]`)); err == nil {
		t.Error("an envelope that is no object was accepted")
	}
}

// TestEncodeCache checks that the cache answers a key it was given, not
// one with a field moved from one input to the next, and starts over at
// its bound.
func TestEncodeCache(t *testing.T) {
	c := &EncodeCache{Max: 10}
	key := func(a, b string) *CacheKey {
		k := new(CacheKey)
		c.Reset(k)
		k.String(a)
		k.String(b)
		return k
	}
	c.Put(key("ab", "c"), []byte("one"))
	if b, ok := c.Get(key("ab", "c")); !ok || string(b) != "one" {
		t.Errorf("Get = %q, %v", b, ok)
	}
	if _, ok := c.Get(key("a", "bc")); ok {
		t.Error("a key with the same bytes split differently was found")
	}
	c.Put(key("x", "y"), []byte("twelve bytes"))
	if _, ok := c.Get(key("ab", "c")); ok || c.Len() != 0 {
		t.Errorf("past its bound the cache kept %d entries", c.Len())
	}
}

// TestBodyReader reads a body through buffers of every small size, and
// through WriteTo, and checks that each gives the joined bytes.
func TestBodyReader(t *testing.T) {
	b, err := AssembleBody("messages", [][]byte{[]byte(`{"a":1}`), []byte(`"x"`), []byte(`{}`)}, []byte(`[{"t":1}]`), []byte(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"a":1},"x",{}],"tools":[{"t":1}],"model":"m"}`
	if got := string(b.Bytes()); got != want || b.Len() != len(want) {
		t.Fatalf("Bytes = %s (Len %d), want %s", got, b.Len(), want)
	}
	for size := 1; size <= len(want)+1; size++ {
		got, err := io.ReadAll(&onlyReader{b.Reader(), size})
		if err != nil || string(got) != want {
			t.Fatalf("read %d bytes at a time: %q, %v", size, got, err)
		}
	}
	var sb strings.Builder
	if n, err := io.Copy(&sb, b.Reader()); err != nil || sb.String() != want || n != int64(len(want)) {
		t.Fatalf("WriteTo: %q (%d), %v", sb.String(), n, err)
	}
}

// onlyReader reads at most size bytes at a time and hides every other
// method of its reader.
type onlyReader struct {
	r    io.Reader
	size int
}

func (o *onlyReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), o.size)]) }
