package desktop

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/jezek/xgb/xproto"
)

// grab reads the screen pixels of r, which must lie on the screen, as
// GetImage returns them: 4 bytes a pixel, rows of 4*r.Dx() bytes.
func (d *display) grab(r image.Rectangle) ([]byte, error) {
	rep, err := xproto.GetImage(d.conn, xproto.ImageFormatZPixmap, xproto.Drawable(d.root),
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), ^uint32(0)).Reply()
	if err != nil {
		return nil, fmt.Errorf("capture the screen: %w", err)
	}
	if len(rep.Data) < 4*r.Dx()*r.Dy() {
		return nil, fmt.Errorf("capture the screen: got %d bytes for %dx%d pixels", len(rep.Data), r.Dx(), r.Dy())
	}
	return rep.Data, nil
}

// A pixelFormat is where red, green and blue sit in a 4-byte pixel.
type pixelFormat struct{ r, g, b int }

// shrink turns src, sw×sh pixels of format f, into an opaque w×h RGBA
// picture (w <= sw, h <= sh) in which each pixel is the average of its
// box of source pixels (see [scale]). Without shrinking it only reorders
// the bytes.
func shrink(src []byte, sw, sh int, f pixelFormat, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if w == sw && h == sh {
		for i := 0; i+3 < len(dst.Pix); i += 4 {
			p := src[i : i+4 : i+4]
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = p[f.r], p[f.g], p[f.b], 0xff
		}
		return dst
	}
	xs := make([]int, w+1)
	for x := range xs {
		xs[x] = boxStart(x, w, sw)
	}
	sums := make([]uint32, 3*w)
	for y := range h {
		clear(sums)
		y0, y1 := boxStart(y, h, sh), boxStart(y+1, h, sh)
		for sy := y0; sy < y1; sy++ {
			row := src[4*sw*sy : 4*sw*(sy+1)]
			for x := range w {
				var r, g, b uint32
				for sx := xs[x]; sx < xs[x+1]; sx++ {
					p := row[4*sx : 4*sx+4 : 4*sx+4]
					r += uint32(p[f.r])
					g += uint32(p[f.g])
					b += uint32(p[f.b])
				}
				s := sums[3*x : 3*x+3 : 3*x+3]
				s[0] += r
				s[1] += g
				s[2] += b
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		rows := uint32(y1 - y0)
		for x := range w {
			n := rows * uint32(xs[x+1]-xs[x])
			s := sums[3*x : 3*x+3 : 3*x+3]
			o := out[4*x : 4*x+4 : 4*x+4]
			o[0], o[1], o[2], o[3] = byte((s[0]+n/2)/n), byte((s[1]+n/2)/n), byte((s[2]+n/2)/n), 0xff
		}
	}
	return dst
}

// An encoder encodes pictures as PNG at the fastest compression, reusing
// its buffers. It is not safe for concurrent use.
type encoder struct {
	png  png.Encoder
	pool pngPool
}

func newEncoder() *encoder {
	e := &encoder{}
	e.png = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &e.pool}
	return e
}

func (e *encoder) encode(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(256 << 10)
	if err := e.png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode the screenshot: %w", err)
	}
	return b.Bytes(), nil
}

// A pngPool keeps one encoder buffer.
type pngPool struct{ b *png.EncoderBuffer }

func (p *pngPool) Get() *png.EncoderBuffer  { b := p.b; p.b = nil; return b }
func (p *pngPool) Put(b *png.EncoderBuffer) { p.b = b }
