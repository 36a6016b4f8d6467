//go:build unix

package ledger

import (
	iofs "io/fs"
	"syscall"
)

// statKey returns the inode and change time of info, where the system has
// them: with the size and modification time they tell whether a file may
// have changed since it was hashed.
func statKey(info iofs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), ctimeOf(st)
	}
	return 0, 0
}
