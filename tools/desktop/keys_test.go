package desktop

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseKeys(t *testing.T) {
	tests := []struct {
		in      string
		want    [][]keysym
		wantErr string
	}{
		{in: "Return", want: [][]keysym{{ksReturn}}},
		{in: "ctrl+s", want: [][]keysym{{0xffe3, 's'}}},
		{in: "ctrl+shift+T", want: [][]keysym{{0xffe3, 0xffe1, 'T'}}},
		{in: "alt+Tab", want: [][]keysym{{0xffe9, ksTab}}},
		{in: "ctrl+a Delete", want: [][]keysym{{0xffe3, 'a'}, {0xffff}}},
		{in: "super+l", want: [][]keysym{{0xffeb, 'l'}}},
		{in: "KP_0", want: [][]keysym{{0xffb0}}},
		{in: "F12 f1", want: [][]keysym{{0xffc9}, {0xffbe}}},
		{in: "ctrl++", want: [][]keysym{{0xffe3, '+'}}},
		{in: "+", want: [][]keysym{{'+'}}},
		{in: "ENTER ESC arrowdown", want: [][]keysym{{ksReturn}, {0xff1b}, {0xff54}}},
		{in: "Page_Down Prior", want: [][]keysym{{0xff56}, {0xff55}}},
		{in: "é", want: [][]keysym{{0xe9}}},
		{in: "€", want: [][]keysym{{0x10020ac}}},
		{in: "0xff0d", want: [][]keysym{{ksReturn}}},
		{in: "", wantErr: "no keys given"},
		{in: "ctrl+", wantErr: "empty key name"},
		{in: "ctrl+Nope", wantErr: `unknown key "Nope"`},
		{in: "F25", wantErr: "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseKeys(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseKeys(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseKeys(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseKeys(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzParseKeys checks that parseKeys never panics, that it returns
// either chords or an error, that each chord is one field of the input
// and that every keysym is a valid one.
func FuzzParseKeys(f *testing.F) {
	for _, s := range []string{"ctrl+s", "alt+Tab Return", "ctrl++", "+", "é+€", "0xff0d", "F24", " ", "a+b+c+d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		chords, err := parseKeys(s)
		if err != nil {
			if chords != nil {
				t.Fatalf("parseKeys(%q) returned chords and an error", s)
			}
			return
		}
		if len(chords) != len(strings.Fields(s)) {
			t.Fatalf("parseKeys(%q) = %d chords for %d fields", s, len(chords), len(strings.Fields(s)))
		}
		for _, c := range chords {
			if len(c) == 0 {
				t.Fatalf("parseKeys(%q) has an empty chord", s)
			}
			for _, ks := range c {
				if ks == 0 || ks > 0x1ffffff {
					t.Fatalf("parseKeys(%q) gave keysym %#x", s, ks)
				}
			}
		}
	})
}

func TestRuneKeysym(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r += 97 {
		ks := runeKeysym(r)
		if ks == 0 {
			t.Fatalf("runeKeysym(%U) = 0", r)
		}
	}
	if runeKeysym('\n') != ksReturn || runeKeysym('a') != 'a' || runeKeysym('ÿ') != 0xff || runeKeysym('Ā') != 0x1000100 {
		t.Error("runeKeysym maps Return, Latin-1 or Unicode wrongly")
	}
}
