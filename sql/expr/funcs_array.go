package expr

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Array functions (Spark's array_funcs): membership and position, sorting,
// distinct/min/max/flatten/compact (with map_keys and map_values, which share their binder), join,
// slice, sequence, array_repeat, set operations, arrays_zip.

func init() {
	registerScalar(2, 2, bindArrayContains, "array_contains", "array_position", "array_remove", "array_append", "array_prepend")
	registerScalar(1, 2, bindSortArray, "sort_array", "array_sort")
	registerScalar(1, 1, bindArrayUnary, "array_distinct", "array_max", "array_min", "flatten", "array_compact", "map_keys", "map_values")
	registerScalar(2, 3, bindArrayJoin, "array_join")
	registerScalar(3, 3, bindSlice, "slice")
	registerScalar(2, 3, bindSequence, "sequence")
	registerScalar(2, 2, bindArrayRepeat, "array_repeat")
	registerScalar(2, 2, bindArraySetOp, "array_union", "array_intersect", "array_except", "arrays_overlap")
	registerScalar(1, -1, bindArraysZip, "arrays_zip")
	registerScalar(3, 3, bindArrayInsert, "array_insert")
}

func bindArrayContains(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	et, ok := CommonType(*t.Elem, args[1].Type())
	if !ok {
		return nil, typeMismatch("ARRAY_FUNCTION_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should have been \"ARRAY\" followed by a value with same element type, but it's [\"%s\", \"%s\"].", name, t.SQL(), args[1].Type().SQL())
	}
	arr, err := implicitCast(args[0], sqltypes.ArrayType(et, t.ElemNullable), opts)
	if err != nil {
		return nil, err
	}
	v, err := implicitCast(args[1], et, opts)
	if err != nil {
		return nil, err
	}
	cs := []Expr{arr, v}
	switch name {
	case "array_append", "array_prepend":
		rt := sqltypes.ArrayType(et, t.ElemNullable || args[1].Nullable())
		f := &rowFunc{name: name, args: cs, t: rt, null: arr.Nullable(), str: callString(name, args),
			fn: func(_ *Context, a []any) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				in := a[0].([]any)
				if name == "array_append" {
					return append(append([]any{}, in...), a[1]), nil
				}
				return append([]any{a[1]}, in...), nil
			}}
		return f, nil
	case "array_remove":
		f := strict(name, cs, arr.Type(), func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x == nil || Compare(x, a[1], et) != 0 {
					out = append(out, x)
				}
			}
			return out, nil
		})
		f.str = callString(name, args)
		return f, nil
	case "array_position":
		f := strict(name, cs, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
			for i, x := range a[0].([]any) {
				if x != nil && Compare(x, a[1], et) == 0 {
					return int64(i + 1), nil
				}
			}
			return int64(0), nil
		})
		f.str = callString(name, args)
		return f, nil
	}
	f := nullableStrict(name, cs, sqltypes.BooleanType, func(_ *Context, a []any) (any, error) {
		sawNull := false
		for _, x := range a[0].([]any) {
			if x == nil {
				sawNull = true
			} else if Compare(x, a[1], et) == 0 {
				return true, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return false, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindSortArray(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	asc := true
	shown := args
	if name == "sort_array" {
		if len(args) == 2 {
			v, ok := literalValue(args[1])
			b, isBool := v.(bool)
			if !ok || !isBool {
				return nil, unexpectedInputType(quoteSQL(callString(name, args)), 1, `"BOOLEAN"`, args[1])
			}
			asc = b
		} else {
			shown = append(args, NewLiteral(true, sqltypes.BooleanType))
		}
	} else if len(args) == 2 {
		return nil, sparkerr.Unsupported("array_sort with a comparator function")
	}
	et := *t.Elem
	nullsLast := name == "array_sort"
	f := strict(name, args[:1], t, func(_ *Context, a []any) (any, error) {
		out := append([]any{}, a[0].([]any)...)
		sort.SliceStable(out, func(i, j int) bool {
			x, y := out[i], out[j]
			if x == nil || y == nil {
				if nullsLast || !asc {
					return y == nil && x != nil
				}
				return x == nil && y != nil
			}
			c := Compare(x, y, et)
			if asc {
				return c < 0
			}
			return c > 0
		})
		return out, nil
	})
	f.str = callString(name, shown)
	return f, nil
}

func bindArrayUnary(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if name == "map_keys" || name == "map_values" {
		if t.Kind != sqltypes.Map {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"MAP"`, args[0])
		}
		rt := sqltypes.ArrayType(*t.Key, false)
		if name == "map_values" {
			rt = sqltypes.ArrayType(*t.Value, t.ValueNullable)
		}
		return strict(name, args, rt, func(_ *Context, a []any) (any, error) {
			m := a[0].(*sqltypes.MapValue)
			if name == "map_keys" {
				return append([]any{}, m.Keys...), nil
			}
			return append([]any{}, m.Values...), nil
		}), nil
	}
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	et := *t.Elem
	switch name {
	case "array_max", "array_min":
		isMax := name == "array_max"
		return nullableStrict(name, args, et, func(_ *Context, a []any) (any, error) {
			var best any
			for _, x := range a[0].([]any) {
				if x == nil {
					continue
				}
				if best == nil {
					best = x
				} else if c := Compare(x, best, et); (isMax && c > 0) || (!isMax && c < 0) {
					best = x
				}
			}
			return best, nil
		}), nil
	case "flatten":
		if et.Kind != sqltypes.Array {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY" of "ARRAY"`, args[0])
		}
		return nullableStrict(name, args, et, func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x == nil {
					return nil, nil
				}
				out = append(out, x.([]any)...)
			}
			return out, nil
		}), nil
	case "array_compact":
		return strict(name, args, sqltypes.ArrayType(et, false), func(_ *Context, a []any) (any, error) {
			out := []any{}
			for _, x := range a[0].([]any) {
				if x != nil {
					out = append(out, x)
				}
			}
			return out, nil
		}), nil
	}
	return strict(name, args, t, func(_ *Context, a []any) (any, error) {
		out := []any{}
		seen := map[any]bool{}
		for _, x := range a[0].([]any) {
			k := valueKey(x, et)
			if et.Kind == sqltypes.Array || et.Kind == sqltypes.Struct || et.Kind == sqltypes.Map {
				k = keyString(x, et)
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, x)
			}
		}
		return out, nil
	}), nil
}

func bindArrayJoin(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	arr, err := implicitCast(args[0], sqltypes.ArrayType(strType, true), opts)
	if err != nil {
		return nil, err
	}
	rest, err := coerceArgs(name, args[1:], opts, strType)
	if err != nil {
		return nil, err
	}
	f := strict(name, append([]Expr{arr}, rest...), strType, func(_ *Context, a []any) (any, error) {
		var parts []string
		for _, x := range a[0].([]any) {
			if x == nil {
				if len(a) == 3 {
					parts = append(parts, a[2].(string))
				}
				continue
			}
			parts = append(parts, x.(string))
		}
		return strings.Join(parts, a[1].(string)), nil
	})
	f.size = func(a []any) (int64, error) {
		var n, parts int64
		for _, x := range a[0].([]any) {
			switch {
			case x != nil:
				n, parts = addBytes(n, int64(len(x.(string)))), parts+1
			case len(a) == 3:
				n, parts = addBytes(n, int64(len(a[2].(string)))), parts+1
			}
		}
		return addBytes(n, mulBytes(max(parts-1, 0), int64(len(a[1].(string))))), nil
	}
	f.str = callString(name, args)
	return f, nil
}

func bindSlice(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	rest, err := coerceArgs(name, args[1:], opts, intType)
	if err != nil {
		return nil, err
	}
	f := strict(name, append([]Expr{args[0]}, rest...), args[0].Type(), func(_ *Context, a []any) (any, error) {
		arr := a[0].([]any)
		start, length := toInt64(a[1]), toInt64(a[2])
		n := int64(len(arr))
		if start == 0 {
			return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.START", "22023",
				"The value of parameter(s) `start` in `slice` is invalid: Expects a positive or a negative value for `start`, but got 0.")
		}
		if length < 0 {
			return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.LENGTH", "22023",
				"The value of parameter(s) `length` in `slice` is invalid: Expects `length` greater than or equal to 0, but got %d.", length)
		}
		s := start - 1
		if start < 0 {
			s = n + start
		}
		if s < 0 || s >= n {
			return []any{}, nil
		}
		e := min(s+length, n)
		return append([]any{}, arr[s:e]...), nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindSequence(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args[:2])
	if !ok || !(t.IsIntegral() || t.Kind == sqltypes.Date || t.Kind == sqltypes.Null) {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("INTEGRAL" or "DATE")`, args[0])
	}
	if t.Kind == sqltypes.Null {
		t = intType
	}
	if t.Kind == sqltypes.Byte || t.Kind == sqltypes.Short {
		t = intType
	}
	bounds, err := castAll(args[:2], t, opts)
	if err != nil {
		return nil, err
	}
	cs := bounds
	if len(args) == 3 {
		st := t
		if t.Kind == sqltypes.Date {
			if args[2].Type().Kind != sqltypes.DayTimeInterval && args[2].Type().Kind != sqltypes.YearMonthInterval {
				return nil, unexpectedInputType(quoteSQL(callString(name, args)), 2, `"INTERVAL"`, args[2])
			}
			st = args[2].Type()
		}
		step, err := implicitCast(args[2], st, opts)
		if err != nil {
			return nil, err
		}
		cs = append(cs, step)
	}
	f := nullableStrict(name, cs, sqltypes.ArrayType(t, false), func(ctx *Context, a []any) (any, error) {
		start, stop := toInt64(a[0]), toInt64(a[1])
		var out []any
		if t.Kind == sqltypes.Date && len(a) == 3 && cs[2].Type().Kind == sqltypes.YearMonthInterval {
			months := int(a[2].(int32))
			if months == 0 {
				return nil, sparkerr.IllegalArgument("sequence step must not be zero")
			}
			for i := 0; ; i++ {
				d := addMonthsValue(int32(start), sqltypes.DateType, i*months, ctx.loc()).(int32)
				if (months > 0 && int64(d) > stop) || (months < 0 && int64(d) < stop) {
					break
				}
				out = append(out, d)
			}
			return out, nil
		}
		step, err := sequenceStep(t, a)
		if err != nil {
			return nil, err
		}
		n, err := sequenceLength(start, stop, step)
		if err != nil {
			return nil, err
		}
		out = make([]any, n)
		for i := range out {
			out[i] = narrowFor(start+int64(i)*step, t)
		}
		return out, nil
	})
	f.size = func(a []any) (int64, error) {
		start, stop := toInt64(a[0]), toInt64(a[1])
		var n int64
		if t.Kind == sqltypes.Date && len(a) == 3 && cs[2].Type().Kind == sqltypes.YearMonthInterval {
			// Spark's estimate: a month is at least 28 days.
			months := int64(a[2].(int32))
			if months == 0 {
				return 0, nil
			}
			n = (stop-start)/(months*28) + 1
		} else {
			step, err := sequenceStep(t, a)
			if err != nil {
				return 0, err
			}
			if n, err = sequenceLength(start, stop, step); err != nil {
				return 0, err
			}
		}
		return mulBytes(max(n, 0), goAnyBytes+8), nil
	}
	f.str = callString(name, args)
	return f, nil
}

// sequenceStep is the integral step of sequence(start, stop[, step]) over t: the argument (whole
// days for a day-time interval over dates) or ±1.
func sequenceStep(t sqltypes.DataType, a []any) (int64, error) {
	start, stop := toInt64(a[0]), toInt64(a[1])
	if len(a) < 3 {
		if start > stop {
			return -1, nil
		}
		return 1, nil
	}
	step := toInt64(a[2])
	if t.Kind == sqltypes.Date {
		step /= 86400e6
	}
	if (step == 0 && start != stop) || (stop > start && step < 0) || (stop < start && step > 0) {
		return 0, sparkerr.IllegalArgument("Illegal sequence boundaries: %d to %d by %d", start, stop, step)
	}
	return step, nil
}

// sequenceLength is Sequence.getSequenceLength: the number of elements from start to stop by
// step (boundaries already checked), with Spark's overflow and size-limit errors.
func sequenceLength(start, stop, step int64) (int64, error) {
	if start == stop {
		return 1, nil
	}
	delta := stop - start
	if (stop > start) != (delta > 0) {
		return 0, javaArithmetic("long overflow") // Math.subtractExact
	}
	if delta == math.MinInt64 && step == -1 {
		return 0, javaArithmetic("Long overflow (Long.MinValue / -1)")
	}
	q := delta / step
	if q == math.MaxInt64 {
		return 0, javaArithmetic("long overflow") // Math.addExact(1L, delta / step)
	}
	n := q + 1
	if n > MaxRoundedArrayLength {
		return 0, collectionSizeLimit("sequence", n)
	}
	return n, nil
}

func narrowFor(v int64, t sqltypes.DataType) any {
	if t.Kind == sqltypes.Date {
		return int32(v)
	}
	return narrow(v, t.Kind)
}

func bindArrayRepeat(name string, args []Expr, opts Options) (Expr, error) {
	n, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	et := args[0].Type()
	f := &rowFunc{name: name, args: []Expr{args[0], n}, t: sqltypes.ArrayType(et, args[0].Nullable()),
		null: n.Nullable(), str: callString(name, args), fn: func(_ *Context, a []any) (any, error) {
			if a[1] == nil {
				return nil, nil
			}
			out := make([]any, max(toInt64(a[1]), 0))
			for i := range out {
				out[i] = a[0]
			}
			return out, nil
		}}
	f.size = func(a []any) (int64, error) {
		if a[1] == nil {
			return 0, nil
		}
		count := toInt64(a[1])
		if count > MaxRoundedArrayLength {
			return 0, collectionSizeLimit(name, count)
		}
		return mulBytes(max(count, 0), goAnyBytes+valueBytes(a[0], et)), nil
	}
	return f, nil
}

func bindArraySetOp(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := CommonType(args[0].Type(), args[1].Type())
	if !ok || t.Kind != sqltypes.Array {
		return nil, typeMismatch("BINARY_ARRAY_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to function `%s` should have been two \"ARRAY\" with same element type, but it's [\"%s\", \"%s\"].",
			name, args[0].Type().SQL(), args[1].Type().SQL())
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	et := *t.Elem
	key := func(v any) any {
		if et.Kind == sqltypes.Array || et.Kind == sqltypes.Struct || et.Kind == sqltypes.Map {
			return keyString(v, et)
		}
		return valueKey(v, et)
	}
	rt := t
	if name == "arrays_overlap" {
		rt = sqltypes.BooleanType
	}
	f := nullableStrict(name, cs, rt, func(_ *Context, a []any) (any, error) {
		x, y := a[0].([]any), a[1].([]any)
		inY := map[any]bool{}
		for _, v := range y {
			inY[key(v)] = true
		}
		seen := map[any]bool{}
		out := []any{}
		add := func(v any) {
			if k := key(v); !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
		switch name {
		case "array_union":
			for _, v := range x {
				add(v)
			}
			for _, v := range y {
				add(v)
			}
		case "array_intersect":
			for _, v := range x {
				if inY[key(v)] {
					add(v)
				}
			}
		case "array_except":
			for _, v := range x {
				if !inY[key(v)] {
					add(v)
				}
			}
		default:
			sawNull := false
			for _, v := range x {
				if v == nil {
					sawNull = true
				} else if inY[key(v)] {
					return true, nil
				}
			}
			if len(x) > 0 && len(y) > 0 && (sawNull || inY[key(nil)]) {
				return nil, nil
			}
			return false, nil
		}
		return out, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindArraysZip(name string, args []Expr, opts Options) (Expr, error) {
	fs := make([]sqltypes.Field, len(args))
	for i, a := range args {
		if a.Type().Kind != sqltypes.Array {
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), i, `"ARRAY"`, a)
		}
		fs[i] = sqltypes.Field{Name: fieldName(a, i), Type: *a.Type().Elem, Nullable: true}
		if fs[i].Name == "col"+strconv.Itoa(i+1) {
			fs[i].Name = strconv.Itoa(i)
		}
	}
	f := strict(name, args, sqltypes.ArrayType(sqltypes.StructType(fs...), false), func(_ *Context, a []any) (any, error) {
		n := 0
		for _, x := range a {
			n = max(n, len(x.([]any)))
		}
		out := make([]any, n)
		for i := range out {
			row := make([]any, len(a))
			for j, x := range a {
				if arr := x.([]any); i < len(arr) {
					row[j] = arr[i]
				}
			}
			out[i] = row
		}
		return out, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindArrayInsert is Spark's ArrayInsert: item inserted at the 1-based pos (negative counts
// from the end, -1 after the last element); a pos past either end pads with NULLs; pos 0 is
// INVALID_INDEX_OF_ZERO; a NULL array or pos gives NULL.
func bindArrayInsert(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind == sqltypes.Null {
		return nil, typeMismatch("ARRAY_FUNCTION_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should have been \"ARRAY\" followed by a value with same element type, but it's [\"%s\", \"%s\"].", name, t.SQL(), args[2].Type().SQL())
	}
	if t.Kind != sqltypes.Array {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY"`, args[0])
	}
	if args[1].Type().Kind != sqltypes.Integer && args[1].Type().Kind != sqltypes.Short && args[1].Type().Kind != sqltypes.Byte {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 1, `"INT"`, args[1])
	}
	et, ok := CommonType(*t.Elem, args[2].Type())
	if !ok {
		return nil, typeMismatch("ARRAY_FUNCTION_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should have been \"ARRAY\" followed by a value with same element type, but it's [\"%s\", \"%s\"].", name, t.SQL(), args[2].Type().SQL())
	}
	arr, err := implicitCast(args[0], sqltypes.ArrayType(et, t.ElemNullable), opts)
	if err != nil {
		return nil, err
	}
	v, err := implicitCast(args[2], et, opts)
	if err != nil {
		return nil, err
	}
	pos, err := implicitCast(args[1], intType, opts)
	if err != nil {
		return nil, err
	}
	rt := sqltypes.ArrayType(et, true)
	return &rowFunc{name: name, args: []Expr{arr, pos, v}, t: rt, null: arr.Nullable() || pos.Nullable(), str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			in := a[0].([]any)
			p := int(toInt64(a[1]))
			if p == 0 {
				return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_INDEX_OF_ZERO", "22003",
					"The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).")
			}
			at := p - 1
			if p < 0 {
				at = len(in) + p + 1
			}
			switch {
			case at < 0:
				out := append([]any{a[2]}, make([]any, -at)...)
				return append(out, in...), nil
			case at > len(in):
				out := append(append([]any{}, in...), make([]any, at-len(in))...)
				return append(out, a[2]), nil
			}
			out := append(append([]any{}, in[:at]...), a[2])
			return append(out, in[at:]...), nil
		}}, nil
}
