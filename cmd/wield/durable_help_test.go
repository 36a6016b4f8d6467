package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDurableCommandsSayTheBuild: wield --help lists worker and approve,
// and in a build that cannot run them says so on their line.
func TestDurableCommandsSayTheBuild(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("wield --help: exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"worker", "approve"} {
		var line string
		for _, l := range strings.Split(stdout.String(), "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				line = l
			}
		}
		if line == "" || !strings.HasSuffix(line, temporalNote) {
			t.Errorf("the help's line for %s is %q, want it to end with %q", name, line, temporalNote)
		}
	}
}
