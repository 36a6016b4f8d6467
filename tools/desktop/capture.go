package desktop

import (
	"bytes"
	"cmp"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/adler32"
	"hash/crc32"
	"image"
	"runtime"
	"sync"

	"github.com/jezek/xgb/xproto"
)

// grab reads the screen pixels of r, which must lie on the screen, as
// GetImage returns them: 4 bytes a pixel, rows of 4*r.Dx() bytes. They
// stay valid until the next grab.
func (d *display) grab(r image.Rectangle) ([]byte, error) {
	if d.shm != nil {
		return d.shm.grab(d.root, r)
	}
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
	rs, gs, bs := 8*f.r, 8*f.g, 8*f.b
	y0, y1 := boxStart(y, p.h, p.sh), boxStart(y+1, p.h, p.sh)
	for sy := y0; sy < y1; sy++ {
		src := p.src[4*p.sw*sy : 4*p.sw*(sy+1)]
		if p.xs == nil { // only rows are averaged
			for x := range p.w {
				v := binary.LittleEndian.Uint32(src[4*x:])
				s := sums[3*x : 3*x+3 : 3*x+3]
				s[0] += v >> rs & 0xff
				s[1] += v >> gs & 0xff
				s[2] += v >> bs & 0xff
			}
			continue
		}
		sx := 0
		for x := range p.w {
			var r, g, b uint32
			for end := p.xs[x+1]; sx < end; sx++ {
				v := binary.LittleEndian.Uint32(src[4*sx:])
				r += v >> rs & 0xff
				g += v >> gs & 0xff
				b += v >> bs & 0xff
			}
			s := sums[3*x : 3*x+3 : 3*x+3]
			s[0] += r
			s[1] += g
			s[2] += b
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
// that repeat) compress well under Up. Bands of rows are compressed in
// parallel, one per CPU, and joined into one zlib stream, as pigz does.
// It is not safe for concurrent use.
type encoder struct {
	// maxBands bounds the bands; zero means one per CPU (GOMAXPROCS).
	maxBands int
	bands    []*band
}

// A band compresses a run of rows into a deflate stream that ends on a
// byte boundary (a sync flush) or, for the last band, the final block.
type band struct {
	zbuf      bytes.Buffer
	zw        *flate.Writer
	sum       hash.Hash32
	cur, prev []byte
	out       []byte // the filtered row
	err       error
}

func newEncoder() *encoder { return &encoder{} }

// minBandRows is the fewest rows worth a band of their own.
const minBandRows = 128

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// encode returns p as a PNG file.
func (e *encoder) encode(p *picture) ([]byte, error) {
	n := max(1, min(cmp.Or(e.maxBands, runtime.GOMAXPROCS(0)), p.h/minBandRows))
	for len(e.bands) < n {
		zw, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level: no error
		e.bands = append(e.bands, &band{zw: zw, sum: adler32.New()})
	}
	var wg sync.WaitGroup
	for i, b := range e.bands[:n] {
		y0, y1 := i*p.h/n, (i+1)*p.h/n
		// A picture's rows are computed from the screen, so each band
		// needs a picture of its own for the box sums.
		q := *p
		q.sums = nil
		wg.Go(func() { b.encode(&q, y0, y1, i == n-1) })
	}
	wg.Wait()
	size := 2 + 4
	for _, b := range e.bands[:n] {
		if b.err != nil {
			return nil, fmt.Errorf("encode the screenshot: %w", b.err)
		}
		size += b.zbuf.Len()
	}
	out := make([]byte, 0, len(pngSignature)+3*12+13+size)
	out = append(out, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(p.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(p.h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, truecolour; compression, filter and interlace 0
	out = chunk(out, "IHDR", ihdr[:])
	// IDAT: a zlib stream (header, the bands' deflate data, Adler-32 of
	// all the filtered rows), written in place.
	out = binary.BigEndian.AppendUint32(out, uint32(size))
	start := len(out)
	out = append(out, "IDAT"...)
	out = append(out, 0x78, 0x01) // deflate, 32K window, fastest
	sum := uint32(1)
	rowBytes := 1 + 3*p.w
	for i, b := range e.bands[:n] {
		out = append(out, b.zbuf.Bytes()...)
		sum = adler32Combine(sum, b.sum.Sum32(), ((i+1)*p.h/n-i*p.h/n)*rowBytes)
	}
	out = binary.BigEndian.AppendUint32(out, sum)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	return chunk(out, "IEND", nil), nil
}

// encode compresses rows y0 to y1 of p.
func (b *band) encode(p *picture, y0, y1 int, last bool) {
	b.zbuf.Reset()
	b.zw.Reset(&b.zbuf)
	b.sum.Reset()
	b.err = nil
	n := 1 + 3*p.w
	if cap(b.cur) < n {
		b.cur, b.prev, b.out = make([]byte, n), make([]byte, n), make([]byte, n)
	}
	cur, prev, out := b.cur[:n], b.prev[:n], b.out[:n]
	clear(prev)
	if y0 > 0 {
		p.row(y0-1, prev[1:])
	}
	for y := y0; y < y1; y++ {
		p.row(y, cur[1:])
		out[0] = 2 // Up
		for i := 1; i < n; i++ {
			out[i] = cur[i] - prev[i]
		}
		b.sum.Write(out)
		if _, err := b.zw.Write(out); err != nil {
			b.err = err
			return
		}
		cur, prev = prev, cur
	}
	if last {
		b.err = b.zw.Close()
	} else {
		b.err = b.zw.Flush()
	}
}

// adler32Combine returns the Adler-32 of A followed by B from the
// checksums of A and B and the length of B (zlib's adler32_combine).
func adler32Combine(a, b uint32, lenB int) uint32 {
	const mod = 65521
	rem := uint32(lenB % mod)
	s1 := a & 0xffff
	s2 := rem * s1 % mod
	s1 += b&0xffff + mod - 1
	s2 += a>>16 + b>>16 + mod - rem
	if s1 >= mod {
		s1 -= mod
	}
	if s1 >= mod {
		s1 -= mod
	}
	if s2 >= 2*mod {
		s2 -= 2 * mod
	}
	if s2 >= mod {
		s2 -= mod
	}
	return s2<<16 | s1
}

// chunk appends a PNG chunk to b.
func chunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
