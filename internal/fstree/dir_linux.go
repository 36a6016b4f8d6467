package fstree

import (
	"encoding/binary"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux the walker works on directory descriptors itself. Reading a
// directory through os.Root costs an lstat per entry (os.Root cannot trust
// the entry types getdents reports), and every os.File registers with the
// poller; for a tree of 10,000 files that is a third of the time. Each
// descriptor here descends from a directory opened through the call's
// os.Root, and every path used with one is a single name read from the
// directory, opened with O_NOFOLLOW: it cannot lead out of the directory.

// An fdDir is an open directory.
type fdDir int

// openStart opens the directory rel of root for a walk.
func openStart(root *os.Root, rel string) (dirHandle, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: rel, Err: unix.ENOTDIR}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, &os.PathError{Op: "dup", Path: rel, Err: derr}
	}
	return fdDir(fd), nil
}

func (d fdDir) entries(buf []byte) ([]dirent, error) {
	var out []dirent
	for {
		n, err := unix.Getdents(int(d), buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, &os.PathError{Op: "getdents", Path: ".", Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return out, fmt.Errorf("getdents: bad record length %d", reclen)
			}
			typ := b[18]
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirent{name: string(name)}
			switch typ {
			case unix.DT_DIR:
				e.typ = iofs.ModeDir
			case unix.DT_REG:
				e.typ = 0
			case unix.DT_LNK:
				e.typ = iofs.ModeSymlink
			case unix.DT_UNKNOWN:
				var st unix.Stat_t
				if err := unix.Fstatat(int(d), e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone since it was listed
				}
				e.typ = modeType(st.Mode)
			default:
				e.typ = iofs.ModeIrregular
			}
			out = append(out, e)
		}
	}
}

func modeType(m uint32) iofs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return iofs.ModeDir
	case unix.S_IFREG:
		return 0
	case unix.S_IFLNK:
		return iofs.ModeSymlink
	}
	return iofs.ModeIrregular
}

func (d fdDir) openat(name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(int(d), name, flags|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return fd, nil
	}
}

func (d fdDir) sub(name string) (dirHandle, error) {
	fd, err := d.openat(name, unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	return fdDir(fd), nil
}

func (d fdDir) open(name string) (fileReader, error) {
	// O_NONBLOCK: should the file have turned into a named pipe since it
	// was listed, opening it must not wait for a writer.
	fd, err := d.openat(name, unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return fdFile(fd), nil
}

func (d fdDir) lstat(name string) (int64, time.Time, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, time.Time{}, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	return st.Size, time.Unix(st.Mtim.Unix()), nil
}

func (d fdDir) close() error { return unix.Close(int(d)) }

// An fdFile is a file open for reading.
type fdFile int

func (f fdFile) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Err: err}
		}
		if n == 0 && len(b) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdFile) Close() error { return unix.Close(int(f)) }
