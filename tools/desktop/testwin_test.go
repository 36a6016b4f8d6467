package desktop

import (
	"io"
	"log"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/wieldhq/wield/sandbox"
)

func TestMain(m *testing.M) {
	// The sandbox tests start this test binary as the sandbox helper.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Enter(os.Args[2:]))
	}
	// xgb logs to stderr when it finds no $XAUTHORITY; the desktop
	// presents its cookie itself.
	xgb.Logger = log.New(io.Discard, "", 0)
	os.Exit(m.Run())
}

// A testWindow is an X window of the test's own that records the
// pointer and key events it receives (presses of keys other than
// modifiers), with a keyboard mapping read on
// each key event so that keysyms bound on demand decode.
type testWindow struct {
	conn *xgb.Conn
	win  xproto.Window

	mu      sync.Mutex
	mapped  bool
	buttons []buttonEvent
	keys    []keyEvent
}

type buttonEvent struct {
	press  bool
	button byte
	x, y   int // root coordinates
}

type keyEvent struct {
	sym   keysym // as the event's keycode and Shift decode
	state uint16
}

// newTestWindow maps a window of colour pixel over r of the display and
// waits until it is mapped.
func newTestWindow(t testing.TB, d *display, x, y, w, h int, pixel uint32) *testWindow {
	t.Helper()
	conn, err := d.dial()
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWindow{conn: conn}
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	tw.win = win
	mask := uint32(xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease | xproto.EventMaskKeyPress | xproto.EventMaskStructureNotify)
	err = xproto.CreateWindowChecked(conn, 0, win, d.root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, 0, xproto.CwBackPixel|xproto.CwEventMask, []uint32{pixel, mask}).Check()
	if err != nil {
		t.Fatal(err)
	}
	setup := xproto.Setup(conn)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
			tw.record(ev, setup)
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	if err := xproto.MapWindowChecked(conn, win).Check(); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		tw.mu.Lock()
		defer tw.mu.Unlock()
		return tw.mapped
	}, "the test window is mapped")
	return tw
}

func (tw *testWindow) record(ev xgb.Event, setup *xproto.SetupInfo) {
	switch e := ev.(type) {
	case xproto.MapNotifyEvent:
		tw.mu.Lock()
		tw.mapped = true
		tw.mu.Unlock()
	case xproto.ButtonPressEvent:
		tw.mu.Lock()
		tw.buttons = append(tw.buttons, buttonEvent{true, byte(e.Detail), int(e.RootX), int(e.RootY)})
		tw.mu.Unlock()
	case xproto.ButtonReleaseEvent:
		tw.mu.Lock()
		tw.buttons = append(tw.buttons, buttonEvent{false, byte(e.Detail), int(e.RootX), int(e.RootY)})
		tw.mu.Unlock()
	case xproto.KeyPressEvent:
		count := byte(int(setup.MaxKeycode) - int(setup.MinKeycode) + 1)
		rep, err := xproto.GetKeyboardMapping(tw.conn, setup.MinKeycode, count).Reply()
		if err != nil {
			return
		}
		per := int(rep.KeysymsPerKeycode)
		i := int(e.Detail) - int(setup.MinKeycode)
		col := 0
		if e.State&xproto.ModMaskShift != 0 && rep.Keysyms[i*per+1] != 0 {
			col = 1
		}
		sym := keysym(rep.Keysyms[i*per+col])
		if sym >= 0xffe1 && sym <= 0xffee {
			return // modifiers: the state of the next key shows them
		}
		tw.mu.Lock()
		tw.keys = append(tw.keys, keyEvent{sym, e.State})
		tw.mu.Unlock()
	}
}

func (tw *testWindow) takeButtons() []buttonEvent {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	b := tw.buttons
	tw.buttons = nil
	return b
}

func (tw *testWindow) takeKeys() []keyEvent {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	k := tw.keys
	tw.keys = nil
	return k
}

// waitButtons waits until the window has recorded n pointer events and
// returns them.
func (tw *testWindow) waitButtons(t testing.TB, n int) []buttonEvent {
	t.Helper()
	var got []buttonEvent
	eventually(t, func() bool {
		got = append(got, tw.takeButtons()...)
		return len(got) >= n
	}, "pointer events reach the test window")
	return got
}

func (tw *testWindow) waitKeys(t testing.TB, n int) []keyEvent {
	t.Helper()
	var got []keyEvent
	eventually(t, func() bool {
		got = append(got, tw.takeKeys()...)
		return len(got) >= n
	}, "key events reach the test window")
	return got
}

// eventually polls cond, which reads observable state, until it holds or
// 20 seconds pass.
func eventually(t testing.TB, cond func() bool, what string) {
	t.Helper()
	if !waitFor(cond) {
		t.Fatalf("timed out waiting until %s", what)
	}
}

// waitFor polls cond until it holds or 20 seconds pass, and reports
// whether it held.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func keysOf(evs []keyEvent) []keysym {
	out := make([]keysym, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.sym)
	}
	return slices.Clip(out)
}
