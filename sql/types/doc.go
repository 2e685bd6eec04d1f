// Package sqltypes (directory sql/types, imported as sqltypes "github.com/weirhq/weir/sql/types")
// is Spark's type system as Weir sees it: DataType (with nested array, map and struct types), Field,
// and the two-way mapping to Arrow types used on the wire and in batches.
//
// Mapping (Spark → Arrow): boolean→bool, byte→int8, short→int16, int→int32, long→int64,
// float→float32, double→float64, decimal(p,s)→decimal128(p,s), string→utf8, binary→binary,
// date→date32, timestamp→timestamp[us, tz=session zone], timestamp_ntz→timestamp[us],
// interval day to second→duration[us], interval year to month→month_interval, interval (Spark's
// CalendarIntervalType)→month_day_nano_interval,
// time(p)→time64[ns] (PySpark's to_arrow_type; FromArrow reads any time32/time64 as time(6)),
// array→list, map→map, struct→struct, void→null, variant→struct<value: binary, metadata:
// binary> with the metadata field tagged variant=true (as Spark Connect sends it; FromArrow reads
// that struct back as VARIANT), geometry(srid)/geography(srid)→struct<srid: int32, wkb: binary>
// with the wkb field tagged geometry|geography=true and srid=<srid> (-1 for ANY), as PySpark
// 4.1+ reads them.
//
// Go values (literals and row-wise evaluation) use: nil for NULL, bool, int8, int16, int32,
// int64, float32, float64, decimal128.Num (scale from the type), string, []byte, int32 days for
// date, int64 microseconds for timestamps and day-time intervals, int64 nanoseconds since
// midnight for time (Spark's internal form; whole microseconds, as precision is at most 6), int32
// months for year-month intervals, CalendarIntervalValue for calendar intervals, []any for
// arrays and structs, *MapValue for maps, VariantValue for variants (the encoding is package
// sql/types/variant), GeoValue for geometries and geographies. ParseTime and FormatTime are
// Spark's string forms of a time (timeofday.go).
//
// ParseJSONType and JSONType read and write Spark's JSON form of a type (DataType.json()).
package sqltypes
