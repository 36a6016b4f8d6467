package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzUnknownKeys: on any document, the key report never panics, names
// only keys the document has, and reports nothing for a document made of
// known keys only (the document re-encoded from its decoded form).
func FuzzUnknownKeys(f *testing.F) {
	f.Add(`{"model": "x", "baseUrl": "y"}`)
	f.Add(`{"catalog": {"providers": [{"name": "p", "baseurl": 1}]}, "tools": ["a"]}`)
	f.Add(`{"permissions": {"allow": ["x"], "defaultmode": "plan"}, "hooks": {"PreToolUse": [{"hook": []}]}}`)
	f.Add(`[1, 2]`)
	f.Add(`not json`)
	typ := reflect.TypeFor[runConfig]() // the richest: nested structs, lists, a catalogue
	f.Fuzz(func(t *testing.T, doc string) {
		reports := unknownKeys([]byte(doc), typ, nil)
		for _, r := range reports {
			key, _, _ := strings.Cut(strings.TrimPrefix(r, `unknown key "`), `"`)
			last := key[strings.LastIndex(key, ".")+1:]
			if i := strings.IndexByte(last, '['); i > 0 {
				last = last[:i]
			}
			// A key written with escapes, or with bytes that are not UTF-8
			// (decoded as U+FFFD), is reported as decoded.
			if !strings.Contains(doc, last) && !strings.Contains(doc, `\`) && utf8.ValidString(doc) {
				t.Errorf("reported %q, which %q does not have", r, doc)
			}
		}
		// Decoding keeps only known keys; their report is empty.
		v := reflect.New(typ)
		if json.Unmarshal([]byte(doc), v.Interface()) != nil {
			return
		}
		known, err := json.Marshal(v.Interface())
		if err != nil {
			return
		}
		if r := unknownKeys(known, typ, nil); len(r) > 0 {
			t.Errorf("the known keys of %q, %s, are reported: %q", doc, known, r)
		}
	})
}

func TestUnknownKeysNearest(t *testing.T) {
	tests := []struct{ key, want string }{
		{"baseUrl", "base_url"},
		{"max_round", "max_rounds"},
		{"systemPrompt", "system_prompt"},
		{"colour", ""},
	}
	names := []string{"model", "base_url", "api_key", "max_rounds", "tools", "system_prompt", "expire_tool_results", "catalog"}
	for _, tt := range tests {
		if got := nearest(tt.key, names); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
