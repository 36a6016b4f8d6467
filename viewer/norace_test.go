//go:build !race

package viewer

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
