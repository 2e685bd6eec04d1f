package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Date kernels over int32 epoch days (Arrow date32): the calendar fields of a date by the
// proleptic Gregorian civil-from-days arithmetic (Spark's dates use that calendar, as Go's time
// package does, which the row path calls), date_add/date_sub and datediff. They are attached to
// the functions' rowFuncs (vec) and run when the arguments are plain arrays; NULLs are the AND
// of the arguments' validity.

// civil returns the year, month (1-12) and day (1-31) of epoch day d.
func civil(d int64) (y, m, day int64) {
	z := d + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, day
}

// epochDayOf is the epoch day of y-m-d.
func epochDayOf(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// dateFieldFunc computes a date field from epoch days; nil for fields without a kernel.
func dateFieldFunc(name string) func(d int64) int32 {
	switch name {
	case "year":
		return func(d int64) int32 { y, _, _ := civil(d); return int32(y) }
	case "quarter":
		return func(d int64) int32 { _, m, _ := civil(d); return int32((m-1)/3 + 1) }
	case "month":
		return func(d int64) int32 { _, m, _ := civil(d); return int32(m) }
	case "dayofmonth", "day":
		return func(d int64) int32 { _, _, day := civil(d); return int32(day) }
	case "dayofweek":
		return func(d int64) int32 { return int32(floorMod(d+4, 7)) + 1 }
	case "weekday":
		return func(d int64) int32 { return int32((floorMod(d+4, 7) + 6) % 7) }
	case "dayofyear":
		return func(d int64) int32 { y, _, _ := civil(d); return int32(d - epochDayOf(y, 1, 1) + 1) }
	}
	return nil
}

// dateFieldKernel is the vec of a date field function.
func dateFieldKernel(field func(int64) int32) func(*Context, []arrow.Array) (arrow.Array, bool) {
	return func(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
		ds, ok := numSlice[int32](cols[0])
		if !ok || cols[0].DataType().ID() != arrow.DATE32 {
			return nil, false
		}
		mem := ctx.mem()
		buf, out := kernValues[int32](mem, len(ds))
		for i, d := range ds {
			out[i] = field(int64(d))
		}
		return makeArray(arrow.PrimitiveTypes.Int32, len(ds), andValidity(mem, len(ds), cols[0]), buf), true
	}
}

// dateAddKernel is the vec of date_add (sign 1) and date_sub (-1): days plus an integer of any
// width, wrapping to int32 like the row path.
func dateAddKernel(sign int64) func(*Context, []arrow.Array) (arrow.Array, bool) {
	return func(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
		ds, ok := numSlice[int32](cols[0])
		if !ok || cols[0].DataType().ID() != arrow.DATE32 {
			return nil, false
		}
		var ns []int64
		switch cols[1].DataType().ID() {
		case arrow.INT8:
			ns = widenSlice[int8](cols[1])
		case arrow.INT16:
			ns = widenSlice[int16](cols[1])
		case arrow.INT32:
			ns = widenSlice[int32](cols[1])
		case arrow.INT64:
			ns, _ = numSlice[int64](cols[1])
		}
		if ns == nil {
			return nil, false
		}
		mem := ctx.mem()
		buf, out := kernValues[int32](mem, len(ds))
		for i, d := range ds {
			out[i] = int32(int64(d) + sign*ns[i])
		}
		return makeArray(arrow.FixedWidthTypes.Date32, len(ds), andValidity(mem, len(ds), cols[0], cols[1]), buf), true
	}
}

func widenSlice[T int8 | int16 | int32](a arrow.Array) []int64 {
	xs, ok := numSlice[T](a)
	if !ok {
		return nil
	}
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// dateDiffKernel is the vec of datediff: end - start in days.
func dateDiffKernel(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
	xs, ok1 := numSlice[int32](cols[0])
	ys, ok2 := numSlice[int32](cols[1])
	if !ok1 || !ok2 || cols[0].DataType().ID() != arrow.DATE32 || cols[1].DataType().ID() != arrow.DATE32 {
		return nil, false
	}
	mem := ctx.mem()
	buf, out := kernValues[int32](mem, len(xs))
	for i := range out {
		out[i] = xs[i] - ys[i]
	}
	return makeArray(sqltypes.ToArrow(intType, ""), len(xs), andValidity(mem, len(xs), cols[0], cols[1]), buf), true
}
