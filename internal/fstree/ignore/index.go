package ignore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ParseIndex returns the paths recorded in a git index file (the tracked
// files), in index order, each once. hashSize is the object id length of the
// repository: 20 for SHA-1, 32 for SHA-256. Versions 2, 3 and 4 are
// understood; extensions and the trailing checksum are not read. Entries of
// a sparse index that stand for whole directories are left out.
func ParseIndex(data []byte, hashSize int) ([]string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index: bad signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index version %d not supported", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	// Each entry takes at least 40 bytes of stat data, the id and flags.
	fixed := 40 + hashSize + 2
	if uint64(count) > uint64(len(data))/uint64(fixed) {
		return nil, fmt.Errorf("git index claims %d entries in %d bytes", count, len(data))
	}
	paths := make([]string, 0, count)
	var prev []byte // the previous path, for version 4's prefix compression
	off := 12
	for n := uint32(0); n < count; n++ {
		start := off
		if len(data)-off < fixed {
			return nil, fmt.Errorf("git index entry %d: truncated", n)
		}
		mode := binary.BigEndian.Uint32(data[off+24 : off+28])
		flags := binary.BigEndian.Uint16(data[off+40+hashSize:])
		off += fixed
		if flags&0x4000 != 0 { // extended flags follow
			if version < 3 {
				return nil, fmt.Errorf("git index entry %d: extended flags in version %d", n, version)
			}
			if len(data)-off < 2 {
				return nil, fmt.Errorf("git index entry %d: truncated", n)
			}
			off += 2
		}
		var path []byte
		if version == 4 {
			strip, used := uvarint(data[off:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("git index entry %d: bad path compression", n)
			}
			off += used
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return nil, fmt.Errorf("git index entry %d: unterminated path", n)
			}
			path = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], data[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return nil, fmt.Errorf("git index entry %d: unterminated path", n)
			}
			path = data[off : off+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
			if off > len(data) {
				return nil, fmt.Errorf("git index entry %d: truncated", n)
			}
		}
		if len(path) == 0 {
			return nil, fmt.Errorf("git index entry %d: empty path", n)
		}
		prev = path
		if mode&0o170000 == 0o040000 {
			continue // sparse-index directory entry
		}
		s := string(path)
		// Entries are sorted by path, then stage: conflicts repeat a path.
		if len(paths) > 0 && paths[len(paths)-1] == s {
			continue
		}
		paths = append(paths, s)
	}
	return paths, nil
}

// uvarint decodes git's offset varint (not encoding/binary's): each
// continuation adds one before shifting, so every value has one encoding.
// It returns the value and the bytes used, or 0 bytes for bad input.
func uvarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 0x7f)
	i := 1
	for c&0x80 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		v++
		c = b[i]
		i++
		v = v<<7 | uint64(c&0x7f)
	}
	return v, i
}
