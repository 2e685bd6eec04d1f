package conf

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

var (
	sizePattern = regexp.MustCompile(`^([0-9]+)([a-z]+)?$`)
	sizeUnits   = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}
)

// ParseBytes parses a size as Spark's bytesConf(ByteUnit.BYTE) does (JavaUtils.byteStringAs):
// a whole number with an optional unit b, k, m, g, t, p (or kb, mb, ...; any case; powers of
// 1024), bytes without one; a leading "-" negates it.
func ParseBytes(value string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(value))
	neg := strings.HasPrefix(s, "-")
	m := sizePattern.FindStringSubmatch(strings.TrimPrefix(s, "-"))
	fail := func() (int64, error) {
		return 0, sparkerr.Newf(sparkerr.NumberFormatException, "", "",
			"Size must be specified as bytes (b), kibibytes (k), mebibytes (m), gibibytes (g), tebibytes (t), or pebibytes(p). E.g. 50b, 100k, or 250m.\nFailed to parse byte string: %s", value)
	}
	if m == nil {
		return fail()
	}
	unit, ok := sizeUnits[m[2]]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if !ok || err != nil || n > (1<<63-1)/unit {
		return fail()
	}
	if neg {
		return -n * unit, nil
	}
	return n * unit, nil
}
