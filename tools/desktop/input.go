package desktop

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// X buttons: 1 left, 2 middle, 3 right; 4 to 7 scroll up, down, left and
// right one step each.
const (
	buttonLeft   = 1
	buttonMiddle = 2
	buttonRight  = 3
)

// A keymap is the keyboard mapping of a display: which keycode, with or
// without Shift, gives each keysym, and the spare keycodes (with no
// keysym) that keysyms missing from the mapping are bound to on demand,
// as xdotool does.
type keymap struct {
	min, max xproto.Keycode
	perCode  int
	codes    map[keysym]keyPress
	spare    []xproto.Keycode
	next     int // the spare keycode to bind next, round robin
}

// A keyPress is how to produce a keysym.
type keyPress struct {
	code  xproto.Keycode
	shift bool
}

func loadKeymap(conn *xgb.Conn, setup *xproto.SetupInfo) (*keymap, error) {
	k := &keymap{min: setup.MinKeycode, max: setup.MaxKeycode, codes: map[keysym]keyPress{}}
	count := byte(int(k.max) - int(k.min) + 1)
	rep, err := xproto.GetKeyboardMapping(conn, k.min, count).Reply()
	if err != nil {
		return nil, fmt.Errorf("desktop: keyboard mapping: %w", err)
	}
	k.perCode = int(rep.KeysymsPerKeycode)
	for i := range int(count) {
		code := xproto.Keycode(int(k.min) + i)
		syms := rep.Keysyms[i*k.perCode : (i+1)*k.perCode]
		empty := true
		for col, s := range syms {
			if s == 0 {
				continue
			}
			empty = false
			if col > 1 {
				continue // AltGr columns: bound to a spare keycode instead
			}
			if _, ok := k.codes[keysym(s)]; !ok || col == 0 && k.codes[keysym(s)].shift {
				k.codes[keysym(s)] = keyPress{code: code, shift: col == 1}
			}
		}
		if empty {
			k.spare = append(k.spare, code)
		}
	}
	if _, ok := k.codes[ksShiftL]; !ok {
		return nil, fmt.Errorf("desktop: the keyboard mapping has no Shift_L")
	}
	return k, nil
}

// press returns how to produce ks, binding it to a spare keycode when the
// mapping has no key for it.
func (d *display) press(ks keysym) (keyPress, error) {
	k := d.keys
	if p, ok := k.codes[ks]; ok {
		return p, nil
	}
	// Letters: "ctrl+A" and the like. X keysyms for A-Z are their ASCII.
	if ks >= 'A' && ks <= 'Z' {
		if p, ok := k.codes[ks+('a'-'A')]; ok {
			return keyPress{code: p.code, shift: true}, nil
		}
	}
	if len(k.spare) == 0 {
		return keyPress{}, fmt.Errorf("no key produces keysym %#x and the keyboard mapping has no spare keycode to bind it to", uint32(ks))
	}
	code := k.spare[k.next%len(k.spare)]
	k.next++
	for s, p := range k.codes {
		if p.code == code {
			delete(k.codes, s)
		}
	}
	syms := make([]xproto.Keysym, k.perCode)
	syms[0] = xproto.Keysym(ks)
	if k.perCode > 1 {
		syms[1] = xproto.Keysym(ks)
	}
	if err := xproto.ChangeKeyboardMappingChecked(d.conn, 1, code, byte(k.perCode), syms).Check(); err != nil {
		return keyPress{}, fmt.Errorf("bind keysym %#x to keycode %d: %w", uint32(ks), code, err)
	}
	p := keyPress{code: code}
	k.codes[ks] = p
	return p, nil
}

// fake sends one XTEST event.
func (d *display) fake(typ byte, detail byte, x, y int) {
	xtest.FakeInput(d.conn, typ, detail, 0, d.root, int16(x), int16(y), 0)
}

// move moves the pointer to screen pixel (x, y).
func (d *display) move(x, y int) {
	d.fake(xproto.MotionNotify, 0, x, y)
}

func (d *display) button(b byte, down bool) {
	if down {
		d.fake(xproto.ButtonPress, b, 0, 0)
	} else {
		d.fake(xproto.ButtonRelease, b, 0, 0)
	}
}

// key presses or releases one keycode.
func (d *display) key(code xproto.Keycode, down bool) {
	if down {
		d.fake(xproto.KeyPress, byte(code), 0, 0)
	} else {
		d.fake(xproto.KeyRelease, byte(code), 0, 0)
	}
}

// holdKeys presses the keys of chord in order, with Shift for the keysyms
// that need it, and returns the function that releases them in reverse.
func (d *display) holdKeys(chord []keysym) (release func(), err error) {
	var down []xproto.Keycode
	release = func() {
		for i := len(down) - 1; i >= 0; i-- {
			d.key(down[i], false)
		}
	}
	shift, _ := d.press(ksShiftL)
	for _, ks := range chord {
		p, err := d.press(ks)
		if err != nil {
			release()
			return nil, err
		}
		if p.shift {
			d.key(shift.code, true)
			down = append(down, shift.code)
		}
		d.key(p.code, true)
		down = append(down, p.code)
	}
	return release, nil
}

// typeText types s one character at a time.
func (d *display) typeText(ctx context.Context, s string) error {
	for i, r := range s {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
		}
		release, err := d.holdKeys([]keysym{runeKeysym(r)})
		if err != nil {
			return err
		}
		release()
		// A character bound to a spare keycode must reach the app before
		// the keycode is bound again; the round trip orders that.
		if len(d.keys.spare) > 0 && d.keys.next > 0 {
			if err := d.sync(); err != nil {
				return err
			}
		}
	}
	return d.sync()
}

// pause waits for d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
