package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
)

// Conf is a session's runtime configuration (spark.conf): string keys and values over the
// registry's defaults (confEntries). Set validates registered keys as Spark does and leaves
// the previous value in place when it refuses one.
type Conf struct {
	mu  sync.RWMutex
	set map[string]string
}

// Defaults are the values Weir reports for keys the user has not set, derived from the
// registry.
var Defaults = func() map[string]string {
	m := map[string]string{}
	for _, e := range confEntries {
		if !e.NoDefault {
			m[e.Key] = e.Default
		}
	}
	return m
}()

// NewConf returns an empty configuration over Defaults.
func NewConf() *Conf { return &Conf{set: map[string]string{}} }

// Get returns key's value (set or default) and whether there is one.
func (c *Conf) Get(key string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if v, ok := c.set[key]; ok {
		return v, true
	}
	v, ok := Defaults[key]
	return v, ok
}

// isSet reports whether the session set key (not only its default).
func (c *Conf) isSet(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.set[key]
	return ok
}

// GetOr returns key's value or def.
func (c *Conf) GetOr(key, def string) string {
	if v, ok := c.Get(key); ok {
		return v
	}
	return def
}

// Bool returns key's value as a boolean (default def when unset or unparsable).
func (c *Conf) Bool(key string, def bool) bool {
	v, ok := c.Get(key)
	if !ok {
		return def
	}
	if b, ok := parseBool(v); ok {
		return b
	}
	return def
}

// Int returns key's value as an integer (def when unset or unparsable).
func (c *Conf) Int(key string, def int64) int64 {
	if v, ok := c.Get(key); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			return n
		}
	}
	return def
}

// Bytes returns key's value as a size in bytes (def when unset or unparsable).
func (c *Conf) Bytes(key string, def int64) int64 {
	if v, ok := c.Get(key); ok {
		if n, err := conf.ParseBytes(v); err == nil {
			return n
		}
	}
	return def
}

// Duration returns key's value as a duration whose bare numbers count in the key's unit
// (def when unset or unparsable).
func (c *Conf) Duration(key string, def time.Duration) time.Duration {
	unit := time.Millisecond
	if e, ok := confByKey[key]; ok {
		unit = e.unit()
	}
	if v, ok := c.Get(key); ok {
		if d, err := conf.ParseTime(v, unit); err == nil {
			return d
		}
	}
	return def
}

// Set sets key to value after checking it as Spark would: static keys cannot be set and a
// registered key's value must be valid for its type. Unknown keys take any value.
func (c *Conf) Set(key, value string) error {
	if e, ok := confByKey[key]; ok {
		if e.Static {
			return sparkerr.Analysis("CANNOT_MODIFY_CONFIG", "46110",
				"Cannot modify the value of the static Spark config: %s.", sparkerr.Quote(key)).WithParams("key", key)
		}
	}
	return c.setInitial(key, value)
}

// setInitial sets key to value as the server's configuration does (--conf): checked as Set
// checks it, static keys included.
func (c *Conf) setInitial(key, value string) error {
	if e, ok := confByKey[key]; ok {
		if err := e.Validate(value); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set[key] = value
	return nil
}

// CheckServerConf checks the server's configuration (--conf KEY=VALUE pairs) as its sessions
// will take it (WithConf), so a bad value stops the server from starting.
func CheckServerConf(kv [][2]string) error {
	c := NewConf()
	for _, p := range kv {
		if err := c.setInitial(p[0], p[1]); err != nil {
			return fmt.Errorf("--conf %s=%s: %w", p[0], p[1], err)
		}
	}
	return nil
}

// Unset removes a user setting.
func (c *Conf) Unset(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.set, key)
}

// IsModifiable reports whether key may be set at run time.
func (c *Conf) IsModifiable(key string) bool {
	e, ok := confByKey[key]
	return !ok || !e.Static
}

// Undefined is what All reports for a registered key without a default that is not set
// (Spark's SET -v shows such optional entries the same way).
const Undefined = "<undefined>"

// All returns every key that starts with prefix, sorted by key: each registered key with its
// value, its default or Undefined, and each other key that was set.
func (c *Conf) All(prefix string) [][2]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m := map[string]string{}
	for _, e := range confEntries {
		m[e.Key] = Undefined
	}
	for k, v := range Defaults {
		m[k] = v
	}
	for k, v := range c.set {
		m[k] = v
	}
	var out [][2]string
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			out = append(out, [2]string{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
