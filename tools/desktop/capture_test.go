package desktop

import (
	"bytes"
	"hash/adler32"
	"image/png"
	"math/rand/v2"
	"testing"
)

func TestAdler32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		data := make([]byte, rng.IntN(200_000))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		cut := 0
		if len(data) > 0 {
			cut = rng.IntN(len(data) + 1)
		}
		got := adler32Combine(adler32.Checksum(data[:cut]), adler32.Checksum(data[cut:]), len(data)-cut)
		if want := adler32.Checksum(data); got != want {
			t.Fatalf("adler32Combine at %d of %d = %#x, want %#x", cut, len(data), got, want)
		}
	}
}

// TestEncodeDecodes encodes pictures of random and of flat pixels, at
// several sizes and scales, and checks that image/png decodes each to
// the pixels of the picture.
func TestEncodeDecodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEncoder()
	e.maxBands = 5 // several bands whatever the machine
	for _, tt := range []struct{ sw, sh, w, h int }{{1, 1, 1, 1}, {7, 5, 7, 5}, {64, 48, 64, 48}, {300, 200, 200, 133}, {97, 13, 40, 13}, {300, 700, 300, 700}, {500, 900, 320, 577}} {
		for _, flat := range []bool{false, true} {
			src := make([]byte, 4*tt.sw*tt.sh)
			if !flat {
				for i := range src {
					src[i] = byte(rng.Uint32())
				}
			}
			p := newPicture(src, tt.sw, tt.sh, pixelFormat{r: 2, g: 1, b: 0}, tt.w, tt.h)
			b, err := e.encode(p)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%dx%d from %dx%d: decode: %v", tt.w, tt.h, tt.sw, tt.sh, err)
			}
			want := p.image()
			if img.Bounds() != want.Bounds() {
				t.Fatalf("decoded %v, want %v", img.Bounds(), want.Bounds())
			}
			for y := range tt.h {
				for x := range tt.w {
					r1, g1, b1, a1 := img.At(x, y).RGBA()
					r2, g2, b2, a2 := want.At(x, y).RGBA()
					if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
						t.Fatalf("%dx%d from %dx%d: pixel (%d, %d) decodes to %v, want %v", tt.w, tt.h, tt.sw, tt.sh, x, y, img.At(x, y), want.At(x, y))
					}
				}
			}
		}
	}
}
