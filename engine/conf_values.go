package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/weirhq/weir/conf"
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
		n, err := conf.ParseBytes(value)
		if err != nil {
			return err
		}
		return e.checkNumber(n)
	case ConfTime:
		d, err := conf.ParseTime(value, e.unit())
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
