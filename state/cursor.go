package state

import (
	"github.com/cockroachdb/pebble/v2"
)

// Cursor reads key ranges of a Spill one after another through one iterator: cheaper than a
// Scan each when an owner reads many small ranges at once (the keys of a probe). It sees the
// store as it was when made; it is used by the store's goroutine, and closed before the store.
type Cursor struct {
	it *pebble.Iterator
}

// Cursor opens a cursor over the store as it is now.
func (s *Spill) Cursor() (*Cursor, error) {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return nil, spillErr("scanning", err)
	}
	return &Cursor{it: it}, nil
}

// Scan calls fn for every key in [lower, upper) in key order (nil bounds are open); fn must not
// keep key or value. Scan stops at fn's first error.
func (c *Cursor) Scan(lower, upper []byte, fn func(key, value []byte) error) error {
	c.it.SetBounds(lower, upper)
	for c.it.First(); c.it.Valid(); c.it.Next() {
		v, err := c.it.ValueAndErr()
		if err != nil {
			return spillErr("scanning", err)
		}
		if err := fn(c.it.Key(), v); err != nil {
			return err
		}
	}
	if err := c.it.Error(); err != nil {
		return spillErr("scanning", err)
	}
	return nil
}

// Close releases the cursor.
func (c *Cursor) Close() error {
	if err := c.it.Close(); err != nil {
		return spillErr("closing a cursor", err)
	}
	return nil
}
