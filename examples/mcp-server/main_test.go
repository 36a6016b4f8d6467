package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveEnv, set in the test binary's environment, makes it the server:
// TestMain runs main instead of the tests, so that a client starts it as
// a command, as an MCP client starts the example.
const serveEnv = "MCP_SERVER_EXAMPLE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestServe(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "poem.txt"), []byte("so much depends\nupon a red wheel barrow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-workspace", ws)
	cmd.Env = append(os.Environ(), serveEnv+"=1", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "WIELD_HOME=")
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if !cmd.ProcessState.Success() {
			t.Errorf("the server ended with %v, want success once the client closed its end", cmd.ProcessState)
		}
	}()
	if got := cs.InitializeResult().ServerInfo.Name; got != "words" {
		t.Errorf("server name = %q, want words", got)
	}

	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.Name == "word_count" && tl.OutputSchema == nil {
			t.Errorf("word_count has no output schema")
		}
	}
	if diff := cmp.Diff([]string{"glob", "read_file", "word_count"}, sortedCopy(names)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	tests := []struct {
		name       string
		tool       string
		args       map[string]any
		wantError  bool
		wantText   string
		wantStruct string
	}{
		{name: "count", tool: "word_count", args: map[string]any{"path": "poem.txt"},
			wantText: "poem.txt: 2 lines, 8 words, 40 characters", wantStruct: `{"lines":2,"runes":40,"words":8}`},
		{name: "missing file", tool: "word_count", args: map[string]any{"path": "nope.txt"}, wantError: true,
			wantText: "cannot read nope.txt"},
		{name: "out of the workspace", tool: "word_count", args: map[string]any{"path": "../poem.txt"}, wantError: true,
			wantText: "path escapes from parent"},
		{name: "bad arguments", tool: "word_count", args: map[string]any{"file": "poem.txt"}, wantError: true,
			wantText: "missing property 'path'"},
		{name: "wield's read_file", tool: "read_file", args: map[string]any{"path": "poem.txt"},
			wantText: "upon a red wheel barrow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			if res.IsError != tt.wantError || !strings.Contains(text.String(), tt.wantText) {
				t.Errorf("%s(%v) = error %v, %q; want error %v, text containing %q", tt.tool, tt.args, res.IsError, text.String(), tt.wantError, tt.wantText)
			}
			if tt.wantStruct != "" {
				got, err := json.Marshal(res.StructuredContent)
				if err != nil || string(got) != tt.wantStruct {
					t.Errorf("%s(%v) structured content = %s (%v), want %s", tt.tool, tt.args, got, err, tt.wantStruct)
				}
			}
		})
	}
}

func sortedCopy(s []string) []string {
	s = append([]string(nil), s...)
	slices.Sort(s)
	return s
}
