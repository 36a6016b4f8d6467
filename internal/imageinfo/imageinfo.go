// Package imageinfo reads the type and size of an encoded picture from
// its header, without decoding its pixels: PNG, JPEG and GIF through the
// standard library's decoders, WebP from its RIFF header.
package imageinfo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// The MIME types Read recognises: the picture formats every model
// provider takes.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

// MaxSide is the largest width or height of a picture that every model
// provider takes (Anthropic refuses larger ones); callers refuse or scale
// down larger pictures rather than send them.
const MaxSide = 8000

// Info is what a picture's header says.
type Info struct {
	// MIMEType is one of PNG, JPEG, GIF and WebP.
	MIMEType string
	// Width and Height are the size in pixels, both positive.
	Width, Height int
}

// ErrUnknown is wrapped by the error of [Read] when data starts like none
// of the formats it knows.
var ErrUnknown = errors.New("not a PNG, JPEG, GIF or WebP picture")

// Format returns the MIME type of the picture data starts with, or "" when
// it is none of those Read knows. It looks only at the signature.
func Format(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return JPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP
	}
	return ""
}

// Read returns the type and size of the picture data. The error wraps
// [ErrUnknown] for data of another kind, and says what is wrong with a
// header that is broken or cut short.
func Read(data []byte) (Info, error) {
	mime := Format(data)
	var (
		cfg image.Config
		err error
	)
	switch mime {
	case PNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case JPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case GIF:
		cfg, err = gif.DecodeConfig(bytes.NewReader(data))
	case WebP:
		cfg.Width, cfg.Height, err = webpSize(data)
	default:
		return Info{}, ErrUnknown
	}
	if err != nil {
		return Info{}, fmt.Errorf("%s header: %w", mime, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, fmt.Errorf("%s header: size %dx%d is empty", mime, cfg.Width, cfg.Height)
	}
	return Info{MIMEType: mime, Width: cfg.Width, Height: cfg.Height}, nil
}

// errShort is returned for a WebP header cut short.
var errShort = errors.New("cut short")

// webpSize reads the canvas size of a WebP file from its first chunk:
// VP8X (extended: 24-bit sizes minus one), VP8L (lossless: 14-bit sizes
// minus one) or VP8 (lossy: 14-bit sizes in the key frame header). See
// https://developers.google.com/speed/webp/docs/riff_container.
func webpSize(data []byte) (w, h int, err error) {
	if len(data) < 20 {
		return 0, 0, errShort
	}
	chunk := string(data[12:16])
	body := data[20:]
	switch chunk {
	case "VP8X":
		if len(body) < 10 {
			return 0, 0, errShort
		}
		w = 1 + (int(body[4]) | int(body[5])<<8 | int(body[6])<<16)
		h = 1 + (int(body[7]) | int(body[8])<<8 | int(body[9])<<16)
		return w, h, nil
	case "VP8L":
		if len(body) < 5 {
			return 0, 0, errShort
		}
		if body[0] != 0x2f {
			return 0, 0, errors.New("VP8L chunk without its signature byte")
		}
		bits := binary.LittleEndian.Uint32(body[1:5])
		return 1 + int(bits&0x3fff), 1 + int(bits>>14&0x3fff), nil
	case "VP8 ":
		if len(body) < 10 {
			return 0, 0, errShort
		}
		if body[3] != 0x9d || body[4] != 0x01 || body[5] != 0x2a {
			return 0, 0, errors.New("VP8 chunk without a key frame start code")
		}
		w = int(binary.LittleEndian.Uint16(body[6:8]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(body[8:10]) & 0x3fff)
		return w, h, nil
	}
	return 0, 0, fmt.Errorf("unknown first chunk %q", chunk)
}
