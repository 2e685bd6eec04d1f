package expr

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Timestamp kernels over int64 epoch microseconds: CAST(TIMESTAMP AS DATE) (so year(ts),
// month(ts), … , which bind over that cast, run on the date kernels), hour/minute/second, and
// CAST(DATE AS TIMESTAMP) (a date compared with a timestamp).
// A TIMESTAMP is read in the session time zone: UTC (and TIMESTAMP_NTZ) add nothing; another
// zone's offset is looked up once per zone period (time.Time.ZoneBounds) and reused while the
// rows stay in it, so clustered timestamps cost one lookup per transition crossed.

const microsPerDay = 86400e6

// zoneOffsets gives the UTC offset, in seconds, of a zone at an instant.
type zoneOffsets struct {
	loc        *time.Location
	utc        bool
	start, end int64 // unix seconds [start, end) during which off holds
	off        int64
}

func newZoneOffsets(loc *time.Location, ntz bool) *zoneOffsets {
	return &zoneOffsets{loc: loc, utc: ntz || loc == time.UTC || loc.String() == "UTC", start: 1, end: 0}
}

// at is the offset at epoch microsecond us.
func (z *zoneOffsets) at(us int64) int64 {
	if z.utc {
		return 0
	}
	s := floorDiv(us, 1e6)
	if s >= z.start && s < z.end {
		return z.off
	}
	t := time.Unix(s, 0).In(z.loc)
	_, off := t.Zone()
	st, en := t.ZoneBounds()
	z.start, z.end, z.off = math.MinInt64, math.MaxInt64, int64(off)
	if !st.IsZero() {
		z.start = st.Unix()
	}
	if !en.IsZero() {
		z.end = en.Unix()
	}
	return z.off
}

// localDay splits us, read at offset off seconds, into its epoch day and microsecond of day
// (without overflowing near the ends of the int64 range).
func localDay(us, off int64) (day, micros int64) {
	day, micros = floorDiv(us, microsPerDay), floorMod(us, microsPerDay)
	micros += off * 1e6
	for micros < 0 {
		micros += microsPerDay
		day--
	}
	for micros >= microsPerDay {
		micros -= microsPerDay
		day++
	}
	return day, micros
}

// timestampToDateKernel is CAST(TIMESTAMP[_NTZ] AS DATE).
func timestampToDateKernel(ctx *Context, in arrow.Array, ntz bool) (arrow.Array, bool) {
	xs, ok := numSlice[int64](in)
	if !ok || in.DataType().ID() != arrow.TIMESTAMP {
		return nil, false
	}
	z := newZoneOffsets(ctx.loc(), ntz)
	mem := ctx.mem()
	buf, out := kernValues[int32](mem, len(xs))
	for i, us := range xs {
		d, _ := localDay(us, z.at(us))
		out[i] = int32(d)
	}
	return makeArray(arrow.FixedWidthTypes.Date32, len(xs), andValidity(mem, len(xs), in), buf), true
}

// timeFieldKernel is the vec of hour/minute/second over TIMESTAMP (session zone) or
// TIMESTAMP_NTZ.
func timeFieldKernel(name string, ntz bool) func(*Context, []arrow.Array) (arrow.Array, bool) {
	return func(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
		xs, ok := numSlice[int64](cols[0])
		if !ok || cols[0].DataType().ID() != arrow.TIMESTAMP {
			return nil, false
		}
		z := newZoneOffsets(ctx.loc(), ntz)
		mem := ctx.mem()
		buf, out := kernValues[int32](mem, len(xs))
		for i, us := range xs {
			_, m := localDay(us, z.at(us))
			switch name {
			case "hour":
				out[i] = int32(m / 3600e6)
			case "minute":
				out[i] = int32(m / 60e6 % 60)
			default:
				out[i] = int32(m / 1e6 % 60)
			}
		}
		return makeArray(sqltypes.ToArrow(intType, ""), len(xs), andValidity(mem, len(xs), cols[0]), buf), true
	}
}

// dateToTimestampKernel is CAST(DATE AS TIMESTAMP[_NTZ]): local midnight, in the session zone
// for TIMESTAMP (through time.Date, as the row path, outside UTC).
func dateToTimestampKernel(ctx *Context, in arrow.Array, to sqltypes.DataType) (arrow.Array, bool) {
	ds, ok := numSlice[int32](in)
	if !ok || in.DataType().ID() != arrow.DATE32 {
		return nil, false
	}
	loc := ctx.loc()
	utc := to.Kind == sqltypes.TimestampNTZ || newZoneOffsets(loc, false).utc
	mem := ctx.mem()
	buf, out := kernValues[int64](mem, len(ds))
	for i, d := range ds {
		if utc {
			out[i] = int64(d) * microsPerDay
			continue
		}
		t := time.Unix(int64(d)*86400, 0).UTC()
		out[i] = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc).UnixMicro()
	}
	return makeArray(sqltypes.ToArrow(to, ctx.tz()), len(ds), andValidity(mem, len(ds), in), buf), true
}
