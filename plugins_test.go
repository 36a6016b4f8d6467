package wield_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/mcp"
	"github.com/wieldhq/wield/plugin"
	"github.com/wieldhq/wield/session"
)

// TestTrustedPlugins: an enabled plugin whose content still has the
// trusted hash loads, and its MCP servers join a manager with their
// secrets hidden; once its content changes it is left out, with a warning
// that carries the caller's hint.
func TestTrustedPlugins(t *testing.T) {
	newWorkspace(t) // HOME and the user's configuration of the test's own
	src := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".wield-plugin/plugin.json", `{"name": "lint", "version": "1.0.0",
	  "mcpServers": {"mcpServers": {"web": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer plugin-secret-token-123"}}}}}`)
	reg, err := wield.PluginRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(src, src); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	hint := func(name string) string { return "enable " + name }
	if got := wield.TrustedPlugins(logger, hint); len(got) != 0 {
		t.Fatalf("a plugin not enabled loaded: %v", got)
	}
	h, err := plugin.Hash(reg.PluginDir("lint"))
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Enable("lint", h); err != nil {
		t.Fatal(err)
	}
	plugins := wield.TrustedPlugins(logger, hint)
	if len(plugins) != 1 || plugins[0].Name() != "lint" {
		t.Fatalf("TrustedPlugins = %v, want the plugin lint", plugins)
	}

	mgr := mcp.NewManager(nil, nil)
	defer mgr.Close()
	secrets := &session.SecretSet{}
	wield.AddPluginServers(mgr, plugins, secrets, logger)
	if st := mgr.Status(); len(st) != 1 || st[0].Name != "lint_web" {
		t.Errorf("the manager's servers: %+v, want lint_web", st)
	}
	if got := secrets.Redact("Bearer plugin-secret-token-123"); strings.Contains(got, "plugin-secret-token-123") {
		t.Errorf("the server's header is not hidden: %q", got)
	}

	if err := os.WriteFile(filepath.Join(reg.PluginDir("lint"), "more.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if got := wield.TrustedPlugins(logger, hint); len(got) != 0 {
		t.Errorf("a plugin changed since it was trusted loaded: %v", got)
	}
	if !strings.Contains(log.String(), "plugin changed since you trusted it") || !strings.Contains(log.String(), "fix=\"enable lint\"") {
		t.Errorf("log %q: want the change and the hint", log.String())
	}
}
