package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name       string
		doc        string
		into       any
		line, col  int
		wantNoLine bool
	}{
		{name: "syntax on line 3", doc: "{\n  \"a\": 1,\n  \"b\": ]\n}", into: new(map[string]any), line: 3, col: 8},
		{name: "type on line 2", doc: "{\n  \"n\": \"x\"\n}", into: new(struct{ N int }), line: 2, col: 11},
		{name: "end of input", doc: "{\"a\": ", into: new(map[string]any), wantNoLine: false, line: 1, col: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tt.doc), tt.into)
			if err == nil {
				t.Fatal("no error")
			}
			line, col, ok := Line([]byte(tt.doc), err)
			if ok == tt.wantNoLine || line != tt.line || col != tt.col {
				t.Errorf("Line = %d, %d, %v, want %d, %d", line, col, ok, tt.line, tt.col)
			}
		})
	}
	if _, _, ok := Line(nil, errors.New("other")); ok {
		t.Error("Line found a position in an error without one")
	}
}

func TestWrap(t *testing.T) {
	doc := []byte("{\n  \"a\": ]\n}")
	var v any
	err := Wrap("x.json", doc, json.Unmarshal(doc, &v))
	if !strings.HasPrefix(err.Error(), "x.json:2:8: ") {
		t.Errorf("Wrap = %q", err)
	}
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Error("Wrap lost the *json.SyntaxError")
	}
	if Wrap("x", nil, nil) != nil {
		t.Error("Wrap(nil) != nil")
	}
}
