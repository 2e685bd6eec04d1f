package engine

import (
	"sort"
	"strings"
	"sync"

	"github.com/weirhq/weir/sparkerr"
)

// Conf is a session's runtime configuration (spark.conf): string keys and values over defaults.
type Conf struct {
	mu  sync.RWMutex
	set map[string]string
}

// Defaults are the values Weir reports for keys the user has not set.
var Defaults = map[string]string{
	"spark.sql.session.timeZone":                                      "UTC",
	"spark.sql.ansi.enabled":                                          "true",
	"spark.sql.shuffle.partitions":                                    "2",
	"spark.sql.caseSensitive":                                         "false",
	"spark.sql.execution.arrow.maxRecordsPerBatch":                    "10000",
	"spark.sql.repl.eagerEval.enabled":                                "false",
	"spark.sql.repl.eagerEval.maxNumRows":                             "20",
	"spark.sql.repl.eagerEval.truncate":                               "20",
	"spark.sql.pyspark.inferNestedDictAsStruct.enabled":               "false",
	"spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled": "false",
	"spark.sql.timestampType":                                         "TIMESTAMP_LTZ",
	"spark.sql.streaming.checkpointLocation":                          "",
	// Weir polls idle sources every millisecond (Spark: 10ms), so rows reach sinks within
	// milliseconds under the default trigger.
	"spark.sql.streaming.pollingDelay": "1ms",
	"spark.app.name":                   "weir",
	"spark.master":                     "local[*]",
}

// staticKeys cannot be changed at run time (IsModifiable false; Set fails like Spark's
// CANNOT_MODIFY_CONFIG for static configs).
var staticKeys = map[string]bool{
	"spark.master":   true,
	"spark.app.name": true,
}

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
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true
	case "false":
		return false
	}
	return def
}

// Set sets key to value.
func (c *Conf) Set(key, value string) error {
	if staticKeys[key] {
		return sparkerr.Analysis("CANNOT_MODIFY_CONFIG", "46110",
			"Cannot modify the value of the static Spark config: %s.", sparkerr.Quote(key)).WithParams("key", key)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set[key] = value
	return nil
}

// Unset removes a user setting.
func (c *Conf) Unset(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.set, key)
}

// IsModifiable reports whether key may be set at run time.
func (c *Conf) IsModifiable(key string) bool { return !staticKeys[key] }

// All returns every key with a value (set or default) that starts with prefix, sorted by key.
func (c *Conf) All(prefix string) [][2]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m := map[string]string{}
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
