package expr

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Tuple sketch functions over the sketches of sketch_tuple.go (Spark's tuple sketch
// expressions), each in a double and an integer form reading that summary type:
// tuple_sketch_estimate_* and tuple_sketch_theta_* (DOUBLE), tuple_sketch_summary_*(s [, mode])
// (the summaries folded by mode: sum, min or max (0 without entries) or alwaysone, the entry
// count; DOUBLE, or BIGINT for integer), tuple_union_*(a, b [, lgNomEntries [, mode]]),
// tuple_intersection_*(a, b [, mode]) and tuple_difference_*(a, b), and the _theta_ forms of the
// last three whose second sketch is a theta sketch (its entries carrying mode's initial
// summary). lgNomEntries and mode are constants checked when the call binds; a NULL sketch
// gives NULL; bytes that are not a tuple (theta) sketch fail with
// TUPLE_INVALID_INPUT_SKETCH_BUFFER (THETA_INVALID_INPUT_SKETCH_BUFFER).

func init() {
	for _, t := range []string{"double", "integer"} {
		registerScalar(1, 1, bindTupleFunc, "tuple_sketch_estimate_"+t, "tuple_sketch_theta_"+t)
		registerScalar(1, 2, bindTupleFunc, "tuple_sketch_summary_"+t)
		registerScalar(2, 4, bindTupleFunc, "tuple_union_"+t, "tuple_union_theta_"+t)
		registerScalar(2, 3, bindTupleFunc, "tuple_intersection_"+t, "tuple_intersection_theta_"+t)
		registerScalar(2, 2, bindTupleFunc, "tuple_difference_"+t, "tuple_difference_theta_"+t)
	}
}

// tupleOptions reads the optional lgNomEntries (when hasLgNom) and mode arguments from position
// first on, and returns the arguments as Spark shows them, defaults filled in.
func tupleOptions(name string, args []Expr, first int, hasLgNom bool, opts Options) ([]Expr, int, tupleMode, error) {
	display := append([]Expr(nil), args...)
	if hasLgNom && len(display) <= first {
		display = append(display, NewLiteral(int32(thetaDefaultLgNom), sqltypes.IntegerType))
	}
	modeAt := first
	if hasLgNom {
		modeAt++
	}
	if len(display) <= modeAt {
		display = append(display, NewLiteral("sum", sqltypes.StringType))
	}
	call := quoteSQL(callString(name, display))
	lgNom := thetaDefaultLgNom
	if hasLgNom {
		a := display[first]
		if a.Type().Kind != sqltypes.Integer {
			return nil, 0, 0, unexpectedInputType(call, first, `"INT"`, a)
		}
		v, ok := constantOperand(a)
		if !ok {
			return nil, 0, 0, nonFoldable(call[1:len(call)-1], "lgNomEntries", `"INT"`, a)
		}
		if v == nil {
			return nil, 0, 0, typeMismatch("UNEXPECTED_NULL", call, "The lgNomEntries must not be null.").WithParams("exprName", "lgNomEntries")
		}
		lgNom = int(toInt64(v))
		if err := checkThetaLgNom(name, lgNom); err != nil {
			return nil, 0, 0, typeCheckHint(call, err)
		}
	}
	m := display[modeAt]
	if m.Type().Kind != sqltypes.String {
		return nil, 0, 0, unexpectedInputType(call, modeAt, `"STRING"`, m)
	}
	v, ok := constantOperand(m)
	if !ok {
		return nil, 0, 0, nonFoldable(call[1:len(call)-1], "mode", `"STRING"`, m)
	}
	mode, err := tupleModeOf(name, v)
	if err != nil {
		return nil, 0, 0, typeCheckHint(call, err)
	}
	return display, lgNom, mode, nil
}

func tupleModeOf(name string, v any) (tupleMode, error) {
	s, _ := v.(string)
	for i, n := range tupleModeNames {
		if s == n {
			return tupleMode(i), nil
		}
	}
	return 0, sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "TUPLE_INVALID_SKETCH_MODE", "22023",
		"Invalid call to `%s`: mode '%s' is not supported. Valid modes are: sum, min, max, alwaysone.", name, s).
		WithParams("function", "`"+name+"`", "mode", s, "validModes", "sum, min, max, alwaysone")
}

// typeCheckHint is DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT carrying err's message.
func typeCheckHint(call string, err error) error {
	msg := err.Error()
	return typeMismatch("TYPE_CHECK_FAILURE_WITH_HINT", call, "%s.", msg).WithParams("msg", msg, "hint", "")
}

// tupleInvalidBuffer is TUPLE_INVALID_INPUT_SKETCH_BUFFER.
func tupleInvalidBuffer(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "TUPLE_INVALID_INPUT_SKETCH_BUFFER", "22000",
		"Invalid call to `%s`; only valid Tuple sketch buffers are supported as inputs (such as those produced by the `tuple_sketch_agg` function).", name).
		WithParams("function", "`"+name+"`")
}

func bindTupleFunc(name string, args []Expr, opts Options) (Expr, error) {
	if strings.HasSuffix(name, "_double") {
		return bindTupleTyped(name, args, opts, tupleDoubles, sqltypes.DoubleType)
	}
	return bindTupleTyped(name, args, opts, tupleInts, sqltypes.LongType)
}

func bindTupleTyped[V tupleValue](name string, args []Expr, opts Options, codec tupleCodec[V], summaryType sqltypes.DataType) (Expr, error) {
	op := strings.TrimPrefix(name[:strings.LastIndexByte(name, '_')], "tuple_")
	display, sketches := args, 2
	var lgNom int
	var mode tupleMode
	var err error
	switch op {
	case "sketch_estimate", "sketch_theta":
		sketches = 1
	case "sketch_summary":
		sketches = 1
		display, _, mode, err = tupleOptions(name, args, 1, false, opts)
	case "union", "union_theta":
		display, lgNom, mode, err = tupleOptions(name, args, 2, true, opts)
	case "intersection", "intersection_theta":
		display, _, mode, err = tupleOptions(name, args, 2, false, opts)
	}
	if err != nil {
		return nil, err
	}
	call := quoteSQL(callString(name, display))
	for i := 0; i < sketches; i++ {
		if k := args[i].Type().Kind; k != sqltypes.Binary && k != sqltypes.Null {
			return nil, unexpectedInputType(call, i, `"BINARY"`, args[i])
		}
	}
	theta := strings.HasSuffix(op, "_theta")
	read := func(v any) (*tupleCompact[V], error) {
		c, err := codec.read(v.([]byte))
		if err != nil {
			return nil, tupleInvalidBuffer(name)
		}
		return c, nil
	}
	t := sqltypes.BinaryType
	switch op {
	case "sketch_estimate", "sketch_theta":
		t = sqltypes.DoubleType
	case "sketch_summary":
		t = summaryType
	}
	f := strict(name, args[:sketches], t, func(_ *Context, a []any) (any, error) {
		x, err := read(a[0])
		if err != nil {
			return nil, err
		}
		switch op {
		case "sketch_estimate":
			return x.estimate(), nil
		case "sketch_theta":
			return x.thetaFraction(), nil
		case "sketch_summary":
			return tupleFold(x, mode), nil
		}
		var r *tupleCompact[V]
		if theta {
			y, err := readThetaCompact(a[1].([]byte))
			if err != nil {
				return nil, thetaInvalidBuffer(name)
			}
			r, err = tupleThetaSetOp(op, x, y, lgNom, mode)
			if err != nil {
				return nil, err
			}
		} else {
			y, err := read(a[1])
			if err != nil {
				return nil, err
			}
			if r, err = tupleSetOp(op, x, y, lgNom, mode); err != nil {
				return nil, err
			}
		}
		return codec.bytes(r), nil
	})
	f.str = callString(name, display)
	return f, nil
}

func tupleSetOp[V tupleValue](op string, x, y *tupleCompact[V], lgNom int, mode tupleMode) (*tupleCompact[V], error) {
	switch op {
	case "union":
		u := newTupleUnion[V](1<<lgNom, mode)
		u.add(x)
		u.add(y)
		return u.result(), nil
	case "intersection":
		in := newTupleIntersection[V](mode)
		in.add(x.hashes, x.sums, x.empty, x.thetaLong(), nil)
		in.add(y.hashes, y.sums, y.empty, y.thetaLong(), nil)
		return in.result()
	}
	return tupleANotB(x, y.hashes, y.empty, y.thetaLong())
}

func tupleThetaSetOp[V tupleValue](op string, x *tupleCompact[V], y *thetaCompact, lgNom int, mode tupleMode) (*tupleCompact[V], error) {
	s := newTupleSummary[V](mode)
	switch op {
	case "union_theta":
		u := newTupleUnion[V](1<<lgNom, mode)
		u.add(x)
		u.addTheta(y, s)
		return u.result(), nil
	case "intersection_theta":
		in := newTupleIntersection[V](mode)
		in.add(x.hashes, x.sums, x.empty, x.thetaLong(), nil)
		yTheta := y.theta
		if y.empty {
			yTheta = thetaMax
		}
		in.add(y.hashes, nil, y.empty, yTheta, &s)
		return in.result()
	}
	return tupleANotB(x, y.hashes, y.empty, y.theta)
}

// tupleFold is aggregateNumericSummaries: the summaries in entry order folded by mode.
func tupleFold[V tupleValue](c *tupleCompact[V], mode tupleMode) any {
	var acc float64
	var iacc int64
	for i, s := range c.sums {
		v := float64(s.v)
		switch {
		case mode == tupleSum:
			acc += v
			iacc += int64(s.v)
		case mode == tupleAlwaysOne:
			acc++
			iacc++
		case i == 0, mode == tupleMin && v < acc, mode == tupleMax && v > acc:
			acc, iacc = v, int64(s.v)
		}
	}
	var zero V
	if _, isInt := any(zero).(int32); isInt {
		return iacc
	}
	return acc
}
