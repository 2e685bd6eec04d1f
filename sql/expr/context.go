package expr

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mem is the context's allocator (the default one for a nil context).
func (c *Context) mem() memory.Allocator {
	if c == nil || c.Mem == nil {
		return memory.DefaultAllocator
	}
	return c.Mem
}

// loc is the session time zone (UTC for a nil context).
func (c *Context) loc() *time.Location {
	if c == nil || c.Location == nil {
		return time.UTC
	}
	return c.Location
}

// tz is the session time zone's name as Arrow timestamp types carry it.
func (c *Context) tz() string {
	l := c.loc()
	if l == time.Local {
		return "UTC"
	}
	return l.String()
}

func (c *Context) ansi() bool { return c != nil && c.ANSI }

func nil2utc() *time.Location { return time.UTC }
