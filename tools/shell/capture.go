package shell

import (
	"context"
	"fmt"
	"sync"
)

// A capture keeps the output of a command: its first quarter-limit bytes
// and its last three-quarter-limit bytes, with a count of what was
// dropped between them. It is safe for concurrent use.
type capture struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	ring    []byte // the tail; once full, the oldest byte is ring[rpos]
	rpos    int
	total   int64
	changed chan struct{} // closed on the next write, if someone waits
}

func newCapture(limit int) *capture {
	return &capture{headMax: limit / 4, tailMax: limit - limit/4}
}

// write appends p and returns the number of bytes written so far.
func (c *capture) write(p []byte) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if n := min(c.headMax-len(c.head), len(p)); n > 0 {
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) > 0 {
		c.appendTail(p)
	}
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	return c.total
}

func (c *capture) appendTail(p []byte) {
	if c.tailMax == 0 {
		return
	}
	if len(p) >= c.tailMax {
		if cap(c.ring) < c.tailMax {
			c.ring = make([]byte, c.tailMax)
		}
		c.ring = c.ring[:c.tailMax]
		copy(c.ring, p[len(p)-c.tailMax:])
		c.rpos = 0
		return
	}
	if room := c.tailMax - len(c.ring); room > 0 {
		n := min(room, len(p))
		c.ring = append(c.ring, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 { // full: overwrite the oldest bytes
		n := copy(c.ring[c.rpos:], p)
		p = p[n:]
		c.rpos = (c.rpos + n) % len(c.ring)
	}
}

// dropped returns the number of bytes written but not kept: those
// between the head and the tail.
func (c *capture) dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total - int64(len(c.head)) - int64(len(c.ring))
}

// size returns the number of bytes written so far.
func (c *capture) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// since returns the kept output from byte offset from on, with a note in
// place of any bytes dropped, and the offset of its end.
func (c *capture) since(from int64) ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []byte
	if from < int64(len(c.head)) {
		out = append(out, c.head[from:]...)
		from = int64(len(c.head))
	}
	tailStart := c.total - int64(len(c.ring))
	if from < tailStart {
		out = fmt.Appendf(out, "\n[... %d bytes of output not kept ...]\n", tailStart-from)
		from = tailStart
	}
	skip := int(from - tailStart)
	if skip < len(c.ring) {
		if len(c.ring) < c.tailMax || c.rpos == 0 {
			out = append(out, c.ring[skip:]...)
		} else {
			// Oldest part is ring[rpos:], then ring[:rpos].
			first := c.ring[c.rpos:]
			if skip < len(first) {
				out = append(out, first[skip:]...)
				out = append(out, c.ring[:c.rpos]...)
			} else {
				out = append(out, c.ring[skip-len(first):c.rpos]...)
			}
		}
	}
	return out, c.total
}

// wait waits until cond holds for the whole kept output, ctx is done or
// stop is closed.
func (c *capture) wait(ctx context.Context, stop <-chan struct{}, cond func([]byte) bool) error {
	for {
		// Take the channel before reading, so that any write after the
		// read closes it.
		c.mu.Lock()
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		if out, _ := c.since(0); cond(out) {
			return nil
		}
		select {
		case <-ch:
		case <-stop:
			if out, _ := c.since(0); cond(out) {
				return nil
			}
			return fmt.Errorf("the command ended first")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
