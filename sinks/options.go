package sinks

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Options reads a sink's options case-insensitively, with the parsing rules of Spark's
// CaseInsensitiveStringMap.
type Options map[string]string

// NewOptions lower-cases the keys of a sink's options.
func NewOptions(options map[string]string) Options {
	out := make(Options, len(options))
	for k, v := range options {
		out[strings.ToLower(k)] = v
	}
	return out
}

// IntOr is CaseInsensitiveStringMap.getInt: Integer.parseInt, whose failures are
// NumberFormatExceptions.
func (o Options) IntOr(key string, def int) (int, error) {
	v, ok := o[strings.ToLower(key)]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, sparkerr.New(sparkerr.NumberFormatException, "", "", `For input string: "`+v+`"`)
	}
	return int(n), nil
}

// BoolOr is CaseInsensitiveStringMap.getBoolean: "true"/"false" in any case, anything else an
// IllegalArgumentException.
func (o Options) BoolOr(key string, def bool) (bool, error) {
	v, ok := o[strings.ToLower(key)]
	if !ok {
		return def, nil
	}
	switch {
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return false, sparkerr.IllegalArgument("%s is not a boolean string.", v)
}
