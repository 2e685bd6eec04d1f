package sources

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

var byteSizePattern = regexp.MustCompile(`^(-?[0-9]+)([a-z]+)?$`)

// byteUnits are the suffixes of Spark's byte strings (JavaUtils.byteStringAs), binary units.
var byteUnits = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}

// ParseByteSize reads a byte size as Spark's byte configs do: a whole number with an optional
// unit b, k/kb, m/mb, g/gb, t/tb, p/pb (powers of 1024, any case); a bare number is bytes.
func ParseByteSize(key, v string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	bad := func() error {
		return sparkerr.IllegalArgument("%s should be a size in bytes such as 1048576, 512m or 2g, but was %s", key, v)
	}
	m := byteSizePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, bad()
	}
	unit, ok := byteUnits[m[2]]
	if !ok {
		return 0, bad()
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/unit || n < math.MinInt64/unit {
		return 0, bad()
	}
	return n * unit, nil
}
