package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// otlpSpan is a span as the collector's file exporter writes it (OTLP
// JSON), with its resource's service.name.
type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Kind         int    `json:"kind"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			String *string  `json:"stringValue"`
			Int    *string  `json:"intValue"`
			Double *float64 `json:"doubleValue"`
			Bool   *bool    `json:"boolValue"`
		} `json:"value"`
	} `json:"attributes"`
	StartTimeUnixNano string `json:"startTimeUnixNano"`
}

// attr returns the attribute key of s as text, and whether it is set.
func (s *otlpSpan) attr(key string) (string, bool) {
	for _, a := range s.Attributes {
		if a.Key != key {
			continue
		}
		switch v := a.Value; {
		case v.String != nil:
			return *v.String, true
		case v.Int != nil:
			return *v.Int, true
		case v.Bool != nil:
			return strconv.FormatBool(*v.Bool), true
		case v.Double != nil:
			return strconv.FormatFloat(*v.Double, 'f', 3, 64), true
		}
		return "", true
	}
	return "", false
}

// OTLP span kinds.
const (
	kindInternal = 1
	kindServer   = 2
	kindClient   = 3
)

// collector is a running OpenTelemetry Collector that writes what it
// receives to a file.
type collector struct {
	cmd      *exec.Cmd
	out      string
	endpoint string
	logDone  chan struct{}
	log      bytes.Buffer
}

// startCollector starts the collector binary named by WIELD_OTELCOL
// (scripts/test.sh builds it from otel/internal/collector) on a free
// port of 127.0.0.1, and returns once it says it is ready.
func startCollector(t *testing.T) *collector {
	t.Helper()
	bin := os.Getenv("WIELD_OTELCOL")
	if bin == "" {
		if os.Getenv("WIELD_ALLOW_SKIP") == "1" && os.Getenv("CI") == "" {
			t.Skip("WIELD_OTELCOL is not set (WIELD_ALLOW_SKIP=1)")
		}
		t.Fatal("WIELD_OTELCOL is not set: run scripts/test.sh, which builds the test collector (otel/internal/collector) and sets it; " +
			"or build it with (cd otel/internal/collector && go build -o /tmp/otelcol .) and set WIELD_OTELCOL=/tmp/otelcol")
	}
	// A free port: the collector cannot report the one it was given.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	c := &collector{out: filepath.Join(dir, "spans.jsonl"), endpoint: "http://" + addr, logDone: make(chan struct{})}
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  file:
    path: %s
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file]
`, addr, c.out)
	cfgPath := filepath.Join(dir, "collector.yaml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(bin, "--config="+cfgPath)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start the collector %s: %v", bin, err)
	}
	ready := make(chan bool, 1)
	go func() {
		defer close(c.logDone)
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			c.log.Write(sc.Bytes())
			c.log.WriteByte('\n')
			if !said && strings.Contains(sc.Text(), "Everything is ready") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	if !<-ready {
		<-c.logDone
		_ = c.cmd.Wait()
		t.Fatalf("the collector stopped before it was ready:\n%s", c.log.String())
	}
	return c
}

// stop shuts the collector down (it flushes its exporter) and returns
// the spans it received.
func (c *collector) stop(t *testing.T) []*otlpSpan {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-c.logDone
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("collector: %v\n%s", err, c.log.String())
	}
	data, err := os.ReadFile(c.out)
	if err != nil {
		t.Fatalf("the collector wrote nothing: %v\n%s", err, c.log.String())
	}
	var spans []*otlpSpan
	for line := range bytes.Lines(data) {
		var batch struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []*otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &batch); err != nil {
			t.Fatalf("collector output: %v: %s", err, line)
		}
		for _, rs := range batch.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return spans
}

// spanTree renders spans as an indented tree, children in start order,
// each line the span's name and, for MCP spans, its kind; with detail,
// the attributes that say most follow.
func spanTree(spans []*otlpSpan, detail ...string) string {
	byID := map[string]*otlpSpan{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	kids := map[string][]*otlpSpan{}
	var roots []*otlpSpan
	for _, s := range spans {
		if _, ok := byID[s.ParentSpanID]; ok {
			kids[s.ParentSpanID] = append(kids[s.ParentSpanID], s)
		} else {
			roots = append(roots, s)
		}
	}
	start := func(s *otlpSpan) uint64 { n, _ := strconv.ParseUint(s.StartTimeUnixNano, 10, 64); return n }
	var b strings.Builder
	var walk func(s *otlpSpan, depth int)
	walk = func(s *otlpSpan, depth int) {
		name := s.Name
		switch s.Kind {
		case kindClient:
			name += " (client)"
		case kindServer:
			name += " (server)"
		}
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), name)
		for _, k := range detail {
			if v, ok := s.attr(k); ok {
				fmt.Fprintf(&b, " %s=%s", k, v)
			}
		}
		b.WriteByte('\n')
		k := kids[s.SpanID]
		slices.SortStableFunc(k, func(x, y *otlpSpan) int {
			if start(x) < start(y) {
				return -1
			}
			if start(x) > start(y) {
				return 1
			}
			return 0
		})
		for _, c := range k {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

// mcpServer is "wield mcp --http" in a process of its own, tracing to the
// collector the environment names.
type mcpServer struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	log  bytes.Buffer
}

// startMCPServer starts this test binary as "wield mcp --http" on a free
// port (see TestMain) and returns once it serves. The server is a
// process of its own, over HTTP rather than stdio: a stdio server's
// client kills it as soon as it closes the session, before its last spans
// are flushed, while SIGTERM lets this one shut down cleanly.
func startMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wield := filepath.Join(t.TempDir(), "wield")
	if err := os.Symlink(self, wield); err != nil {
		t.Fatal(err)
	}
	s := &mcpServer{done: make(chan struct{})}
	s.cmd = exec.Command(wield, "--workdir", t.TempDir(), "--no-mcp", "mcp", "--tools", "echo", "--http", "127.0.0.1:0")
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			<-s.done
			_ = s.cmd.Wait()
		}
	})
	addr := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			s.log.Write(sc.Bytes())
			s.log.WriteByte('\n')
			if u, ok := strings.CutPrefix(sc.Text(), "wield: serving MCP on "); ok && !said {
				said = true
				addr <- u
			}
		}
		if !said {
			addr <- ""
		}
	}()
	if s.url = <-addr; s.url == "" {
		<-s.done
		t.Fatalf("wield mcp --http stopped before serving:\n%s", s.log.String())
	}
	return s
}

// stop ends the server with SIGTERM, as a service manager would; it
// flushes its spans on the way out.
func (s *mcpServer) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-s.done
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("wield mcp --http: %v\n%s", err, s.log.String())
	}
}

// TestTracing_collector runs a scripted session, with an MCP call to a
// wield MCP server (a process of its own, which traces too) and a
// subagent, against a real OpenTelemetry Collector, and checks the span
// tree the collector received, the key attributes, that the MCP server's
// span continues the client's trace, and that the journal names the spans.
func TestTracing_collector(t *testing.T) {
	col := startCollector(t)
	ws := t.TempDir()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "wield-test")
	t.Setenv("OTEL_METRICS_EXPORTER", "none") // metrics are checked in package otel
	home := t.TempDir()
	t.Setenv("WIELD_HOME", home)
	t.Setenv("WIELD_TRUST", "1") // the workspace's .mcp.json is the test's own
	srv := startMCPServer(t)
	files := map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".mcp.json":            `{"mcpServers": {"self": {"url": ` + strconv.Quote(srv.url) + `}}}`,
		".wield/settings.json": `{"permissions": {"allow": ["mcp__self__echo", "agent"]}}`,
		"script.jsonl": `{"turn": 1, "round": 1, "tool_calls": [{"id": "m1", "name": "mcp__self__echo", "arguments": {"text": "traced"}}], "usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 40}}
{"turn": 1, "round": 2, "tool_calls": [{"id": "a1", "name": "agent", "arguments": {"type": "general", "prompt": "Count the Go files."}}], "usage": {"input_tokens": 150, "output_tokens": 12}}
{"turn": 1, "round": 3, "text": "Done: 3 Go files.", "usage": {"input_tokens": 200, "output_tokens": 5}}
{"when": "Count the Go files.", "round": 1, "tool_calls": [{"id": "k1", "name": "complete_task", "arguments": {"status": "done", "result": "3 Go files"}}], "usage": {"input_tokens": 50, "output_tokens": 7}}
`,
	}
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workdir", ws, "run", "--new", "--session", "traced", "--replay", filepath.Join(ws, "script.jsonl"), "count the Go files"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("wield run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	srv.stop(t)
	spans := col.stop(t)

	want := `invoke_agent wield
  chat replay (client)
  execute_tool mcp__self__echo
    tools/call echo (client)
      tools/call echo (server)
  chat replay (client)
  execute_tool agent
    invoke_agent general
      chat replay (client)
      execute_tool complete_task
  chat replay (client)
`
	got := spanTree(spans)
	t.Logf("span tree:\n%s", spanTree(spans, "gen_ai.conversation.id", "gen_ai.tool.call.id", "gen_ai.usage.input_tokens",
		"gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens", "wield.policy.decision", "wield.tool.queue_wait_ms",
		"wield.tool.run_ms", "network.transport", "wield.stop_reason"))
	if got != want {
		t.Fatalf("span tree:\n%s\nwant:\n%s\nthe MCP server's log:\n%s", got, want, srv.log.String())
	}
	named := func(name string, kind int) *otlpSpan {
		for _, s := range spans {
			if s.Name == name && s.Kind == kind {
				return s
			}
		}
		t.Fatalf("no span %s of kind %d", name, kind)
		return nil
	}
	root := named("invoke_agent wield", kindInternal)
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			t.Errorf("span %s is in trace %s, want the run's %s", s.Name, s.TraceID, root.TraceID)
		}
	}
	checks := []struct {
		span       *otlpSpan
		key, value string
	}{
		{root, "gen_ai.operation.name", "invoke_agent"},
		{root, "gen_ai.conversation.id", "traced"},
		{root, "gen_ai.agent.name", "wield"},
		{root, "wield.stop_reason", "answer"},
		{named("invoke_agent general", kindInternal), "gen_ai.conversation.id", "traced.1"},
		{named("invoke_agent general", kindInternal), "wield.parent_call.id", "a1"},
		{named("execute_tool mcp__self__echo", kindInternal), "gen_ai.tool.call.id", "m1"},
		{named("execute_tool mcp__self__echo", kindInternal), "wield.policy.decision", "allow"},
		{named("execute_tool agent", kindInternal), "gen_ai.operation.name", "execute_tool"},
		{named("tools/call echo", kindClient), "mcp.method.name", "tools/call"},
		{named("tools/call echo", kindClient), "network.transport", "tcp"},
		{named("tools/call echo", kindServer), "mcp.method.name", "tools/call"},
		{named("tools/call echo", kindServer), "gen_ai.tool.name", "echo"},
	}
	for _, c := range checks {
		if v, _ := c.span.attr(c.key); v != c.value {
			t.Errorf("%s: %s = %q, want %q", c.span.Name, c.key, v, c.value)
		}
	}
	chats := 0
	for _, s := range spans {
		if s.Name != "chat replay" {
			continue
		}
		chats++
		for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens", "gen_ai.response.time_to_first_chunk"} {
			if _, ok := s.attr(k); !ok {
				t.Errorf("a chat span has no %s", k)
			}
		}
	}
	if v, _ := named("chat replay", kindClient).attr("gen_ai.usage.cache_read.input_tokens"); v != "40" {
		t.Errorf("the first chat's gen_ai.usage.cache_read.input_tokens = %q, want 40", v)
	}
	ex := named("execute_tool mcp__self__echo", kindInternal)
	// No one was asked (a rule allows the call), so no approval wait.
	for _, k := range []string{"wield.tool.queue_wait_ms", "wield.tool.run_ms"} {
		if _, ok := ex.attr(k); !ok {
			t.Errorf("execute_tool has no %s", k)
		}
	}
	// The journal ties the tool's result to its span.
	journal, err := os.ReadFile(filepath.Join(home, "sessions", "traced.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"span_id":"` + ex.SpanID + `"`; !bytes.Contains(journal, []byte(want)) {
		t.Errorf("the journal has no record with %s", want)
	}
}
