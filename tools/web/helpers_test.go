package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wieldhq/wield/tool"
)

// testResolver answers lookups from a table: each host has a list of
// answers, given in turn, the last one repeated. It counts lookups.
type testResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

func newTestResolver(answers map[string][]string) *testResolver {
	r := &testResolver{answers: map[string][][]netip.Addr{}, calls: map[string]int{}}
	for host, seq := range answers {
		for _, a := range seq {
			var addrs []netip.Addr
			for _, s := range splitComma(a) {
				addrs = append(addrs, netip.MustParseAddr(s))
			}
			r.answers[host] = append(r.answers[host], addrs)
		}
	}
	return r
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func (r *testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq, ok := r.answers[host]
	if !ok {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	n := r.calls[host]
	r.calls[host]++
	return seq[min(n, len(seq)-1)], nil
}

func (r *testResolver) lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

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
