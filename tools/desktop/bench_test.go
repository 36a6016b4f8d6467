package desktop

import (
	"fmt"
	"testing"

	"github.com/jezek/xgb/xproto"
)

// paint draws a screen that looks like work: bands of gradient (which
// compress poorly), rectangles of flat colour and lines of text in the
// server's "fixed" font, over the whole of window tw.
func paint(t testing.TB, d *display, tw *testWindow, w, h int) {
	t.Helper()
	c := tw.conn
	gc, err := xproto.NewGcontextId(c)
	if err != nil {
		t.Fatal(err)
	}
	font, err := xproto.NewFontId(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := xproto.OpenFontChecked(c, font, uint16(len("fixed")), "fixed").Check(); err != nil {
		t.Fatal(err)
	}
	if err := xproto.CreateGCChecked(c, gc, xproto.Drawable(tw.win), xproto.GcFont, []uint32{uint32(font)}).Check(); err != nil {
		t.Fatal(err)
	}
	// A gradient band at the top, a quarter of the screen, in strips that
	// fit a request.
	band := h / 4
	rows := max(1, (200<<10)/(4*w))
	for y0 := 0; y0 < band; y0 += rows {
		n := min(rows, band-y0)
		data := make([]byte, 4*w*n)
		for y := range n {
			for x := range w {
				i := 4 * (y*w + x)
				data[i], data[i+1], data[i+2] = byte(x*255/w), byte((y0+y)*255/band), byte((x+y0+y)%256)
			}
		}
		xproto.PutImage(c, xproto.ImageFormatZPixmap, xproto.Drawable(tw.win), gc, uint16(w), uint16(n), 0, int16(y0), 0, 24, data)
	}
	// Panels and text below it.
	colours := []uint32{0xf0f0f0, 0x2d2d2d, 0x3874d8, 0xffffff, 0xe8e8e8}
	for i := range 12 {
		x, y := (i%4)*w/4, band+(i/4)*(h-band)/3
		xproto.ChangeGC(c, gc, xproto.GcForeground, []uint32{colours[i%len(colours)]})
		xproto.PolyFillRectangle(c, xproto.Drawable(tw.win), gc, []xproto.Rectangle{{X: int16(x + 4), Y: int16(y + 4), Width: uint16(w/4 - 8), Height: uint16((h-band)/3 - 8)}})
		xproto.ChangeGC(c, gc, xproto.GcForeground|xproto.GcBackground, []uint32{0x000000, colours[i%len(colours)]})
		for line := range ((h-band)/3 - 24) / 14 {
			s := fmt.Sprintf("%02d: func (d *Desktop) screenshot(r image.Rectangle) %d", line, i*line)
			xproto.ImageText8(c, byte(len(s)), xproto.Drawable(tw.win), gc, int16(x+10), int16(y+20+14*line), s)
		}
	}
	if err := d.sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := xproto.GetInputFocus(c).Reply(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkScreenshot measures one screenshot action: GetImage of the
// whole screen, scaling to the model's size, PNG encoding and the
// pointer query, on a screen painted with gradients, panels and text.
// bench/desktop.sh runs it; the target is under 50 ms at 1280x800.
func BenchmarkScreenshot(b *testing.B) {
	for _, sz := range []struct{ w, h int }{{1280, 800}, {1920, 1080}} {
		d := newTestDesktop(b, Config{Width: sz.w, Height: sz.h})
		b.Run(fmt.Sprintf("%dx%d_to_%dx%d", sz.w, sz.h, d.scale.w, d.scale.h), func(b *testing.B) {
			tw := newTestWindow(b, d.disp, 0, 0, sz.w, sz.h, 0xffffff)
			paint(b, d.disp, tw, sz.w, sz.h)
			var size int
			b.ReportAllocs()
			for b.Loop() {
				d.mu.Lock()
				res, err := d.act(b.Context(), Input{Action: "screenshot"})
				d.mu.Unlock()
				if err != nil {
					b.Fatal(err)
				}
				size = len(res.Images[0].Data)
			}
			b.ReportMetric(float64(size)/1024, "KiB/png")
		})
		d.Close()
	}
}
