package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// Validate checks value as Spark's ConfigEntry converter and checkValue do when the key is
// set, with Spark's errors.
func (e ConfEntry) Validate(value string) error {
	switch e.Kind {
	case ConfBool:
		if _, ok := parseBool(value); !ok {
			return sparkerr.IllegalArgument("%s should be boolean, but was %s", e.Key, value)
		}
	case ConfInt, ConfLong:
		bits, name := 32, "int"
		if e.Kind == ConfLong {
			bits, name = 64, "long"
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, bits)
		if err != nil {
			return sparkerr.IllegalArgument("%s should be %s, but was %s", e.Key, name, value)
		}
		return e.checkNumber(n)
	case ConfBytes:
		n, err := ParseBytes(value)
		if err != nil {
			return err
		}
		return e.checkNumber(n)
	case ConfTime:
		d, err := ParseTime(value, e.unit())
		if err != nil {
			return err
		}
		return e.checkNumber(int64(d / e.unit()))
	case ConfEnum:
		norm, ok := e.enumValue(value)
		if !ok {
			if e.Invalid != "" { // a checkValue in Spark
				return sparkerr.IllegalArgument("'%s' in %s is invalid. %s", norm, e.Key, e.Invalid)
			}
			return sparkerr.IllegalArgument("The value of %s should be one of %s, but was %s",
				e.Key, strings.Join(e.Values, ", "), norm)
		}
	case ConfTimeZone:
		if _, err := expr.LoadZone(value); err != nil {
			return sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_CONF_VALUE.TIME_ZONE", "22022",
				"The value '%s' in the config \"%s\" is invalid. Cannot resolve the given timezone.", value, e.Key).
				WithParams("confValue", value, "confName", e.Key)
		}
	}
	if e.ValidIn != nil && !e.ValidIn(value) {
		return sparkerr.IllegalArgument("'%s' in %s is invalid. %s", value, e.Key, e.Invalid)
	}
	return nil
}

func (e ConfEntry) checkNumber(n int64) error {
	if e.Valid != nil && !e.Valid(n) {
		return sparkerr.IllegalArgument("'%d' in %s is invalid. %s", n, e.Key, e.Invalid)
	}
	return nil
}

func (e ConfEntry) unit() time.Duration {
	if e.TimeUnit == 0 {
		return time.Millisecond
	}
	return e.TimeUnit
}

// enumValue normalizes value to the case of e.Values and reports whether it is one of them.
func (e ConfEntry) enumValue(value string) (string, bool) {
	for _, v := range e.Values {
		if strings.EqualFold(v, value) {
			return v, true
		}
	}
	if len(e.Values) > 0 && strings.ToUpper(e.Values[0]) == e.Values[0] {
		return strings.ToUpper(value), false
	}
	return strings.ToLower(value), false
}

// parseBool is Scala's String.toBoolean after trimming: true or false in any case.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

var (
	sizePattern = regexp.MustCompile(`^([0-9]+)([a-z]+)?$`)
	timePattern = regexp.MustCompile(`^(-?[0-9]+)([a-z]+)?$`)
	sizeUnits   = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "p": 1 << 50, "pb": 1 << 50}
	timeUnits = map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"m": time.Minute, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
)

// ParseBytes parses a size as Spark's bytesConf(ByteUnit.BYTE) does (JavaUtils.byteStringAs):
// a whole number with an optional unit b, k, m, g, t, p (or kb, mb, ...; any case), bytes
// without one; a leading "-" negates it.
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

// ParseTime parses a duration as Spark's timeConf does (JavaUtils.timeStringAs): a whole
// number with an optional unit us, ms, s, m or min, h, d; a bare number counts in unit.
func ParseTime(value string, unit time.Duration) (time.Duration, error) {
	m := timePattern.FindStringSubmatch(strings.ToLower(strings.TrimSpace(value)))
	fail := func(why string) (time.Duration, error) {
		return 0, sparkerr.Newf(sparkerr.NumberFormatException, "", "",
			"Time must be specified as seconds (s), milliseconds (ms), microseconds (us), minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.\n%s", why)
	}
	if m == nil {
		return fail("Failed to parse time string: " + value)
	}
	u := unit
	if m[2] != "" {
		var ok bool
		if u, ok = timeUnits[m[2]]; !ok {
			return fail(fmt.Sprintf("Invalid suffix: \"%s\"", m[2]))
		}
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(1<<63-1)/int64(u) || n < -int64(1<<63-1)/int64(u) {
		return fail("Failed to parse time string: " + value)
	}
	return time.Duration(n) * u, nil
}
