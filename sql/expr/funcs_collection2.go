package expr

import (
	"math"
	"strconv"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// More array and map functions: sequence, array_repeat, set operations, arrays_zip, map_entries,
// map_concat, str_to_map.

func init() {
	registerScalar(2, 3, bindSequence, "sequence")
	registerScalar(2, 2, bindArrayRepeat, "array_repeat")
	registerScalar(2, 2, bindArraySetOp, "array_union", "array_intersect", "array_except", "arrays_overlap")
	registerScalar(1, -1, bindArraysZip, "arrays_zip")
	registerScalar(1, 1, bindMapEntries, "map_entries")
	registerScalar(1, -1, bindMapConcat, "map_concat")
	registerScalar(1, 3, bindStrToMap, "str_to_map")
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

func bindMapEntries(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Map {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"MAP"`, args[0])
	}
	st := sqltypes.StructType(sqltypes.Field{Name: "key", Type: *t.Key}, sqltypes.Field{Name: "value", Type: *t.Value, Nullable: t.ValueNullable})
	return strict(name, args, sqltypes.ArrayType(st, false), func(_ *Context, a []any) (any, error) {
		m := a[0].(*sqltypes.MapValue)
		out := make([]any, len(m.Keys))
		for i := range m.Keys {
			out[i] = []any{m.Keys[i], m.Values[i]}
		}
		return out, nil
	}), nil
}

func bindMapConcat(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args)
	if !ok || t.Kind != sqltypes.Map {
		return nil, typeMismatch("MAP_CONCAT_DIFF_TYPES", quoteSQL(callString(name, args)),
			"The `map_concat` should all be of type map, but it's [%s].", typesList(args))
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, t, func(_ *Context, a []any) (any, error) {
		out := &sqltypes.MapValue{}
		for _, x := range a {
			m := x.(*sqltypes.MapValue)
			for i := range m.Keys {
				if err := mapPut(out, m.Keys[i], m.Values[i], *t.Key); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindStrToMap(name string, args []Expr, opts Options) (Expr, error) {
	full := append([]Expr{}, args...)
	if len(full) < 2 {
		full = append(full, NewLiteral(",", strType))
	}
	if len(full) < 3 {
		full = append(full, NewLiteral(":", strType))
	}
	e, err := strFunc(name, full, opts, sqltypes.MapType(strType, strType, true), nil, func(a []any) (any, error) {
		pairDelim, kvDelim := a[1].(string), a[2].(string)
		pd, err := compileJavaRegex(pairDelim)
		if err != nil {
			return nil, err
		}
		kd, err := compileJavaRegex(kvDelim)
		if err != nil {
			return nil, err
		}
		out := &sqltypes.MapValue{}
		for _, pair := range pd.Split(a[0].(string), -1) {
			kv := kd.Split(pair, 2)
			var v any
			if len(kv) == 2 {
				v = kv[1]
			}
			if err := mapPut(out, kv[0], v, strType); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	return e, err
}
