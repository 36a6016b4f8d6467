package desktop

import (
	"testing"
)

func TestNewScale(t *testing.T) {
	tests := []struct {
		name           string
		sw, sh         int
		maxW, maxH, mp int
		w, h           int
	}{
		{"fits", 1280, 800, 1280, 800, 1_150_000, 1280, 800},
		{"smaller", 800, 600, 1280, 800, 1_150_000, 800, 600},
		{"16:10 down", 1600, 1000, 1280, 800, 1_150_000, 1280, 800},
		{"16:9 down", 1920, 1080, 1280, 800, 1_150_000, 1280, 720},
		{"4k", 3840, 2160, 1280, 800, 1_150_000, 1280, 720},
		{"tall", 800, 2000, 1280, 800, 1_150_000, 320, 800},
		{"pixel budget", 2000, 2000, 4000, 4000, 1_000_000, 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScale(tt.sw, tt.sh, tt.maxW, tt.maxH, tt.mp)
			if s.w != tt.w || s.h != tt.h {
				t.Errorf("newScale(%d, %d, %d, %d, %d) = %dx%d, want %dx%d", tt.sw, tt.sh, tt.maxW, tt.maxH, tt.mp, s.w, s.h, tt.w, tt.h)
			}
		})
	}
}

// checkRoundTrip checks the mapping's properties on one axis: every
// picture position maps to a screen position that maps back to it, in
// order, and the boxes of the picture positions tile the screen.
func checkRoundTrip(t *testing.T, n, big int) {
	t.Helper()
	prev := -1
	for x := range n {
		sx := axisToScreen(x, n, big)
		if sx < 0 || sx >= big {
			t.Fatalf("axisToScreen(%d, %d, %d) = %d, off the screen", x, n, big, sx)
		}
		if back := sx * n / big; back != x {
			t.Fatalf("axisToScreen(%d, %d, %d) = %d, which maps back to %d", x, n, big, sx, back)
		}
		if sx <= prev {
			t.Fatalf("axisToScreen(%d, %d, %d) = %d, not after %d", x, n, big, sx, prev)
		}
		prev = sx
		if lo, hi := boxStart(x, n, big), boxStart(x+1, n, big); sx < lo || sx >= hi {
			t.Fatalf("axisToScreen(%d, %d, %d) = %d, outside its box [%d, %d)", x, n, big, sx, lo, hi)
		}
	}
	if boxStart(0, n, big) != 0 || boxStart(n, n, big) != big {
		t.Fatalf("boxes of %d positions do not tile %d", n, big)
	}
}

func TestScaleRoundTrip(t *testing.T) {
	for _, sz := range [][2]int{{1280, 1280}, {1280, 1600}, {720, 1080}, {1280, 1366}, {1000, 3001}, {1, 7}, {7, 8}} {
		checkRoundTrip(t, sz[0], sz[1])
	}
}

func FuzzScaleRoundTrip(f *testing.F) {
	f.Add(uint16(1280), uint16(1600))
	f.Add(uint16(720), uint16(1080))
	f.Add(uint16(1), uint16(8192))
	f.Fuzz(func(t *testing.T, a, b uint16) {
		big := int(b)%8192 + 1
		n := int(a)%big + 1
		checkRoundTrip(t, n, big)
		s := newScale(big, big/2+1, 1280, 800, 1_150_000)
		if s.w > big || s.h > big/2+1 || s.w < 1 || s.h < 1 || s.w > 1280 || s.h > 800 || s.w*s.h > 1_150_000 {
			t.Fatalf("newScale(%d, %d) = %dx%d, outside its bounds", big, big/2+1, s.w, s.h)
		}
	})
}

func TestPicture(t *testing.T) {
	// A 4x2 BGRX screen shrunk to 2x1 averages 2x2 boxes.
	src := []byte{
		0, 0, 10, 0, 0, 0, 30, 0, 255, 0, 0, 0, 255, 0, 0, 0,
		0, 0, 50, 0, 0, 0, 70, 0, 0, 255, 0, 0, 0, 255, 0, 0,
	}
	img := newPicture(src, 4, 2, pixelFormat{r: 2, g: 1, b: 0}, 2, 1).image()
	want := []byte{40, 0, 0, 255, 0, 128, 128, 255}
	if string(img.Pix) != string(want) {
		t.Errorf("picture = %v, want %v", img.Pix, want)
	}
	same := newPicture(src, 4, 2, pixelFormat{r: 2, g: 1, b: 0}, 4, 2).image()
	if same.Pix[0] != 10 || same.Pix[3] != 255 || same.Pix[8+2] != 255 {
		t.Errorf("picture without scaling = %v", same.Pix)
	}
}
