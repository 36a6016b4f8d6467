//go:build !linux

package desktop

import (
	"errors"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// A shmImage is unused outside Linux: screenshots use GetImage.
type shmImage struct{}

func newShmImage(*xgb.Conn, int) (*shmImage, error) { return nil, errors.ErrUnsupported }

func (*shmImage) grab(xproto.Window, image.Rectangle) ([]byte, error) {
	return nil, errors.ErrUnsupported
}

func (*shmImage) close() {}
