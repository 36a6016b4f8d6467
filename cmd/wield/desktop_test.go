package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/tool"
)

func TestDoctorDesktop(t *testing.T) {
	ws := t.TempDir()
	var stdout, stderr bytes.Buffer
	run(t.Context(), []string{"--workdir", ws, "doctor", "--json"}, strings.NewReader(""), &stdout, &stderr)
	var rep doctorReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json output %q: %v", stdout.String(), err)
	}
	if rep.Desktop == nil || !rep.Desktop.Ready || rep.Desktop.Width != 1280 || rep.Desktop.Height != 800 {
		t.Errorf("doctor reports the desktop as %+v, want it ready at 1280x800 (Xvfb is installed)", rep.Desktop)
	}
	stdout.Reset()
	run(t.Context(), []string{"--workdir", ws, "--desktop", "--desktop-size", "640", "doctor", "--json"}, strings.NewReader(""), &stdout, &stderr)
	rep = doctorReport{}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("doctor --json output %q: %v", stdout.String(), err)
	}
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "--desktop-size") {
		t.Errorf("doctor --desktop-size 640: problems %q, want one naming the flag", rep.Problems)
	}
}

func TestCallDesktop(t *testing.T) {
	ws := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workdir", ws, "--desktop", "--desktop-size", "800x600", "call", "--approve", "desktop", `{"action":"screenshot"}`},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("wield --desktop call desktop: exit %d; stderr %q", code, stderr.String())
	}
	var res tool.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("call output %q: %v", stdout.String(), err)
	}
	if len(res.Images) != 1 || res.Images[0].Width != 800 || res.Images[0].Height != 600 || res.Images[0].MIMEType != "image/png" {
		t.Errorf("screenshot result %+v, want one 800x600 PNG", res)
	}
	stdout.Reset()
	if code := run(t.Context(), []string{"--workdir", ws, "call", "--approve", "desktop", `{"action":"screenshot"}`}, strings.NewReader(""), &stdout, &stderr); code == 0 {
		t.Errorf("call desktop without --desktop succeeded: %s", stdout.String())
	}
}
