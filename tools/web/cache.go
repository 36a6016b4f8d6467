package web

import (
	"container/list"
	"sync"
	"time"
)

// pageCache keeps extracted pages for a while, least recently used first
// out, within a byte budget. It is safe for concurrent use.
type pageCache struct {
	ttl    time.Duration
	budget int
	now    func() time.Time

	mu    sync.Mutex
	size  int
	order *list.List // of *cacheEntry, most recent at the front
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key     string
	page    *page
	size    int
	expires time.Time
}

func newPageCache(ttl time.Duration, budget int, now func() time.Time) *pageCache {
	return &pageCache{ttl: ttl, budget: budget, now: now, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the page kept under key, if it has not expired.
func (c *pageCache) get(key string) (*page, bool) {
	if c.ttl < 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.page, true
}

// put keeps p under key. A page larger than the whole budget is not kept.
func (c *pageCache) put(key string, p *page) {
	size := p.size() + len(key)
	if c.ttl < 0 || size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, page: p, size: size, expires: c.now().Add(c.ttl)})
	c.size += size
	for c.size > c.budget {
		c.remove(c.order.Back())
	}
}

func (c *pageCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.byKey, e.key)
	c.size -= e.size
}
