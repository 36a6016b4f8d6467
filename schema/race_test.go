//go:build race

package schema

// raceEnabled reports whether the race detector is on; it allocates, so
// allocation budgets are not checked under it.
const raceEnabled = true
