package sinks

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// sinkOptions reads a sink's options case-insensitively, with the parsing rules of Spark's
// CaseInsensitiveStringMap.
type sinkOptions map[string]string

func newSinkOptions(options map[string]string) sinkOptions {
	out := make(sinkOptions, len(options))
	for k, v := range options {
		out[strings.ToLower(k)] = v
	}
	return out
}

// intOr is CaseInsensitiveStringMap.getInt: Integer.parseInt, whose failures are
// NumberFormatExceptions.
func (o sinkOptions) intOr(key string, def int) (int, error) {
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

// boolOr is CaseInsensitiveStringMap.getBoolean: "true"/"false" in any case, anything else an
// IllegalArgumentException.
func (o sinkOptions) boolOr(key string, def bool) (bool, error) {
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
