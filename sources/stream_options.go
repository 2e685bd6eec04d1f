package sources

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
)

// Option parsing for stream sources, with the exceptions Spark's CaseInsensitiveStringMap and
// JavaUtils raise for malformed values. Keys are lower-case (NormalizeOptions).

// IllegalStateException is Java's exception class for a stream source in a state it cannot
// serve (sparkerr has no constant for it).
const IllegalStateException = "java.lang.IllegalStateException"

// numberFormat is Java's NumberFormatException for a string that is not a number.
func numberFormat(s string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.NumberFormatException, "", "", "For input string: %q", s)
}

// OptionLong reads a long option like CaseInsensitiveStringMap.getLong (Long.parseLong).
func OptionLong(opts map[string]string, key string, def int64) (int64, error) {
	s, ok := opts[key]
	if !ok {
		return def, nil
	}
	v, err := ParseJavaLong(s, 64)
	if err != nil {
		return 0, err
	}
	return v, nil
}

// OptionInt reads an int option like CaseInsensitiveStringMap.getInt (Integer.parseInt).
func OptionInt(opts map[string]string, key string, def int) (int, error) {
	s, ok := opts[key]
	if !ok {
		return def, nil
	}
	v, err := ParseJavaLong(s, 32)
	if err != nil {
		return 0, err
	}
	return int(v), nil
}

// ParseJavaLong parses a decimal integer the way Long.parseLong / Integer.parseInt do: an
// optional sign and digits only (no spaces, no underscores).
func ParseJavaLong(s string, bits int) (int64, error) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if body == "" || strings.IndexFunc(body, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, numberFormat(s)
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, numberFormat(s)
	}
	return v, nil
}

// OptionBool reads a boolean option like CaseInsensitiveStringMap.getBoolean.
func OptionBool(opts map[string]string, key string, def bool) (bool, error) {
	s, ok := opts[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, sparkerr.IllegalArgument("%s is not a boolean string.", s)
}

// TimeStringError is the message of a malformed time string (JavaUtils.timeStringAs).
const TimeStringError = conf.TimeFormatMessage

// TimeStringAsSec is JavaUtils.timeStringAsSec: "5s", "100ms", "2min", a bare number means
// seconds.
func TimeStringAsSec(str string) (int64, error) { return TimeStringAs(str, 1e6) }

// TimeStringAs parses a JavaUtils time string into units of unitMicros microseconds
// (conf.TimeStringAs).
func TimeStringAs(str string, unitMicros int64) (int64, error) {
	return conf.TimeStringAs(str, time.Duration(unitMicros)*time.Microsecond)
}

// Positive checks Spark's "Invalid value 'v'. The option 'name' must be positive".
func Positive(name string, v int64) error {
	if v <= 0 {
		return sparkerr.IllegalArgument("Invalid value '%d'. The option '%s' must be positive", v, name)
	}
	return nil
}

// NoUserSchema is the error Spark raises for a user schema on a source that has a fixed one
// (QueryExecutionErrors.userSpecifiedSchemaUnsupportedByDataSourceError).
func NoUserSchema(provider, userSchema string) error {
	if strings.TrimSpace(userSchema) == "" {
		return nil
	}
	return sparkerr.Newf(sparkerr.UnsupportedOperation, "", "",
		"%s source does not support user-specified schema.", provider)
}

// EnvDefaults fills a StreamEnv's unset fields.
func EnvDefaults(env StreamEnv) StreamEnv {
	if env.Mem == nil {
		env.Mem = memory.DefaultAllocator
	}
	if env.Clock == nil {
		env.Clock = clock.New()
	}
	if env.DefaultPartitions <= 0 {
		env.DefaultPartitions = 1
	}
	return env
}

// ParseLongOffset reads an offset that is a JSON integer (rate, socket).
func ParseLongOffset(source string, off Offset) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(string(off)), 10, 64)
	if err != nil {
		return 0, sparkerr.Internal("the %s source cannot read the offset %q", source, string(off))
	}
	return v, nil
}

// LongOffset renders a JSON integer offset.
func LongOffset(v int64) Offset { return Offset(strconv.FormatInt(v, 10)) }
