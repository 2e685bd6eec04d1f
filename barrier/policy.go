package barrier

import (
	"math"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Policy is how the watermarks of several watermarked inputs combine into one
// (spark.sql.streaming.multipleWatermarkPolicy).
type Policy uint8

const (
	// PolicyMin follows the slowest input: no row of any input is late or closed early (Spark's
	// default).
	PolicyMin Policy = iota
	// PolicyMax follows the fastest input: rows of slower inputs may be dropped as late.
	PolicyMax
)

// PolicyConf is the session configuration naming the policy.
const PolicyConf = "spark.sql.streaming.multipleWatermarkPolicy"

// ParsePolicy reads a PolicyConf value ("min" or "max", any case), as Spark's
// MultipleWatermarkPolicy does.
func ParsePolicy(s string) (Policy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "min":
		return PolicyMin, nil
	case "max":
		return PolicyMax, nil
	}
	return PolicyMin, sparkerr.IllegalArgument("Could not recognize watermark policy '%s'", s)
}

// String is the policy's configuration value.
func (p Policy) String() string {
	if p == PolicyMax {
		return "max"
	}
	return "min"
}

// combine applies the policy to the inputs' watermarks; ok is false without any.
func (p Policy) combine(vals []int64) (int64, bool) {
	if len(vals) == 0 {
		return 0, false
	}
	m := vals[0]
	for _, v := range vals[1:] {
		if p == PolicyMax {
			m = max(m, v)
		} else {
			m = min(m, v)
		}
	}
	if m == math.MinInt64 {
		return 0, false
	}
	return m, true
}
