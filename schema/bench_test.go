package schema

import "testing"

// BenchmarkValidate validates a three-field object with the full validator.
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
