package web

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// tools builds the web tools from cfg and returns them by name.
func tools(t *testing.T, cfg Config) (search, fetch *tool.Tool) {
	t.Helper()
	ts, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ts[0], ts[1]
}

// call runs tl with args through a runner, so that arguments are
// validated as the model's would be, in a workspace at root (nil for
// none). The runner does not cut the output: the tests see all of it.
func call(t testing.TB, tl *tool.Tool, args any, root *os.Root) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.NewRunner(reg, &tool.RunnerOptions{OutputLimit: 1 << 30, SpillDir: t.TempDir()}).Call(context.Background(), tool.Call{SessionID: "s1", Root: root}, tool.Request{Name: tl.Name(), Arguments: b})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// conformanceDir returns ../shared/conformance/sub beside the repository.
func conformanceDir(t testing.TB, sub string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "conformance", sub))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("conformance data not found at ../shared/conformance/%s (it sits beside the repository): %v", sub, err)
	}
	return p
}

func loopback() []netip.Prefix { return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} }
