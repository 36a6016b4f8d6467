package schema

import "testing"

// BenchmarkValidate validates a three-field object (the quick path).
func BenchmarkValidate(b *testing.B) {
	s := MustCompile([]byte(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"},"force":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`))
	doc := []byte(`{"path":"src/main.go","limit":200,"force":true}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_Full validates against a schema outside the quick
// subset ("pattern"), so the full validator runs.
func BenchmarkValidate_Full(b *testing.B) {
	s := MustCompile([]byte(`{"type":"object","properties":{"path":{"type":"string","pattern":"^src/"},"limit":{"type":"integer"},"force":{"type":"boolean"}},"required":["path"],"additionalProperties":false}`))
	doc := []byte(`{"path":"src/main.go","limit":200,"force":true}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_Escaped validates a write-file style object whose
// content has escapes (newlines, quotes), which the quick path decodes as
// it goes.
func BenchmarkValidate_Escaped(b *testing.B) {
	s := MustCompile([]byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`))
	doc := []byte(`{"path":"main.go","content":"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
}
