package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func parseAll(chunks ...string) []string {
	var p sseParser
	var got []string
	for _, c := range chunks {
		p.feed([]byte(c), func(b []byte) { got = append(got, string(b)) })
	}
	return got
}

func TestSSEParser(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"one event", "event: message\ndata: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"crlf", "data: {\"a\":1}\r\n\r\ndata: 2\r\n\r\n", []string{`{"a":1}`, "2"}},
		{"bare cr", "data: x\r\rdata: y\r\r", []string{"x", "y"}},
		{"priming event dropped", "id: 1\nretry: 500\ndata: \n\ndata: {}\n\n", []string{"{}"}},
		{"comments and other fields", ": ping\nid: 7\nevent: message\ndata:no-space\n\n", []string{"no-space"}},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"unterminated event kept back", "data: 1\n\ndata: 2\n", []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseAll(tt.stream); !slices.Equal(got, tt.want) {
				t.Errorf("whole: got %q, want %q", got, tt.want)
			}
			var bytewise []string
			for _, c := range tt.stream {
				bytewise = append(bytewise, string(c))
			}
			if got := parseAll(bytewise...); !slices.Equal(got, tt.want) {
				t.Errorf("byte by byte: got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzSSEParser checks that where a stream is cut makes no difference.
func FuzzSSEParser(f *testing.F) {
	f.Add("data: {\"a\":1}\r\n\r\ndata: 2\n\n", 3)
	f.Add("id: 1\nretry: 5\ndata: \n\n: c\ndata: x\ndata: y\n\n", 20)
	f.Add("data: a\r\rdata: b\r\n\r\n", 8)
	f.Fuzz(func(t *testing.T, stream string, cut int) {
		if cut < 0 || cut > len(stream) {
			cut = len(stream) / 2
		}
		whole := parseAll(stream)
		split := parseAll(stream[:cut], stream[cut:])
		if !slices.Equal(whole, split) {
			t.Errorf("cut at %d: %q, whole: %q", cut, split, whole)
		}
	})
}

// schemaDir is the shared conformance data beside the repository. When it
// is absent the test fails: always in CI (where CI is set), and elsewhere
// unless WIELD_ALLOW_SKIP=1 allows a skip.
func schemaDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "conformance", "mcp-schema"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2025-11-25", "schema.json")); err != nil {
		msg := "no MCP schemas at " + dir + " (the shared conformance data is not checked out)"
		if os.Getenv("CI") == "" && os.Getenv("WIELD_ALLOW_SKIP") == "1" {
			t.Skip(msg)
		}
		t.Fatal(msg + "; outside CI, WIELD_ALLOW_SKIP=1 turns this into a skip")
	}
	return dir
}

func TestCheck(t *testing.T) {
	revs, err := loadSchemas(schemaDir(t))
	if err != nil {
		t.Fatal(err)
	}
	const (
		initReq  = `{"dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`
		initResp = `{"dir":"recv","frame":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`
		callReq  = `{"dir":"send","frame":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}`
	)
	tests := []struct {
		name    string
		records []string
		invalid []string // a substring of each problem, in order
		revs    []string
	}{
		{"a valid session", []string{initReq, initResp, callReq,
			`{"dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}}`},
			nil, []string{"2025-11-25"}},
		{"revision from initialize", []string{
			strings.Replace(initReq, "2025-11-25", "2025-06-18", 1), strings.Replace(initResp, "2025-11-25", "2025-06-18", 1)},
			nil, []string{"2025-06-18"}},
		{"result of the wrong shape", []string{initReq, initResp, callReq,
			`{"dir":"recv","frame":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text"}]}}}`},
			[]string{"response to tools/call"}, nil},
		{"bad request params", []string{initReq, initResp,
			`{"dir":"send","frame":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}}`},
			[]string{"request tools/call"}, nil},
		{"null id on an error", []string{`{"dir":"recv","frame":{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}}`},
			[]string{"response id null"}, nil},
		{"error without id", []string{`{"dir":"recv","frame":{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}}`},
			nil, nil},
		{"wrong sender", []string{`{"dir":"recv","frame":{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x"}}}`},
			[]string{"server does not send tools/call"}, nil},
		{"not JSON", []string{`{"dir":"recv","raw":"log line on stdout"}`}, []string{"not JSON"}, nil},
		{"a batch", []string{`{"dir":"send","frame":[{"jsonrpc":"2.0","method":"notifications/initialized"}]}`}, []string{"batch"}, nil},
		{"2026 revision from _meta", []string{
			`{"dir":"send","frame":{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}}`},
			nil, []string{"2026-07-28"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "frames.jsonl")
			if err := os.WriteFile(file, []byte(strings.Join(tt.records, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := checkFile(revs, file)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.problems) != len(tt.invalid) {
				t.Fatalf("problems = %q, want %d matching %q", rep.problems, len(tt.invalid), tt.invalid)
			}
			for i, want := range tt.invalid {
				if !strings.Contains(rep.problems[i], want) {
					t.Errorf("problem %d = %q, want it to mention %q", i, rep.problems[i], want)
				}
			}
			for _, r := range tt.revs {
				if rep.revs[r] == 0 {
					t.Errorf("revisions = %v, want %s used", rep.revs, r)
				}
			}
		})
	}
}
