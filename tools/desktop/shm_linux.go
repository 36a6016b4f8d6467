package desktop

import (
	"fmt"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"
)

// A shmImage is a System V shared memory segment attached both here and
// in the X server, into which the server copies screen pixels (MIT-SHM):
// the 4 MB of a 1280x800 screen then cross no socket and are not copied
// by xgb, which halves a screenshot's time.
type shmImage struct {
	conn *xgb.Conn
	seg  shm.Seg
	mem  []byte
}

// newShmImage returns a segment of size bytes, or an error when the
// server has no MIT-SHM or cannot attach the segment (a remote display,
// another IPC namespace); the caller then reads pixels with GetImage.
func newShmImage(conn *xgb.Conn, size int) (*shmImage, error) {
	if err := shm.Init(conn); err != nil {
		return nil, err
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return nil, fmt.Errorf("shmget: %w", err)
	}
	// Removed once both sides have detached, even if wield dies.
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("shmat: %w", err)
	}
	seg, err := shm.NewSegId(conn)
	if err == nil {
		err = shm.AttachChecked(conn, seg, uint32(id), false).Check()
	}
	if err != nil {
		unix.SysvShmDetach(mem)
		return nil, fmt.Errorf("MIT-SHM attach: %w", err)
	}
	return &shmImage{conn: conn, seg: seg, mem: mem}, nil
}

// grab reads r of the root window into the segment and returns its
// pixels, which stay valid until the next grab.
func (s *shmImage) grab(root xproto.Window, r image.Rectangle) ([]byte, error) {
	n := 4 * r.Dx() * r.Dy()
	if n > len(s.mem) {
		return nil, fmt.Errorf("capture the screen: %v does not fit the shared segment", r)
	}
	_, err := shm.GetImage(s.conn, xproto.Drawable(root), int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()),
		^uint32(0), xproto.ImageFormatZPixmap, s.seg, 0).Reply()
	if err != nil {
		return nil, fmt.Errorf("capture the screen: %w", err)
	}
	return s.mem[:n], nil
}

// close detaches the segment here; the server detaches when the
// connection closes.
func (s *shmImage) close() { unix.SysvShmDetach(s.mem) }
