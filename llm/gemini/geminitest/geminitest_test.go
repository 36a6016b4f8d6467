package geminitest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		path, model string
		vertex, ok  bool
	}{
		{"/v1beta/models/gemini-2.5-pro:streamGenerateContent", "gemini-2.5-pro", false, true},
		{"/proxy/v1/projects/p/locations/global/publishers/google/models/m:streamGenerateContent", "m", true, true},
		{"/v1beta/models/m:generateContent", "", false, false},
		{"/v1beta/models/a/b:streamGenerateContent", "", false, false},
	} {
		model, vertex, ok := parsePath(tc.path)
		if model != tc.model || vertex != tc.vertex || ok != tc.ok {
			t.Errorf("parsePath(%q) = %q, %v, %v; want %q, %v, %v", tc.path, model, vertex, ok, tc.model, tc.vertex, tc.ok)
		}
	}
}

// TestPosition counts turns and rounds as replay.Position does: function
// responses are not a new turn.
func TestPosition(t *testing.T) {
	req := Request{Body: json.RawMessage(`{"contents":[
		{"role":"user","parts":[{"text":"a"}]},
		{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]},
		{"role":"model","parts":[{"text":"done"}]},
		{"role":"user","parts":[{"text":"b"}]},
		{"role":"model","parts":[{"text":"","thoughtSignature":"czE="}]},
		{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"y"}}}]}
	]}`)}
	if err := decode(&req); err != nil {
		t.Fatal(err)
	}
	if req.Turn != 2 || req.Round != 2 {
		t.Errorf("position (%d, %d), want (2, 2)", req.Turn, req.Round)
	}
	if th := req.Messages[5].Thinking; len(th) != 1 || th[0].Signature != "czE=" {
		t.Errorf("thinking %+v", th)
	}
}

// TestDecodeRejectsWhatTheAPIRejects checks the parts the API refuses.
func TestDecodeRejectsWhatTheAPIRejects(t *testing.T) {
	for _, body := range []string{
		`{"contents":[]}`,
		`{"contents":[{"role":"user","parts":[{"thoughtSignature":"czE="}]}]}`,
		`{"contents":[{"role":"model","parts":[{"text":"a","functionCall":{"name":"f"}}]}]}`,
		`{"contents":[{"role":"assistant","parts":[{"text":"a"}]}]}`,
	} {
		req := Request{Body: json.RawMessage(body)}
		if err := decode(&req); err == nil {
			t.Errorf("decode(%s) succeeded, want an error", body)
		}
	}
}

func TestPartialArgs(t *testing.T) {
	steps, err := PartialArgs(json.RawMessage(`{"a":{"b c":[1,true,null]},"s":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, string(s))
	}
	want := []string{
		`{"jsonPath":"$.a['b c'][0]","numberValue":1}`,
		`{"boolValue":true,"jsonPath":"$.a['b c'][1]"}`,
		`{"jsonPath":"$.a['b c'][2]","nullValue":"NULL_VALUE"}`,
		`{"jsonPath":"$.s","stringValue":"x","willContinue":true}`,
		`{"jsonPath":"$.s","stringValue":""}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PartialArgs (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"a":{}}`, `{"a":[]}`, `[1]`, `{"it's":1}`} {
		if _, err := PartialArgs(json.RawMessage(bad)); err == nil || strings.Contains(err.Error(), "panic") {
			t.Errorf("PartialArgs(%s) succeeded, want an error", bad)
		}
	}
}
