package agent

import (
	"slices"

	"github.com/wieldhq/wield/tool"
)

// loopGuard notices the same call with the same result repeating.
type loopGuard struct {
	repeats, window int
	seen            map[string][]int // call+result key → rounds
}

func newLoopGuard(repeats, window int) *loopGuard {
	return &loopGuard{repeats: repeats, window: window, seen: map[string][]int{}}
}

// observe records a round's calls and reports the first call that has now
// repeated too often.
func (g *loopGuard) observe(round int, reqs []tool.Request, results []tool.Result) (string, bool) {
	for i, r := range reqs {
		key := r.Name + "\x00" + string(r.Arguments) + "\x00" + results[i].Output + "\x00" + results[i].Error
		rounds := append(g.seen[key], round)
		rounds = slices.DeleteFunc(rounds, func(n int) bool { return n <= round-g.window })
		g.seen[key] = rounds
		if len(rounds) >= g.repeats {
			return r.Name, true
		}
	}
	return "", false
}
