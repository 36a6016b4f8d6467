package main

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Budgets for the package initialisation of wield's own packages, which
// runs at every start of every command (issue 25: wield mcp answers
// initialize within 10 ms of exec). They are counted in allocations and
// bytes, which unlike time do not vary with the machine's load. Work that
// a command may not need belongs in a sync.OnceValue, not in a
// package-level variable or an init function.
const (
	ownInitAllocs = 3000
	ownInitBytes  = 320 << 10
)

// inittrace matches a line of GODEBUG=inittrace=1 output.
var inittrace = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, [0-9.]+ ms clock, ([0-9]+) bytes, ([0-9]+) allocs$`)

// TestInitBudget builds wield, starts it with GODEBUG=inittrace=1 and
// keeps what the initialisation of wield's own packages (and of main)
// allocates within the budgets. It builds the binary rather than use the
// test binary, whose test files add initialisation of their own.
func TestInitBudget(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build wield with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "wield")
	if out, err := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	if err := cmd.Run(); err != nil {
		t.Fatalf("wield --version: %v\n%s", err, stderr.Bytes())
	}
	type pkgInit struct {
		pkg           string
		bytes, allocs int64
	}
	var own []pkgInit
	var allocs, size int64
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := inittrace.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != "main" && !strings.HasPrefix(m[1], "github.com/wieldhq/wield/") {
			continue
		}
		b, _ := strconv.ParseInt(m[2], 10, 64)
		a, _ := strconv.ParseInt(m[3], 10, 64)
		own = append(own, pkgInit{m[1], b, a})
		allocs += a
		size += b
	}
	if len(own) == 0 {
		t.Fatalf("GODEBUG=inittrace=1 reported no wield package:\n%s", stderr.Bytes())
	}
	if allocs <= ownInitAllocs && size <= ownInitBytes {
		return
	}
	slices.SortFunc(own, func(a, b pkgInit) int { return cmp.Compare(b.allocs, a.allocs) })
	var b strings.Builder
	for _, p := range own[:min(10, len(own))] {
		fmt.Fprintf(&b, "\n  %6d allocs %8d bytes  %s", p.allocs, p.bytes, p.pkg)
	}
	t.Errorf("wield's packages allocate %d times (budget %d), %d bytes (budget %d), at init; the most:%s\n"+
		"make package-level work lazy (a regexp.MustCompile or template.Must in a sync.OnceValue), rather than raise the budget",
		allocs, ownInitAllocs, size, ownInitBytes, b.String())
}
