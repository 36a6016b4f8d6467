package desktop

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A keysym is an X keysym: the symbol a key produces, as opposed to the
// keycode of the physical key.
type keysym uint32

// Keysyms the tool presses itself.
const (
	ksBackSpace keysym = 0xff08
	ksTab       keysym = 0xff09
	ksReturn    keysym = 0xff0d
	ksShiftL    keysym = 0xffe1
)

// keyNames maps xdotool key names (X keysym names) to keysyms. Letters,
// digits and other single characters are not listed: a one-character name
// is that character's keysym. F1 to F24 are found by lookupKey.
var keyNames = map[string]keysym{
	"BackSpace": 0xff08, "Tab": 0xff09, "Linefeed": 0xff0a, "Clear": 0xff0b, "Return": 0xff0d,
	"Pause": 0xff13, "Scroll_Lock": 0xff14, "Sys_Req": 0xff15, "Escape": 0xff1b, "Delete": 0xffff,
	"Home": 0xff50, "Left": 0xff51, "Up": 0xff52, "Right": 0xff53, "Down": 0xff54,
	"Prior": 0xff55, "Page_Up": 0xff55, "Next": 0xff56, "Page_Down": 0xff56, "End": 0xff57, "Begin": 0xff58,
	"Select": 0xff60, "Print": 0xff61, "Execute": 0xff62, "Insert": 0xff63, "Undo": 0xff65, "Redo": 0xff66,
	"Menu": 0xff67, "Find": 0xff68, "Cancel": 0xff69, "Help": 0xff6a, "Break": 0xff6b, "Num_Lock": 0xff7f,
	"KP_Space": 0xff80, "KP_Tab": 0xff89, "KP_Enter": 0xff8d, "KP_Home": 0xff95, "KP_Left": 0xff96,
	"KP_Up": 0xff97, "KP_Right": 0xff98, "KP_Down": 0xff99, "KP_Prior": 0xff9a, "KP_Page_Up": 0xff9a,
	"KP_Next": 0xff9b, "KP_Page_Down": 0xff9b, "KP_End": 0xff9c, "KP_Begin": 0xff9d, "KP_Insert": 0xff9e,
	"KP_Delete": 0xff9f, "KP_Equal": 0xffbd, "KP_Multiply": 0xffaa, "KP_Add": 0xffab, "KP_Separator": 0xffac,
	"KP_Subtract": 0xffad, "KP_Decimal": 0xffae, "KP_Divide": 0xffaf,
	"KP_0": 0xffb0, "KP_1": 0xffb1, "KP_2": 0xffb2, "KP_3": 0xffb3, "KP_4": 0xffb4,
	"KP_5": 0xffb5, "KP_6": 0xffb6, "KP_7": 0xffb7, "KP_8": 0xffb8, "KP_9": 0xffb9,
	"Shift_L": 0xffe1, "Shift_R": 0xffe2, "Control_L": 0xffe3, "Control_R": 0xffe4, "Caps_Lock": 0xffe5,
	"Shift_Lock": 0xffe6, "Meta_L": 0xffe7, "Meta_R": 0xffe8, "Alt_L": 0xffe9, "Alt_R": 0xffea,
	"Super_L": 0xffeb, "Super_R": 0xffec, "Hyper_L": 0xffed, "Hyper_R": 0xffee, "ISO_Level3_Shift": 0xfe03,
	"space": 0x20, "exclam": 0x21, "quotedbl": 0x22, "numbersign": 0x23, "dollar": 0x24, "percent": 0x25,
	"ampersand": 0x26, "apostrophe": 0x27, "quoteright": 0x27, "parenleft": 0x28, "parenright": 0x29,
	"asterisk": 0x2a, "plus": 0x2b, "comma": 0x2c, "minus": 0x2d, "period": 0x2e, "slash": 0x2f,
	"colon": 0x3a, "semicolon": 0x3b, "less": 0x3c, "equal": 0x3d, "greater": 0x3e, "question": 0x3f,
	"at": 0x40, "bracketleft": 0x5b, "backslash": 0x5c, "bracketright": 0x5d, "asciicircum": 0x5e,
	"underscore": 0x5f, "grave": 0x60, "quoteleft": 0x60, "braceleft": 0x7b, "bar": 0x7c,
	"braceright": 0x7d, "asciitilde": 0x7e,
	"XF86AudioLowerVolume": 0x1008ff11, "XF86AudioMute": 0x1008ff12, "XF86AudioRaiseVolume": 0x1008ff13,
	"XF86AudioPlay": 0x1008ff14, "XF86AudioStop": 0x1008ff15, "XF86AudioPrev": 0x1008ff16,
	"XF86AudioNext": 0x1008ff17, "XF86Back": 0x1008ff26, "XF86Forward": 0x1008ff27, "XF86Refresh": 0x1008ff29,
}

// keyAliases are other names models use, matched without regard to case:
// xdotool's modifier aliases and the names in OpenAI's and Gemini's
// computer-use vocabularies.
var keyAliases = map[string]keysym{
	"ctrl": 0xffe3, "control": 0xffe3, "shift": 0xffe1, "alt": 0xffe9, "option": 0xffe9,
	"super": 0xffeb, "win": 0xffeb, "windows": 0xffeb, "cmd": 0xffeb, "command": 0xffeb, "meta": 0xffe7,
	"enter": 0xff0d, "return": 0xff0d, "esc": 0xff1b, "escape": 0xff1b, "backspace": 0xff08,
	"tab": 0xff09, "delete": 0xffff, "del": 0xffff, "insert": 0xff63, "home": 0xff50, "end": 0xff57,
	"pageup": 0xff55, "page_up": 0xff55, "pagedown": 0xff56, "page_down": 0xff56, "space": 0x20,
	"left": 0xff51, "up": 0xff52, "right": 0xff53, "down": 0xff54,
	"arrowleft": 0xff51, "arrowup": 0xff52, "arrowright": 0xff53, "arrowdown": 0xff54,
	"capslock": 0xffe5, "printscreen": 0xff61, "print": 0xff61,
}

// runeKeysym returns the keysym that types r: Latin-1 characters are
// their own keysyms, others are 0x01000000 plus the code point, and
// newline, tab and backspace are the keys.
func runeKeysym(r rune) keysym {
	switch {
	case r == '\n' || r == '\r':
		return ksReturn
	case r == '\t':
		return ksTab
	case r == '\b':
		return ksBackSpace
	case r >= 0x20 && r <= 0x7e || r >= 0xa0 && r <= 0xff:
		return keysym(r)
	}
	return keysym(0x01000000 | uint32(r))
}

// lookupKey returns the keysym of one key name in xdotool's syntax.
func lookupKey(name string) (keysym, bool) {
	if ks, ok := keyNames[name]; ok {
		return ks, true
	}
	if ks, ok := keyAliases[strings.ToLower(name)]; ok {
		return ks, true
	}
	if r, n := utf8.DecodeRuneInString(name); n == len(name) && r != utf8.RuneError && r >= 0x20 {
		return runeKeysym(r), true
	}
	// F1..F24 in any case, and keysyms given as numbers (0xff0d).
	var n int
	if _, err := fmt.Sscanf(strings.ToUpper(name), "F%d", &n); err == nil && fmt.Sprintf("F%d", n) == strings.ToUpper(name) && n >= 1 && n <= 24 {
		return keysym(0xffbe + n - 1), true
	}
	var v uint32
	if _, err := fmt.Sscanf(name, "0x%x", &v); err == nil && fmt.Sprintf("0x%x", v) == strings.ToLower(name) && v > 0 && v <= 0x1ffffff {
		return keysym(v), true
	}
	return 0, false
}

// maxChords bounds the chords one key action presses.
const maxChords = 64

// parseKeys parses xdotool key syntax: chords separated by spaces, each
// chord key names joined by '+' ("ctrl+s", "alt+Tab", "ctrl+a Delete").
// The keys of a chord are pressed in order and released in reverse.
func parseKeys(s string) ([][]keysym, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no keys given: give key names in xdotool syntax, such as \"Return\" or \"ctrl+s\"")
	}
	if len(fields) > maxChords {
		return nil, fmt.Errorf("%d key chords at once; give at most %d", len(fields), maxChords)
	}
	chords := make([][]keysym, 0, len(fields))
	for _, f := range fields {
		var names []string
		if f == "+" {
			names = []string{"plus"}
		} else {
			names = strings.Split(f, "+")
			// "ctrl++" is ctrl and plus.
			if strings.HasSuffix(f, "++") {
				names = append(names[:len(names)-2], "plus")
			}
		}
		chord := make([]keysym, 0, len(names))
		for _, n := range names {
			if n == "" {
				return nil, fmt.Errorf("key chord %q has an empty key name: join names with a single '+', as in \"ctrl+s\"", f)
			}
			ks, ok := lookupKey(n)
			if !ok {
				return nil, fmt.Errorf("unknown key %q in %q: use X keysym names as xdotool does (Return, Escape, BackSpace, Tab, Page_Down, F5, ctrl, alt, shift, super, a, A, 1, plus)", n, f)
			}
			chord = append(chord, ks)
		}
		chords = append(chords, chord)
	}
	return chords, nil
}
