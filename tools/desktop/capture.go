package desktop

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"

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

// A picture is a w×h opaque picture made from sw×sh screen pixels of
// format f in src (4 bytes a pixel), w <= sw and h <= sh: each picture
// pixel is the average of its box of screen pixels (see [scale]).
type picture struct {
	src    []byte
	sw, sh int
	f      pixelFormat
	w, h   int
	xs     []int    // xs[x] is where picture column x's box starts
	sums   []uint32 // per row: red, green and blue sums per column
}

func newPicture(src []byte, sw, sh int, f pixelFormat, w, h int) *picture {
	p := &picture{src: src, sw: sw, sh: sh, f: f, w: w, h: h}
	if w != sw {
		p.xs = make([]int, w+1)
		for x := range p.xs {
			p.xs[x] = boxStart(x, w, sw)
		}
	}
	return p
}

// row writes row y of the picture into dst as 3*w bytes of RGB.
func (p *picture) row(y int, dst []byte) {
	f := p.f
	if p.w == p.sw && p.h == p.sh {
		src := p.src[4*p.sw*y : 4*p.sw*(y+1)]
		rs, gs, bs := 8*f.r, 8*f.g, 8*f.b
		dst = dst[:3*p.w]
		for x := 0; x+2 < len(dst); x += 3 {
			v := binary.LittleEndian.Uint32(src)
			src = src[4:]
			dst[x], dst[x+1], dst[x+2] = byte(v>>rs), byte(v>>gs), byte(v>>bs)
		}
		return
	}
	if p.sums == nil {
		p.sums = make([]uint32, 3*p.w)
	}
	sums := p.sums
	clear(sums)
	y0, y1 := boxStart(y, p.h, p.sh), boxStart(y+1, p.h, p.sh)
	for sy := y0; sy < y1; sy++ {
		src := p.src[4*p.sw*sy : 4*p.sw*(sy+1)]
		if p.xs == nil { // only rows are averaged
			for x := range p.w {
				s := src[4*x : 4*x+4 : 4*x+4]
				sums[3*x] += uint32(s[f.r])
				sums[3*x+1] += uint32(s[f.g])
				sums[3*x+2] += uint32(s[f.b])
			}
			continue
		}
		for x := range p.w {
			var r, g, b uint32
			for sx := p.xs[x]; sx < p.xs[x+1]; sx++ {
				s := src[4*sx : 4*sx+4 : 4*sx+4]
				r += uint32(s[f.r])
				g += uint32(s[f.g])
				b += uint32(s[f.b])
			}
			sums[3*x] += r
			sums[3*x+1] += g
			sums[3*x+2] += b
		}
	}
	rows := uint32(y1 - y0)
	for x := range p.w {
		n := rows
		if p.xs != nil {
			n *= uint32(p.xs[x+1] - p.xs[x])
		}
		d := dst[3*x : 3*x+3 : 3*x+3]
		d[0] = byte((sums[3*x] + n/2) / n)
		d[1] = byte((sums[3*x+1] + n/2) / n)
		d[2] = byte((sums[3*x+2] + n/2) / n)
	}
}

// image returns the picture as an RGBA image, for tests.
func (p *picture) image() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	row := make([]byte, 3*p.w)
	for y := range p.h {
		p.row(y, row)
		out := img.Pix[y*img.Stride:]
		for x := range p.w {
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = row[3*x], row[3*x+1], row[3*x+2], 0xff
		}
	}
	return img
}

// An encoder writes pictures as PNG, reusing its buffers. It writes
// 8-bit RGB with the Up filter on every row and deflate at its fastest
// level: image/png picks a filter per row by trying all five, which
// costs more than the compression itself, and screens (flat panels, rows
// that repeat) compress well under Up. It is not safe for concurrent
// use.
type encoder struct {
	zbuf      bytes.Buffer
	zw        *zlib.Writer
	cur, prev []byte
}

func newEncoder() *encoder { return &encoder{} }

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// encode returns p as a PNG file.
func (e *encoder) encode(p *picture) ([]byte, error) {
	e.zbuf.Reset()
	if e.zw == nil {
		zw, err := zlib.NewWriterLevel(&e.zbuf, flate.BestSpeed)
		if err != nil {
			return nil, err
		}
		e.zw = zw
	} else {
		e.zw.Reset(&e.zbuf)
	}
	n := 1 + 3*p.w
	if cap(e.cur) < n {
		e.cur, e.prev = make([]byte, n), make([]byte, n)
	}
	cur, prev := e.cur[:n], e.prev[:n]
	clear(prev)
	filtered := make([]byte, n)
	for y := range p.h {
		p.row(y, cur[1:])
		filtered[0] = 2 // Up
		for i := 1; i < n; i++ {
			filtered[i] = cur[i] - prev[i]
		}
		if _, err := e.zw.Write(filtered); err != nil {
			return nil, fmt.Errorf("encode the screenshot: %w", err)
		}
		cur, prev = prev, cur
	}
	if err := e.zw.Close(); err != nil {
		return nil, fmt.Errorf("encode the screenshot: %w", err)
	}
	out := make([]byte, 0, len(pngSignature)+3*12+13+e.zbuf.Len())
	out = append(out, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(p.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(p.h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, truecolour; compression, filter and interlace 0
	out = chunk(out, "IHDR", ihdr[:])
	out = chunk(out, "IDAT", e.zbuf.Bytes())
	return chunk(out, "IEND", nil), nil
}

// chunk appends a PNG chunk to b.
func chunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
