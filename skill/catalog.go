package skill

import "sync"

// A Catalog is the skills of a run: loaded from its roots on first use,
// and again after [Catalog.Reload] (when a skill was created or installed).
// Its zero value has no roots and no skills. A Catalog is safe for
// concurrent use; do not copy it after first use.
type Catalog struct {
	// Roots are searched in order of precedence; see [Roots]. They are
	// read on first use.
	Roots []Root

	mu       sync.Mutex
	set      *Set
	problems []Problem
}

// Set returns the skills, loading them on first use.
func (c *Catalog) Set() *Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		c.set, c.problems = Load(c.Roots...)
	}
	return c.set
}

// Problems returns the problems of the last load, loading first if need
// be. The slice is the caller's.
func (c *Catalog) Problems() []Problem {
	c.Set()
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Problem(nil), c.problems...)
}

// Reload reads the roots again and returns the new set.
func (c *Catalog) Reload() *Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set, c.problems = Load(c.Roots...)
	return c.set
}
