package expr

import (
	"regexp"
	"sync"
)

// regexCache memoizes compiled patterns. Patterns can come from row data, so it is bounded:
// two generations of at most regexCacheEntries patterns each (a lookup that hits the older one
// moves the pattern to the newer; when the newer is full it becomes the older and the older is
// dropped), and a pattern longer than regexCacheMaxPattern is compiled every time instead of
// kept. It holds no state a query can observe: a dropped pattern is compiled again.
type regexCache struct {
	mu       sync.Mutex
	cur, old map[string]*regexp.Regexp
}

const (
	regexCacheEntries    = 1024
	regexCacheMaxPattern = 4096
)

var compiledRegexes = &regexCache{cur: map[string]*regexp.Regexp{}}

func (c *regexCache) get(p string) (*regexp.Regexp, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.cur[p]; ok {
		return r, true
	}
	if r, ok := c.old[p]; ok {
		c.putLocked(p, r)
		return r, true
	}
	return nil, false
}

func (c *regexCache) put(p string, r *regexp.Regexp) {
	if len(p) > regexCacheMaxPattern {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(p, r)
}

func (c *regexCache) putLocked(p string, r *regexp.Regexp) {
	if len(c.cur) >= regexCacheEntries {
		c.old, c.cur = c.cur, make(map[string]*regexp.Regexp, regexCacheEntries)
	}
	c.cur[p] = r
}

// size is the number of patterns held.
func (c *regexCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}
