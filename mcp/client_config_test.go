package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func env(vars map[string]string) *LoadOptions {
	return &LoadOptions{LookupEnv: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}}
}

func TestParseConfig(t *testing.T) {
	no := false
	vars := map[string]string{"HOME": "/home/u", "TOKEN": "t0k", "EMPTY": ""}
	tests := []struct {
		name     string
		file     string
		fromUser bool // the user's own file, where "trust" is honoured
		want     map[string]ServerConfig
		error    []string // substrings of the error; empty means none
	}{
		{name: "claude desktop stdio",
			file: `{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${HOME}/src"],"env":{"DEBUG":"1"}}}}`,
			want: map[string]ServerConfig{"fs": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/u/src"}, Env: map[string]string{"DEBUG": "1"}}}},
		{name: "claude code http and sse",
			file: `{"mcpServers":{
				"gh":{"type":"http","url":"https://api.example.com/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}},
				"old":{"type":"sse","url":"http://127.0.0.1:9/sse"}}}`,
			want: map[string]ServerConfig{
				"gh":  {Type: "http", URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t0k"}},
				"old": {Type: "sse", URL: "http://127.0.0.1:9/sse"}}},
		{name: "wield extras",
			file:     `{"mcpServers":{"x":{"command":"x","enabled":false,"include":["read_*"],"exclude":["read_secret"],"startup_timeout":5,"call_timeout":"90s","trust":true}}}`,
			fromUser: true,
			want: map[string]ServerConfig{"x": {Command: "x", Enabled: &no, Include: []string{"read_*"}, Exclude: []string{"read_secret"},
				StartupTimeout: Duration(5 * time.Second), CallTimeout: Duration(90 * time.Second), Trust: true}}},
		{name: "trust outside the user's file is ignored",
			file:  `{"mcpServers":{"x":{"command":"x","trust":true},"y":{"command":"y"}}}`,
			want:  map[string]ServerConfig{"x": {Command: "x"}, "y": {Command: "y"}},
			error: []string{`mcp server "x": "trust" is ignored: only the user's own mcp.json may trust a server`}},
		{name: "defaults and other keys ignored",
			file: `{"permissions":{},"mcpServers":{"x":{"command":"x","cwd":"ignored","args":["${EMPTY:-d}","${TOKEN:-d}"]}}}`,
			want: map[string]ServerConfig{"x": {Command: "x", Args: []string{"d", "t0k"}}}},
		{name: "disabled needs no command",
			file: `{"mcpServers":{"x":{"enabled":false},"y":{"disabled":true}}}`,
			want: map[string]ServerConfig{"x": {Enabled: &no}, "y": {Disabled: true}}},
		{name: "no servers", file: `{}`, want: map[string]ServerConfig{}},
		{name: "invalid servers are left out, the others kept",
			file: `{"mcpServers":{
				"ok":{"command":"ok"},
				"both":{"command":"x","url":"http://h"},
				"neither":{"args":["a"]},
				"type":{"type":"ws","url":"http://h"},
				"stdio-url":{"type":"stdio","url":"http://h"},
				"http-cmd":{"type":"http","command":"x"},
				"scheme":{"url":"ftp://h"},
				"unset":{"command":"x","env":{"K":"${NOPE}"}},
				"bad-ref":{"command":"x","args":["${1X}"]},
				"unterminated":{"url":"http://h/${TOKEN"},
				"pattern":{"command":"x","include":["["]},
				"timeout":{"command":"x","call_timeout":"soon"},
				"negative":{"command":"x","startup_timeout":-1},
				"header":{"url":"http://h","headers":{"X":"a\nb"}},
				"wrongtype":{"command":3}}}`,
			want: map[string]ServerConfig{"ok": {Command: "ok"}},
			error: []string{
				`mcp server "both": give either "command" (a stdio server) or "url" (an HTTP server), not both`,
				`mcp server "neither": missing "command" (a stdio server) or "url" (an HTTP server)`,
				`"args" and "env" need "command"`,
				`mcp server "type": type "ws" is not one of`,
				`mcp server "stdio-url": type "stdio" needs "command", not "url"`,
				`mcp server "http-cmd": type "http" needs "url", not "command"`,
				`mcp server "scheme": url "ftp://h" must start with http:// or https://`,
				`mcp server "unset": env.K: environment variable NOPE is not set (write ${NOPE:-default} for a default)`,
				`mcp server "bad-ref": args[0]: invalid variable reference ${1X}`,
				`mcp server "unterminated": url: unterminated ${`,
				`mcp server "pattern": include: bad pattern "["`,
				`mcp server "timeout": duration "soon"`,
				`mcp server "negative": duration -1 seconds is out of range`,
				`mcp server "header": headers: value of X contains a line break or NUL`,
				`mcp server "wrongtype": json: cannot unmarshal number`,
			}},
		{name: "syntax error with position", file: "{\n  \"mcpServers\": {,}\n}", error: []string{"line 2, column 18: invalid character ','"}},
		{name: "mcpServers not an object", file: `{"mcpServers":[]}`, error: []string{"cannot unmarshal array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := env(vars)
			opts.FromUser = tt.fromUser
			got, err := ParseConfig([]byte(tt.file), opts)
			if len(tt.error) == 0 && err != nil {
				t.Fatalf("ParseConfig: %v", err)
			}
			for _, w := range tt.error {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(ServerConfig{}, "Transport"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := write("user.json", `{"mcpServers":{"a":{"command":"user-a"},"b":{"command":"user-b","trust":true},"c":{"command":"user-c"},"u":{"command":"user-u","trust":true}}}`)
	project := write("project.json", `{"mcpServers":{"b":{"url":"http://project/b"},"c":{"enabled":false}}}`)
	broken := write("broken.json", `{"mcpServers":`)
	local := write("local.json", `{"mcpServers":{"d":{"command":"local-d"},"e":{"url":"bad"}}}`)
	opts := env(nil)
	opts.UserConfig = user
	got, err := LoadConfig([]string{user, filepath.Join(dir, "missing.json"), project, broken, local}, opts)
	if err == nil || !strings.Contains(err.Error(), "mcp config "+broken) || !strings.Contains(err.Error(), `mcp server "e"`) {
		t.Errorf("error = %v, want the broken file and server e named", err)
	}
	no := false
	want := map[string]ServerConfig{
		"a": {Command: "user-a", Source: user},
		"b": {URL: "http://project/b", Source: project}, // replaced whole: no trust
		"u": {Command: "user-u", Source: user, Trust: true},
		"c": {Enabled: &no, Source: project},
		"d": {Command: "local-d", Source: local},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(ServerConfig{}, "Transport")); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestConfigFiles(t *testing.T) {
	files := ConfigFiles("/ws")
	n := len(files)
	if n < 2 || files[n-2] != filepath.Join("/ws", ".mcp.json") || files[n-1] != filepath.Join("/ws", ".wield", "mcp.json") {
		t.Errorf("ConfigFiles = %v, want the user's file, then .mcp.json, then .wield/mcp.json", files)
	}
	if dir, err := os.UserConfigDir(); err == nil && files[0] != filepath.Join(dir, "wield", "mcp.json") {
		t.Errorf("ConfigFiles[0] = %s, want the user's file", files[0])
	}
}

func TestExpand(t *testing.T) {
	vars := env(map[string]string{"A": "x", "B_2": "y", "E": ""}).LookupEnv
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"$A and $$", "$A and $$", ""},
		{"${A}", "x", ""},
		{"${A}${B_2}/${A}", "xy/x", ""},
		{"${E}", "", ""},
		{"${E:-d}", "d", ""},
		{"${U:-d:-e}", "d:-e", ""},
		{"${U:-}", "", ""},
		{"${U}", "", "environment variable U is not set"},
		{"${}", "", "invalid variable reference ${}"},
		{"${A", "", "unterminated"},
		{"${A-B}", "", "invalid variable reference"},
	}
	for _, tt := range tests {
		got, err := Expand(tt.in, vars)
		if (err != nil) != (tt.err != "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Expand(%q) error = %v, want %q", tt.in, err, tt.err)
			continue
		}
		if got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{`30`, 30 * time.Second, false},
		{`0.5`, 500 * time.Millisecond, false},
		{`"2m"`, 2 * time.Minute, false},
		{`"2"`, 0, true},
		{`true`, 0, true},
		{`1e300`, 0, true},
	}
	for _, tt := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err != nil) != tt.err || time.Duration(d) != tt.want {
			t.Errorf("unmarshal %s = %v, %v; want %v, error %v", tt.in, time.Duration(d), err, tt.want, tt.err)
		}
	}
	if b, _ := json.Marshal(Duration(90 * time.Second)); string(b) != `"1m30s"` {
		t.Errorf("marshal = %s", b)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["${A:-b}"],"env":{"K":"${A}"}}}}`))
	f.Add([]byte(`{"mcpServers":{"b":{"url":"http://h","headers":{"A":"${B}"},"call_timeout":"1s","include":["*"]}}}`))
	f.Add([]byte(`{"mcpServers":{"":{},"c":{"enabled":false,"startup_timeout":1e9}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, _ := ParseConfig(data, env(map[string]string{"A": "1"}))
		for name, sc := range servers {
			if err := sc.Validate(name); err != nil {
				t.Errorf("ParseConfig kept server %q that does not validate: %v", name, err)
			}
		}
	})
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${A}", "${A:-x}", "a${", "${}", "$${A}}", "${A}${B:-${C}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Expand(s, func(string) (string, bool) { return "v", true })
		if err == nil && !strings.Contains(s, "${") && got != s {
			t.Errorf("Expand(%q) = %q changed a string without references", s, got)
		}
	})
}
