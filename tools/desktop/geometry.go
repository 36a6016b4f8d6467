package desktop

import (
	"fmt"
	"math"
)

// A scale maps between the screen's pixels and the pixels of the pictures
// the model sees. The picture is never larger than the screen, so each
// picture pixel stands for a box of one or more screen pixels: picture
// column x covers the screen columns X with X*w/N == x (integer
// division), and likewise for rows. Screenshots average each box, and a
// coordinate the model gives is mapped to the middle of its box, so that
// mapping it back gives the same coordinate.
type scale struct {
	screenW, screenH int // the screen, in its own pixels
	w, h             int // the picture
}

// newScale returns the scale for a screen of sw×sh pixels whose pictures
// are at most maxW×maxH and maxPixels in area, keeping the aspect ratio.
// Every bound must be positive.
func newScale(sw, sh, maxW, maxH, maxPixels int) scale {
	f := math.Min(1, math.Min(float64(maxW)/float64(sw), float64(maxH)/float64(sh)))
	if area := float64(sw) * float64(sh); area*f*f > float64(maxPixels) {
		f = math.Sqrt(float64(maxPixels) / area)
	}
	w := min(sw, maxW, max(1, int(float64(sw)*f)))
	h := min(sh, maxH, max(1, int(float64(sh)*f)))
	return scale{screenW: sw, screenH: sh, w: w, h: h}
}

// scaled reports whether pictures are smaller than the screen.
func (s scale) scaled() bool { return s.w != s.screenW || s.h != s.screenH }

// toScreen maps a picture coordinate to the screen pixel in the middle of
// its box. x and y must be inside the picture.
func (s scale) toScreen(x, y int) (int, int) {
	return axisToScreen(x, s.w, s.screenW), axisToScreen(y, s.h, s.screenH)
}

// toModel maps a screen pixel to the picture pixel whose box holds it.
func (s scale) toModel(sx, sy int) (int, int) {
	return sx * s.w / s.screenW, sy * s.h / s.screenH
}

// check returns an error for the model when (x, y) is off the picture.
func (s scale) check(name string, x, y int) error {
	if x < 0 || y < 0 || x >= s.w || y >= s.h {
		return fmt.Errorf("%s [%d, %d] is off the screen: screenshots are %dx%d, so x must be in [0, %d] and y in [0, %d]",
			name, x, y, s.w, s.h, s.w-1, s.h-1)
	}
	return nil
}

// axisToScreen maps picture position x (of n) to screen position (of
// big): the middle of [ceil(x*big/n), ceil((x+1)*big/n)), the screen
// positions that toModel maps back to x.
func axisToScreen(x, n, big int) int {
	lo := ceilDiv(x*big, n)
	hi := ceilDiv((x+1)*big, n) - 1
	return (lo + hi) / 2
}

// boxStart returns the first screen position of picture position x's box.
func boxStart(x, n, big int) int { return ceilDiv(x*big, n) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }
