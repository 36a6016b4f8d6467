//go:build race

package viewer

// raceEnabled reports whether the race detector is on: it slows Go code
// down several times, so time budgets of Go code are not checked then.
const raceEnabled = true
