package desktop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/sandbox"

	"github.com/wieldhq/wield/tool"
)

// newTestDesktop returns a started desktop closed at the end of the test.
func newTestDesktop(t testing.TB, cfg Config) *Desktop {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.mu.Lock()
	err = d.start(t.Context())
	d.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// call calls the desktop tool with in through a runner, as an agent
// would, and fails the test unless the call succeeds.
func call(t *testing.T, d *Desktop, in string) tool.Result {
	t.Helper()
	res := callResult(t, d, in)
	if !res.Success {
		t.Fatalf("desktop %s: %s", in, res.Error)
	}
	return res
}

func callResult(t *testing.T, d *Desktop, in string) tool.Result {
	t.Helper()
	reg, err := tool.NewRegistry(d.Tool())
	if err != nil {
		t.Fatal(err)
	}
	res, err := tool.NewRunner(reg, nil).Call(t.Context(), tool.Call{}, tool.Request{Name: "desktop", Arguments: json.RawMessage(in)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func decode(t *testing.T, res tool.Result) image.Image {
	t.Helper()
	if len(res.Images) != 1 {
		t.Fatalf("result has %d images, want 1", len(res.Images))
	}
	im := res.Images[0]
	img, err := png.Decode(bytes.NewReader(im.Data))
	if err != nil {
		t.Fatalf("decode the screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != im.Width || b.Dy() != im.Height || im.MIMEType != "image/png" {
		t.Fatalf("image is %s %dx%d, says %s %dx%d", "image/png", b.Dx(), b.Dy(), im.MIMEType, im.Width, im.Height)
	}
	return img
}

func TestDesktop_Screenshot(t *testing.T) {
	d := newTestDesktop(t, Config{})
	res := call(t, d, `{"action":"screenshot"}`)
	img := decode(t, res)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Errorf("screenshot is %dx%d, want 1280x800", b.Dx(), b.Dy())
	}
}

// TestDesktop_ClickMapsCoordinates clicks known screenshot coordinates on
// a scaled screen (1600x1000 shown as 1280x800) and checks that the test
// window sees each click at the screen pixel the coordinate maps to, and
// that cursor_position maps it back.
func TestDesktop_ClickMapsCoordinates(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 1600, Height: 1000})
	if d.scale.w != 1280 || d.scale.h != 800 {
		t.Fatalf("scale %+v, want pictures of 1280x800", d.scale)
	}
	tw := newTestWindow(t, d.disp, 0, 0, 1600, 1000, 0x336699)
	tests := []struct {
		name   string
		in     string
		x, y   int
		button byte
		clicks int
	}{
		{"left", `{"action":"left_click","coordinate":[100,200]}`, 100, 200, 1, 1},
		{"top left", `{"action":"left_click","coordinate":[0,0]}`, 0, 0, 1, 1},
		{"bottom right", `{"action":"left_click","coordinate":[1279,799]}`, 1279, 799, 1, 1},
		{"right", `{"action":"right_click","coordinate":[640,400]}`, 640, 400, 3, 1},
		{"middle", `{"action":"middle_click","coordinate":[3,797]}`, 3, 797, 2, 1},
		{"double", `{"action":"double_click","coordinate":[1001,13]}`, 1001, 13, 1, 2},
		{"triple", `{"action":"triple_click","coordinate":[77,555]}`, 77, 555, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, d, tt.in)
			evs := tw.waitButtons(t, 2*tt.clicks)
			sx, sy := d.scale.toScreen(tt.x, tt.y)
			for i, e := range evs {
				want := buttonEvent{press: i%2 == 0, button: tt.button, x: sx, y: sy}
				if e != want {
					t.Errorf("event %d = %+v, want %+v", i, e, want)
				}
			}
			if len(evs) != 2*tt.clicks {
				t.Errorf("got %d events, want %d", len(evs), 2*tt.clicks)
			}
			if data := res.Data.(Data); data.X != tt.x || data.Y != tt.y {
				t.Errorf("pointer reported at [%d, %d], want [%d, %d]", data.X, data.Y, tt.x, tt.y)
			}
			pos := call(t, d, `{"action":"cursor_position"}`).Data.(Data)
			if pos.X != tt.x || pos.Y != tt.y {
				t.Errorf("cursor_position = [%d, %d], want [%d, %d]", pos.X, pos.Y, tt.x, tt.y)
			}
		})
	}
	t.Run("off the screen", func(t *testing.T) {
		res := callResult(t, d, `{"action":"left_click","coordinate":[1280,10]}`)
		if res.Success || !strings.Contains(res.Error, "1280x800") {
			t.Errorf("click off the screen = %+v, want a failure naming the screenshot size", res)
		}
	})
}

// TestDesktop_DragAndScroll checks that left_click_drag presses at the
// start and releases at the end, and that scroll turns the wheel.
func TestDesktop_DragAndScroll(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 800, Height: 600})
	tw := newTestWindow(t, d.disp, 0, 0, 800, 600, 0x00ff00)
	call(t, d, `{"action":"left_click_drag","start_coordinate":[10,20],"coordinate":[300,400]}`)
	got := tw.waitButtons(t, 2)
	want := []buttonEvent{{true, 1, 10, 20}, {false, 1, 300, 400}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(buttonEvent{})); diff != "" {
		t.Errorf("drag events (-want +got):\n%s", diff)
	}
	call(t, d, `{"action":"scroll","coordinate":[50,60],"scroll_direction":"down","scroll_amount":2}`)
	got = tw.waitButtons(t, 4)
	want = []buttonEvent{{true, 5, 50, 60}, {false, 5, 50, 60}, {true, 5, 50, 60}, {false, 5, 50, 60}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(buttonEvent{})); diff != "" {
		t.Errorf("scroll events (-want +got):\n%s", diff)
	}
	call(t, d, `{"action":"left_mouse_down","coordinate":[5,5]}`)
	call(t, d, `{"action":"mouse_move","coordinate":[6,7]}`)
	call(t, d, `{"action":"left_mouse_up"}`)
	got = tw.waitButtons(t, 2)
	want = []buttonEvent{{true, 1, 5, 5}, {false, 1, 6, 7}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(buttonEvent{})); diff != "" {
		t.Errorf("mouse down, move, up (-want +got):\n%s", diff)
	}
}

// TestDesktop_Keys checks that key chords and typed text reach a window
// with the right keysyms and modifier state, characters missing from the
// keyboard mapping included.
func TestDesktop_Keys(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 640, Height: 480})
	tw := newTestWindow(t, d.disp, 0, 0, 640, 480, 0xffffff)
	// Keyboard input goes to the window under the pointer.
	call(t, d, `{"action":"mouse_move","coordinate":[100,100]}`)

	const ctrl, shift, mod1 = 1 << 2, 1 << 0, 1 << 3
	chords := []struct {
		keys  string
		sym   keysym
		state uint16
	}{
		{"ctrl+s", 's', ctrl},
		{"ctrl+shift+t", 'T', ctrl | shift},
		{"alt+Tab", ksTab, mod1},
		{"Return", ksReturn, 0},
		{"KP_0", 0xffb0, shift}, // column 2 of the keypad key, as with xdotool
		{"ctrl+A", 'A', ctrl | shift},
		{"F5", 0xffc2, 0},
		{"ENTER", ksReturn, 0},
	}
	for _, c := range chords {
		t.Run(c.keys, func(t *testing.T) {
			in, _ := json.Marshal(Input{Action: "key", Text: c.keys})
			call(t, d, string(in))
			evs := tw.waitKeys(t, 1)
			last := evs[len(evs)-1]
			if last.sym != c.sym || last.state&(ctrl|shift|mod1) != c.state {
				t.Errorf("key %q: last press %#x with state %#x, want %#x with %#x (all: %+v)", c.keys, last.sym, last.state, c.sym, c.state, evs)
			}
		})
	}
	t.Run("type", func(t *testing.T) {
		text := "Hello, wörld — 1+1=2 €\n"
		in, _ := json.Marshal(Input{Action: "type", Text: text})
		call(t, d, string(in))
		var want []keysym
		for _, r := range text {
			want = append(want, runeKeysym(r))
		}
		got := keysOf(tw.waitKeys(t, len(want)))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("typed keysyms (-want +got):\n%s", diff)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		res := callResult(t, d, `{"action":"key","text":"ctrl+Nope"}`)
		if res.Success || !strings.Contains(res.Error, `unknown key "Nope"`) {
			t.Errorf("unknown key = %+v, want a failure naming it", res)
		}
	})
}

// TestDesktop_Xterm launches xterm, waits for its window to show in
// screenshots, types a command into it and reads back the file the
// command writes.
func TestDesktop_Xterm(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 1024, Height: 768})
	blank := decode(t, call(t, d, `{"action":"screenshot"}`))
	dir := t.TempDir()
	in, _ := json.Marshal(Input{Action: "launch", Command: "xterm -geometry 80x24+0+0 -e sh"})
	res := call(t, d, string(in))
	if pid := res.Data.(Data).PID; pid <= 0 {
		t.Fatalf("launch reported pid %d", pid)
	}
	var shot image.Image
	eventually(t, func() bool {
		shot = decode(t, call(t, d, `{"action":"screenshot"}`))
		return differ(blank, shot) > 1000
	}, "xterm's window shows in a screenshot")
	save(t, shot)

	// xterm's window is at the top left; keyboard input goes to the
	// window under the pointer.
	call(t, d, `{"action":"left_click","coordinate":[100,100]}`)
	file := filepath.Join(dir, "typed")
	in, _ = json.Marshal(Input{Action: "type", Text: "echo 'hello from the desktop' > " + file + "\n"})
	call(t, d, string(in))
	var got []byte
	eventually(t, func() bool {
		got, _ = os.ReadFile(file)
		return len(got) > 0 && got[len(got)-1] == '\n'
	}, "the typed command writes "+file)
	if string(got) != "hello from the desktop\n" {
		t.Errorf("file holds %q, want %q", got, "hello from the desktop\n")
	}
	// A key chord: ctrl+d ends the shell, and xterm with it.
	pid := res.Data.(Data).PID
	call(t, d, `{"action":"key","text":"ctrl+d"}`)
	eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, "ctrl+d ends xterm's shell and xterm")
}

// differ returns how many pixels differ between a and b, screenshots of
// the same size.
func differ(a, b image.Image) int {
	pa, pb := a.(*image.RGBA).Pix, b.(*image.RGBA).Pix
	n := 0
	for i := 0; i+3 < len(pa) && i+3 < len(pb); i += 4 {
		if pa[i] != pb[i] || pa[i+1] != pb[i+1] || pa[i+2] != pb[i+2] {
			n++
		}
	}
	return n
}

// save writes a screenshot to the file $WIELD_DESKTOP_SCREENSHOT names,
// if it is set, for a person to look at.
func save(t *testing.T, img image.Image) {
	path := os.Getenv("WIELD_DESKTOP_SCREENSHOT")
	if path == "" {
		return
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDesktop_Zoom checks that zoom returns the region at the screen's
// resolution: on a 1600x1000 screen shown at 1280x800, a 100x50 region
// of screenshot pixels is 125x63 screen pixels or so.
func TestDesktop_Zoom(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 1600, Height: 1000})
	newTestWindow(t, d.disp, 400, 200, 200, 100, 0xff0000)
	res := call(t, d, `{"action":"zoom","region":[300,140,400,190]}`)
	img := decode(t, res)
	w := boxStart(400, 1280, 1600) - boxStart(300, 1280, 1600)
	h := boxStart(190, 800, 1000) - boxStart(140, 800, 1000)
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("zoom is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	// The window's top left corner, screen (400, 200), is at (25, 25) of
	// the zoomed picture, which starts at screen (375, 175).
	if r, g, b, _ := img.At(25, 25).RGBA(); r>>8 != 0xff || g != 0 || b != 0 {
		t.Errorf("zoom pixel (25, 25) = %v, want the red window", img.At(25, 25))
	}
	if r, _, _, _ := img.At(24, 24).RGBA(); r>>8 == 0xff {
		t.Errorf("zoom pixel (24, 24) = %v, want the background", img.At(24, 24))
	}
	for _, bad := range []string{`{"action":"zoom","region":[10,10,5,20]}`, `{"action":"zoom","region":[0,0,1281,10]}`, `{"action":"zoom","region":[1,2,3]}`} {
		if res := callResult(t, d, bad); res.Success {
			t.Errorf("%s succeeded", bad)
		}
	}
}

// TestDesktop_CloseStopsEverything checks that Close ends the launched
// programs and Xvfb, and that later calls fail.
func TestDesktop_CloseStopsEverything(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 320, Height: 240})
	res := call(t, d, `{"action":"launch","command":"sleep 1000 & exec sleep 1001"}`)
	app := res.Data.(Data).PID
	xvfb := d.disp.server.cmd.Process.Pid
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{app, xvfb} {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d is alive after Close", pid)
		}
	}
	if res := callResult(t, d, `{"action":"screenshot"}`); res.Success || !strings.Contains(res.Error, "closed") {
		t.Errorf("screenshot after Close = %+v, want a failure", res)
	}
}

// TestDesktop_ViewOnly checks that a view-only desktop is read-only to
// the policy and refuses actions that change the screen.
func TestDesktop_ViewOnly(t *testing.T) {
	d, err := New(Config{ViewOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.Tool().Spec().Annotations.ReadOnly {
		t.Error("a view-only desktop is not annotated read-only")
	}
	if res := callResult(t, d, `{"action":"left_click","coordinate":[1,1]}`); res.Success || !strings.Contains(res.Error, "view-only") {
		t.Errorf("left_click on a view-only desktop = %+v, want a failure", res)
	}
	full, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if ann := full.Tool().Spec().Annotations; ann.ReadOnly || !ann.Destructive {
		t.Errorf("the full desktop is annotated %+v, want destructive (launch runs commands)", ann)
	}
}

func TestNew_BadConfig(t *testing.T) {
	for _, cfg := range []Config{{Width: 10, Height: 800}, {Width: 9000, Height: 800}, {MaxWidth: 8}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// TestDesktop_LaunchSandboxed launches a program in the sandbox: it can
// write to its scratch directory and not elsewhere, and its X client
// reaches the display.
func TestDesktop_LaunchSandboxed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var mechs []sandbox.Mechanism
	for _, c := range sandbox.Probe(t.Context(), "") {
		if c.Available && c.Level >= sandbox.LevelNetwork {
			mechs = append(mechs, c.Mechanism)
		}
	}
	if len(mechs) == 0 {
		t.Fatal("no sandbox mechanism isolates the network here: install bubblewrap, or use a kernel with Landlock")
	}
	for _, m := range mechs {
		t.Run(string(m), func(t *testing.T) {
			sb, err := sandbox.New(t.Context(), sandbox.Config{Helper: []string{exe, sandbox.HelperArg}, Mechanism: m})
			if err != nil {
				t.Fatal(err)
			}
			testLaunchSandboxed(t, sb)
		})
	}
}

func testLaunchSandboxed(t *testing.T, sb *sandbox.Sandbox) {
	d := newTestDesktop(t, Config{Width: 640, Height: 480, Sandbox: sb})
	blank := decode(t, call(t, d, `{"action":"screenshot"}`))
	outside := filepath.Join(t.TempDir(), "outside")
	in, _ := json.Marshal(Input{Action: "launch", Command: "echo bad > " + outside + "; echo ok > \"$HOME/inside\"; exec xlogo -geometry 200x200+0+0"})
	data := call(t, d, string(in)).Data.(Data)
	if data.Scratch == "" {
		t.Fatal("launch in the sandbox reports no scratch directory")
	}
	eventually(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(data.Scratch, "inside"))
		return string(b) == "ok\n"
	}, "the sandboxed command writes to its scratch directory")
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the sandboxed command wrote %s, outside its scratch directory", outside)
	}
	if !waitFor(func() bool {
		return differ(blank, decode(t, call(t, d, `{"action":"screenshot"}`))) > 1000
	}) {
		t.Fatalf("timed out waiting until the sandboxed xlogo's window shows; the programs printed:%s", appOutput(d))
	}

	// Under bubblewrap Xvfb runs in the sandbox too, in a network
	// namespace of its own.
	xvfb := d.disp.server.cmd.Process.Pid
	if sb.Capabilities().Mechanism == sandbox.Bubblewrap {
		if xvfb = descendant(t, xvfb, "Xvfb"); xvfb == 0 {
			t.Fatal("no Xvfb process under the sandbox helper")
		}
		mine, _ := os.Readlink("/proc/self/ns/net")
		its, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", xvfb))
		if its == "" || its == mine {
			t.Errorf("Xvfb's network namespace is %q, ours %q: want one of its own", its, mine)
		}
	}
	d.Close()
	if err := syscall.Kill(xvfb, 0); err == nil {
		t.Errorf("the sandboxed Xvfb (pid %d) is alive after Close", xvfb)
	}
}

// descendant returns the pid of a process named name among the
// descendants of pid, or 0.
func descendant(t *testing.T, pid int, name string) int {
	t.Helper()
	parents := map[int]int{}
	names := map[int]string{}
	dirs, _ := os.ReadDir("/proc")
	for _, e := range dirs {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(string(b[end+2:]))
		ppid, _ := strconv.Atoi(f[1])
		parents[p], names[p] = ppid, string(b[open+1:end])
	}
	for p, n := range names {
		if n != name {
			continue
		}
		for q := parents[p]; q > 1; q = parents[q] {
			if q == pid {
				return p
			}
		}
	}
	return 0
}

func TestDesktop_NoXvfb(t *testing.T) {
	d, err := New(Config{Xvfb: filepath.Join(t.TempDir(), "Xvfb")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if res := callResult(t, d, `{"action":"screenshot"}`); res.Success || !strings.Contains(res.Error, "apt-get install xvfb") {
		t.Errorf("screenshot without Xvfb = %+v, want a failure saying what to install", res)
	}
}

// appOutput returns what the launched programs printed, for messages.
func appOutput(d *Desktop) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.disp == nil {
		return ""
	}
	d.disp.apps.mu.Lock()
	defer d.disp.apps.mu.Unlock()
	var b strings.Builder
	for _, a := range d.disp.apps.list {
		b.WriteString("\n" + a.command + a.output.tail())
	}
	return b.String()
}

func TestProbe(t *testing.T) {
	st := Probe(t.Context(), Config{Width: 320, Height: 200})
	if !st.Ready || st.Xvfb == "" || st.Width != 320 || st.Height != 200 || st.Problem != "" {
		t.Errorf("Probe = %+v, want a ready 320x200 display", st)
	}
	st = Probe(t.Context(), Config{Xvfb: "/nonexistent/Xvfb"})
	if st.Ready || !strings.Contains(st.Problem, "Xvfb not found") {
		t.Errorf("Probe without Xvfb = %+v, want a problem naming Xvfb", st)
	}
}

// TestDesktop_RestartsAfterXvfbDies kills Xvfb and checks that the call
// that finds it gone says so and the next one works on a new display.
func TestDesktop_RestartsAfterXvfbDies(t *testing.T) {
	d := newTestDesktop(t, Config{Width: 320, Height: 240})
	old := d.disp.name
	srv := d.disp.server
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-srv.exited
	res := callResult(t, d, `{"action":"screenshot"}`)
	if res.Success || !strings.Contains(res.Error, "next call starts a new") {
		t.Fatalf("screenshot after Xvfb died = %+v, want a failure saying a new display starts", res)
	}
	res = call(t, d, `{"action":"screenshot"}`)
	if img := decode(t, res); img.Bounds().Dx() != 320 {
		t.Errorf("screenshot on the new display is %v wide, want 320", img.Bounds())
	}
	t.Logf("display %s, then %s", old, res.Data.(Data).Display)
}
