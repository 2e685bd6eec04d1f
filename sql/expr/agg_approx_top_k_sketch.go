package expr

import (
	"encoding/binary"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// approx_top_k in three steps, as Spark 4.2's ApproxTopKAccumulate, ApproxTopKCombine and
// ApproxTopKEstimate:
//
//   - approx_top_k_accumulate(expr[, maxItemsTracked]) aggregates expr into a sketch state,
//     struct<sketch: binary, maxItemsTracked: int, itemDataType: <expr's type>, itemDataTypeDDL:
//     string>: the sketch's bytes (frequent_items_format.go) followed by the NULL count as a
//     big-endian int64, the size, a NULL of the item type, and "item INT NOT NULL" (strings
//     "item string not null");
//   - approx_top_k_combine(state[, maxItemsTracked]) merges states into one: of the given size,
//     or, when none is given, of the inputs' size (which must agree,
//     APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH) in a sketch of the largest size; item types must agree
//     too (APPROX_TOP_K_SKETCH_TYPE_NOT_MATCH);
//   - approx_top_k_estimate(state[, k]) is a state's top k (default 5) as approx_top_k gives them.
//
// Argument errors name approx_top_k, as Spark's do. A NULL state is skipped by combine and gives
// NULL from estimate, and combine over no state fails (Spark fails inside its task on both).

const approxTopKVoidMax = -1

func init() {
	registerAggregate(1, 2, bindApproxTopKAccumulate, "approx_top_k_accumulate")
	registerAggregate(1, 2, bindApproxTopKCombine, "approx_top_k_combine")
	registerScalar(1, 2, bindApproxTopKEstimate, "approx_top_k_estimate")
}

// approxTopKStateType is ApproxTopK.getSketchStateDataType.
func approxTopKStateType(item sqltypes.DataType) sqltypes.DataType {
	return sqltypes.StructType(
		sqltypes.Field{Name: "sketch", Type: sqltypes.BinaryType},
		sqltypes.Field{Name: "maxItemsTracked", Type: sqltypes.IntegerType},
		sqltypes.Field{Name: "itemDataType", Type: item, Nullable: true},
		sqltypes.Field{Name: "itemDataTypeDDL", Type: sqltypes.StringType})
}

// approxTopKDDL is ApproxTopK.dataTypeToDDL.
func approxTopKDDL(t sqltypes.DataType) string {
	if t.Kind == sqltypes.String {
		return "item string not null"
	}
	return "item " + t.SQL() + " NOT NULL"
}

// approxTopKState is the state struct's value for a sketch of items of type t.
func approxTopKState(s *freqItems, nulls int64, maxItems int, t sqltypes.DataType) any {
	b := binary.BigEndian.AppendUint64(s.toBytes(t), uint64(nulls))
	return []any{b, int32(maxItems), nil, approxTopKDDL(t)}
}

// approxTopKArgs fills in the INT second argument (def when absent), casts it, runs check over
// the call's text, and returns the arguments shown and the second one's constant value;
// notConst is the TYPE_CHECK_FAILURE message of a non-constant one.
func approxTopKArgs(name string, args []Expr, def int32, opts Options, check func(call string) error, notConst string) ([]Expr, any, error) {
	shown := append([]Expr(nil), args...)
	if len(shown) < 2 {
		shown = append(shown, NewLiteral(def, sqltypes.IntegerType))
	}
	call := callString(name, shown)
	c, err := implicitCast(shown[1], sqltypes.IntegerType, opts)
	if err != nil {
		return nil, nil, unexpectedInputType(quoteSQL(call), 1, `"INT"`, shown[1])
	}
	shown[1] = c
	if err := check(call); err != nil {
		return nil, nil, err
	}
	v, ok := constantOperand(c)
	if !ok {
		return nil, nil, typeCheckFailure(call, notConst)
	}
	return shown, v, nil
}

func bindApproxTopKAccumulate(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	xt := args[0].Type()
	shown, mv, err := approxTopKArgs(name, args, approxTopKDefaultMax, opts,
		func(call string) error { return approxTopKItemType(call, xt) }, "Number of items tracked must be a constant literal")
	if err != nil {
		return nil, err
	}
	var maxItems int
	var runErr error = approxTopKNull("approx_top_k", "maxItemsTracked")
	if mv != nil {
		maxItems = int(toInt64(mv))
		runErr = approxTopKMaxItems("approx_top_k", maxItems)
	}
	t := approxTopKStateType(xt)
	return &aggFunc{name: name, args: args[:1], display: shown, distinct: distinct, t: t, opts: opts, noRetract: true, countsNulls: true,
		newAcc: func(*Context) GroupedAccumulator {
			return &approxTopKAcc{maxMapSize: approxTopKMapSize(maxItems), xt: xt, t: t, err: runErr,
				out: func(s *freqItems, nulls int64) any { return approxTopKState(s, nulls, maxItems, xt) }}
		}}, nil
}

// approxTopKCheckState is ApproxTopK.checkStateFieldAndType over the state argument's type.
func approxTopKCheckState(call string, state Expr) error {
	st := state.Type()
	if st.Kind != sqltypes.Struct {
		return unexpectedInputType(quoteSQL(call), 0, `"STRUCT"`, state)
	}
	fail := func(msg string) error { return typeCheckFailure(call, msg) }
	if len(st.Fields) != 4 {
		return fail("State must be a struct with 4 fields. Expected struct: " +
			"struct<sketch:binary,maxItemsTracked:int,itemDataType:any,itemDataTypeDDL:string>. Got: " + st.String())
	}
	f := st.Fields
	switch {
	case f[0].Type.Kind != sqltypes.Binary:
		return fail("State struct must have the first field to be binary. Got: " + f[0].Type.String())
	case f[1].Type.Kind != sqltypes.Integer:
		return fail("State struct must have the second field to be int. Got: " + f[1].Type.String())
	case approxTopKItemType(call, f[2].Type) != nil:
		return fail("State struct must have the third field to be a supported data type. Got: " + f[2].Type.String())
	case f[3].Type.Kind != sqltypes.String:
		return fail("State struct must have the fourth field to be string. Got: " + f[3].Type.String())
	}
	return nil
}

// approxTopKSketchOf reads a state's sketch and NULL count.
func approxTopKSketchOf(b []byte, t sqltypes.DataType) (*freqItems, int64, error) {
	if len(b) < 8 {
		return nil, 0, badFreqSketch()
	}
	s, err := freqItemsFromBytes(b[:len(b)-8], t)
	if err != nil {
		return nil, 0, err
	}
	return s, int64(binary.BigEndian.Uint64(b[len(b)-8:])), nil
}

// approxTopKTypeOfDDL is ApproxTopK.DDLToDataType over the types a state can hold.
func approxTopKTypeOfDDL(ddl string) (sqltypes.DataType, bool) {
	for _, t := range []sqltypes.DataType{sqltypes.BooleanType, sqltypes.ByteType, sqltypes.ShortType,
		sqltypes.IntegerType, sqltypes.LongType, sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DateType,
		sqltypes.TimestampType, sqltypes.TimestampNTZType, sqltypes.StringType} {
		if approxTopKDDL(t) == ddl {
			return t, true
		}
	}
	return sqltypes.DataType{}, false
}

func bindApproxTopKCombine(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	shown, mv, err := approxTopKArgs(name, args, approxTopKVoidMax, opts,
		func(call string) error { return approxTopKCheckState(call, args[0]) }, "Number of items tracked must be a constant literal")
	if err != nil {
		return nil, err
	}
	if mv == nil {
		return nil, approxTopKNull("approx_top_k", "maxItemsTracked")
	}
	maxItems := int(toInt64(mv))
	if len(args) == 2 {
		if err := approxTopKMaxItems("approx_top_k", maxItems); err != nil {
			return nil, err
		}
	}
	t := approxTopKStateType(args[0].Type().Fields[2].Type)
	return &aggFunc{name: name, args: args[:1], display: shown, distinct: distinct, t: t, opts: opts, noRetract: true,
		newAcc: func(*Context) GroupedAccumulator {
			return &approxTopKCombineAcc{maxItems: maxItems, sized: len(args) == 2, st: args[0].Type(), t: t}
		}}, nil
}

// approxTopKCombineAcc merges the states of each group (Spark's CombineInternal).
type approxTopKCombineAcc struct {
	maxItems int
	sized    bool
	st, t    sqltypes.DataType
	groups   []*approxTopKCombined
}

type approxTopKCombined struct {
	sketch   *freqItems
	nulls    int64
	maxItems int
	item     *sqltypes.DataType
}

func (a *approxTopKCombineAcc) Grow(n int) { a.groups = growTo(a.groups, n) }

func (a *approxTopKCombineAcc) SizeBytes() int64 {
	n := int64(len(a.groups)) * 16
	for _, g := range a.groups {
		if g != nil {
			n += int64(len(g.sketch.m.keys)) * 64
		}
	}
	return n
}

func (a *approxTopKCombineAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *approxTopKCombineAcc) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		v := ValueAt(args[0], i, a.st)
		if v == nil {
			continue
		}
		state := v.([]any)
		if state[0] == nil || state[1] == nil || state[3] == nil {
			return badFreqSketch()
		}
		c := a.groups[g]
		if c == nil {
			size := a.maxItems
			if !a.sized {
				size = approxTopKMaxLimit
			}
			c = &approxTopKCombined{sketch: newFreqItems(approxTopKMapSize(size)), maxItems: a.maxItems}
			a.groups[g] = c
		}
		if err := c.add(state, a.sized); err != nil {
			return err
		}
	}
	return nil
}

// add merges one state (CombineInternal's updateMaxItemsTracked, updateItemDataType, merge).
func (c *approxTopKCombined) add(state []any, sized bool) error {
	size := int(state[1].(int32))
	switch {
	case sized:
	case c.maxItems == approxTopKVoidMax:
		c.maxItems = size
	case c.maxItems != size:
		return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_SKETCH_SIZE_NOT_MATCH", "42846",
			"Combining approx_top_k sketches of different sizes is not allowed. Found sketches of size %d and %d.", c.maxItems, size).
			WithParams("size1", strconv.Itoa(c.maxItems), "size2", strconv.Itoa(size))
	}
	t, ok := approxTopKTypeOfDDL(state[3].(string))
	if !ok {
		return badFreqSketch()
	}
	if c.item == nil {
		c.item = &t
	} else if !c.item.Equal(t) {
		t1, t2 := `"`+c.item.SQL()+`"`, `"`+t.SQL()+`"`
		return sparkerr.Newf(sparkerr.SparkRuntimeException, "APPROX_TOP_K_SKETCH_TYPE_NOT_MATCH", "42846",
			"Combining approx_top_k sketches of different types is not allowed. Found sketches of type %s and %s.", t1, t2).
			WithParams("type1", t1, "type2", t2)
	}
	s, nulls, err := approxTopKSketchOf(state[0].([]byte), t)
	if err != nil {
		return err
	}
	c.sketch.merge(s)
	c.nulls += nulls
	return nil
}

func (a *approxTopKCombineAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		c := a.groups[g]
		if c == nil {
			return nil, sparkerr.New(sparkerr.SparkException, "", "",
				"approx_top_k_combine has no sketch to combine (Spark fails the same way)")
		}
		out[i] = approxTopKState(c.sketch, c.nulls, c.maxItems, *c.item)
	}
	return BuildArray(ctx.mem(), a.t, ctx.tz(), out), nil
}

func bindApproxTopKEstimate(name string, args []Expr, opts Options) (Expr, error) {
	shown, kv, err := approxTopKArgs(name, args, approxTopKDefaultK, opts,
		func(call string) error { return approxTopKCheckState(call, args[0]) }, "K must be a constant literal")
	if err != nil {
		return nil, err
	}
	xt := args[0].Type().Fields[2].Type
	t := sqltypes.ArrayType(sqltypes.StructType(
		sqltypes.Field{Name: "item", Type: xt, Nullable: true},
		sqltypes.Field{Name: "count", Type: sqltypes.LongType, Nullable: false}), false)
	f := strict(name, []Expr{args[0]}, t, func(_ *Context, a []any) (any, error) {
		if kv == nil {
			return nil, approxTopKNull("approx_top_k", "k")
		}
		k := int(toInt64(kv))
		if k <= 0 {
			return nil, approxTopKNonPositive("approx_top_k", "k", k)
		}
		state := a[0].([]any)
		if state[0] == nil || state[1] == nil {
			return nil, badFreqSketch()
		}
		if err := approxTopKLessThanK("approx_top_k", int(state[1].(int32)), k); err != nil {
			return nil, err
		}
		s, nulls, err := approxTopKSketchOf(state[0].([]byte), xt)
		if err != nil {
			return nil, err
		}
		return approxTopKRows(s.frequent(), nulls, k), nil
	})
	f.str = callString(name, shown)
	return f, nil
}
