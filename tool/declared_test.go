package tool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

const wordCount = `{"name": "shout", "description": "Upper-case the text.",
 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
 "command": ["sh", "-c", "tr a-z A-Z"]}`

func TestLoadDeclared(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name      string
		content   string
		wantTools []string
		wantErr   []string
	}{
		{"one tool", wordCount, []string{"shout"}, nil},
		{"array", `[` + wordCount + `, {"name":"b","description":"","input_schema":{"type":"object"},"command":["true"]}]`, []string{"shout", "b"}, nil},
		{"malformed JSON", `{"name": `, nil, []string{"bad.json: not valid JSON"}},
		{"invalid schema keeps the others", `[{"name":"bad","description":"","input_schema":{"type":"object","properties":{"x":{"type":7}}},"command":["true"]},` + wordCount + `]`,
			[]string{"shout"}, []string{"bad.json: tool 1: tool bad: invalid schema"}},
		{"unknown field", `{"name":"x","description":"","input_schema":{"type":"object"},"command":["true"],"cmd":"oops"}`, nil, []string{`unknown field "cmd"`}},
		{"no command", `{"name":"x","description":"","input_schema":{"type":"object"}}`, nil, []string{`"command" must be a non-empty array`}},
		{"bad name", `{"name":"has space","description":"","input_schema":{"type":"object"},"command":["true"]}`, nil, []string{`invalid tool name "has space"`}},
		{"negative timeout", `{"name":"x","description":"","input_schema":{"type":"object"},"command":["true"],"timeout_ms":-1}`, nil, []string{`"timeout_ms" must not be negative`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.json", tt.content)
			tools, err := LoadDeclared(p)
			var got []string
			for _, tl := range tools {
				got = append(got, tl.Name())
			}
			if strings.Join(got, ",") != strings.Join(tt.wantTools, ",") {
				t.Errorf("tools = %v, want %v", got, tt.wantTools)
			}
			if len(tt.wantErr) == 0 && err != nil {
				t.Errorf("unexpected error %v", err)
			}
			for _, w := range tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error = %v, want it to contain %q", err, w)
				}
			}
		})
	}
	if _, err := LoadDeclared(filepath.Join(dir, "missing.json")); !os.IsNotExist(errorsUnwrapAll(err)) {
		t.Errorf("missing file: %v, want a not-exist error", err)
	}
}

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestDeclared_Runs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "fail.sh", "#!/bin/sh\ncat >/dev/null\necho 'no such city' >&2\nexit 3\n")
	tools, err := LoadDeclared(writeFile(t, dir, "tools.json", `[`+wordCount+`,
	  {"name":"fail","description":"","input_schema":{"type":"object"},"command":["./fail.sh"]},
	  {"name":"pwd","description":"","input_schema":{"type":"object"},"command":["pwd"]},
	  {"name":"missing","description":"","input_schema":{"type":"object"},"command":["./no-such-program"]}]`))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r := NewRunner(mustRegistry(t, tools...), nil)
	results, err := r.Run(t.Context(), Call{Root: root}, []Request{
		{Name: "shout", Arguments: json.RawMessage(`{"text":"hi there"}`)},
		{Name: "fail", Arguments: json.RawMessage(`{}`)},
		{Name: "pwd", Arguments: json.RawMessage(`{}`)},
		{Name: "missing", Arguments: json.RawMessage(`{}`)},
		{Name: "shout", Arguments: json.RawMessage(`{"txt":"hi"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !results[0].Success || results[0].Output != `{"TEXT":"HI THERE"}` {
		t.Errorf("shout = %+v, want the arguments JSON upper-cased", results[0])
	}
	if results[1].Success || results[1].Error != "no such city" || results[1].Data.(map[string]any)["exitCode"] != 3 {
		t.Errorf("fail = %+v, want stderr as the error and exit code 3", results[1])
	}
	if got := strings.TrimSpace(results[2].Output); got != ws {
		t.Errorf("pwd = %q, want the workspace %q", got, ws)
	}
	if results[3].Success || !strings.Contains(results[3].Error, "cannot run") {
		t.Errorf("missing program = %+v, want a cannot-run failure", results[3])
	}
	if results[4].Success || !strings.Contains(results[4].Error, "missing property 'text'") {
		t.Errorf("invalid args = %+v, want validation before the command runs", results[4])
	}
}

func TestDeclared_Timeout(t *testing.T) {
	d := Declared{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Command: []string{"sleep", "30"}, TimeoutMs: 200}
	tl, err := d.Tool(".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewRunner(mustRegistry(t, tl), nil).Call(t.Context(), Call{}, Request{Name: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || !strings.HasPrefix(res.Error, "timed out after 200ms") {
		t.Errorf("result = %+v, want \"timed out after 200ms\"", res)
	}
}
