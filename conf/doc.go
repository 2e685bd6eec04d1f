// Package conf holds the syntax of Spark's configuration and option values, parsed in one
// place for every package that reads them: byte sizes (ParseBytes, Spark's
// JavaUtils.byteStringAs), times (TimeStringAs and ParseTime, JavaUtils.timeStringAs: "10ms", "5s",
// a bare number in the key's or option's unit; config keys and source options alike) and interval strings (ParseInterval, IntervalUtils.stringToInterval:
// "10 seconds", "interval 1 hour 30 minutes", used by triggers, watermark delays and window
// durations). Errors are Spark's (NumberFormatException, INVALID_INTERVAL_FORMAT.*).
//
// It also names the session keys no runtime package owns (keys.go: the time zone, ANSI mode,
// ...), so that the SQL parser, the engine and connect spell each once. The registry of keys
// (their kinds, defaults, validation and docs) is engine's (engine/conf_keys.go); this package
// is a leaf: it imports only sparkerr, so query, sources, sql and expr can use it.
package conf
