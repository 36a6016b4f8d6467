package imageinfo

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

func encoded(t testing.TB, encode func(*bytes.Buffer, image.Image) error, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngOf(b *bytes.Buffer, m image.Image) error  { return png.Encode(b, m) }
func jpegOf(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) }
func gifOf(b *bytes.Buffer, m image.Image) error  { return gif.Encode(b, m, nil) }

// webpHeader returns the start of a WebP file whose first chunk is chunk
// with body.
func webpHeader(chunk string, body []byte) []byte {
	out := []byte("RIFF\x00\x00\x00\x00WEBP" + chunk)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...)
}

func vp8x(w, h int) []byte {
	b := make([]byte, 10)
	b[4], b[5], b[6] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
	b[7], b[8], b[9] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
	return webpHeader("VP8X", b)
}

func vp8l(w, h int) []byte {
	return webpHeader("VP8L", binary.LittleEndian.AppendUint32([]byte{0x2f}, uint32(w-1)|uint32(h-1)<<14))
}

func vp8(w, h int) []byte {
	b := []byte{0, 0, 0, 0x9d, 0x01, 0x2a}
	b = binary.LittleEndian.AppendUint16(b, uint16(w))
	return webpHeader("VP8 ", binary.LittleEndian.AppendUint16(b, uint16(h)))
}

func TestRead(t *testing.T) {
	// A real 1×1 lossless WebP file.
	tiny, _ := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	tests := []struct {
		name string
		data []byte
		want Info
	}{
		{"png", encoded(t, pngOf, 3, 2), Info{PNG, 3, 2}},
		{"jpeg", encoded(t, jpegOf, 17, 5), Info{JPEG, 17, 5}},
		{"gif", encoded(t, gifOf, 1, 9), Info{GIF, 1, 9}},
		{"webp lossless file", tiny, Info{WebP, 1, 1}},
		{"webp extended", vp8x(1280, 800), Info{WebP, 1280, 800}},
		{"webp extended, largest", vp8x(1<<24, 1<<24), Info{WebP, 1 << 24, 1 << 24}},
		{"webp lossless", vp8l(16384, 3), Info{WebP, 16384, 3}},
		{"webp lossy", vp8(640, 480), Info{WebP, 640, 480}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.data)
			if err != nil || got != tt.want {
				t.Errorf("Read = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestReadFails(t *testing.T) {
	pngData := encoded(t, pngOf, 3, 2)
	tests := []struct {
		name    string
		data    []byte
		unknown bool
	}{
		{"empty", nil, true},
		{"text", []byte("hello"), true},
		{"bmp", []byte("BM\x00\x00\x00\x00"), true},
		{"png cut short", pngData[:12], false},
		{"webp cut short", vp8x(10, 10)[:25], false},
		{"webp lossy of size 0", vp8(0, 10), false},
		{"webp lossless without signature", webpHeader("VP8L", []byte{0, 0, 0, 0, 0}), false},
		{"webp of an unknown chunk", webpHeader("ALPH", make([]byte, 10)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.data)
			if err == nil {
				t.Fatalf("Read = %+v, want an error", got)
			}
			if errors.Is(err, ErrUnknown) != tt.unknown {
				t.Errorf("Read error %q: errors.Is(ErrUnknown) = %v, want %v", err, !tt.unknown, tt.unknown)
			}
		})
	}
}

// FuzzRead checks that Read never panics, and that what it accepts has a
// positive size and the type its signature says.
func FuzzRead(f *testing.F) {
	f.Add(encoded(f, pngOf, 3, 2))
	f.Add(encoded(f, gifOf, 2, 2))
	f.Add(encoded(f, jpegOf, 2, 2))
	f.Add(vp8x(5, 6))
	f.Add(vp8l(5, 6))
	f.Add(vp8(5, 6))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Read(data)
		if err != nil {
			return
		}
		if info.Width <= 0 || info.Height <= 0 || info.MIMEType != Format(data) {
			t.Errorf("Read(%q) = %+v: want a positive size and type %q", data, info, Format(data))
		}
	})
}

// FuzzWebPSize checks that the size written in each kind of WebP header
// is the size read back.
func FuzzWebPSize(f *testing.F) {
	f.Add(uint32(1), uint32(1), uint8(0))
	f.Add(uint32(1280), uint32(800), uint8(1))
	f.Add(uint32(16383), uint32(16383), uint8(2))
	f.Fuzz(func(t *testing.T, w, h uint32, kind uint8) {
		var data []byte
		switch kind % 3 {
		case 0:
			w, h = w%(1<<24)+1, h%(1<<24)+1
			data = vp8x(int(w), int(h))
		case 1:
			w, h = w%(1<<14)+1, h%(1<<14)+1
			data = vp8l(int(w), int(h))
		default:
			w, h = w%(1<<14-1)+1, h%(1<<14-1)+1
			data = vp8(int(w), int(h))
		}
		info, err := Read(data)
		if err != nil || info != (Info{WebP, int(w), int(h)}) {
			t.Errorf("Read(kind %d, %dx%d) = %+v, %v", kind%3, w, h, info, err)
		}
	})
}
