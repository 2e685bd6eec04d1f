package expr

import (
	"encoding/binary"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// tuple_sketch_agg_{double,integer}(key, summary [, lgNomEntries [, mode]]),
// tuple_union_agg_*(sketch [, lgNomEntries [, mode]]) and tuple_intersection_agg_*(sketch [,
// mode]): Spark's TupleSketchAgg*, TupleUnionAgg* and TupleIntersectionAgg* over the sketches of
// sketch_tuple.go. The key is hashed as theta_sketch_agg hashes it, after Spark's implicit cast
// to the first of ARRAY<INT>, ARRAY<BIGINT>, BINARY, DOUBLE, FLOAT, INT, BIGINT, STRING it
// casts to (so a SMALLINT key hashes as a DOUBLE); the summary is cast to DOUBLE or INT. Rows
// with a NULL key or summary, an empty string, binary or array key are skipped. lgNomEntries (12)
// and mode (sum, min, max or alwaysone; sum) are constants checked when the call binds. The
// result is never NULL. Spark's final aggregation unions (or intersects) the serialized buffer
// once more; a batch aggregate here does the same, so one partition's sketch has Spark's bytes,
// and split before an exchange the final step unions the partial sketches. An intersection over
// no sketches fails as DataSketches does. Rows cannot be retracted.

func init() {
	for _, t := range []string{"double", "integer"} {
		registerAggregate(2, 4, bindTupleAgg, "tuple_sketch_agg_"+t)
		registerAggregate(1, 3, bindTupleAgg, "tuple_union_agg_"+t)
		registerAggregate(1, 2, bindTupleAgg, "tuple_intersection_agg_"+t)
	}
}

// tupleKeyTypes are the key types of tuple_sketch_agg in the order Spark's implicit cast tries.
var tupleKeyTypes = []sqltypes.DataType{
	sqltypes.ArrayType(sqltypes.IntegerType, true), sqltypes.ArrayType(sqltypes.LongType, true), sqltypes.BinaryType,
	sqltypes.DoubleType, sqltypes.FloatType, sqltypes.IntegerType, sqltypes.LongType, sqltypes.StringType,
}

// tupleAggKind is what one tuple aggregate does.
type tupleAggKind int

const (
	tupleBuild tupleAggKind = iota
	tupleUnionKind
	tupleIntersectKind
)

func bindTupleAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	kind, first := tupleBuild, 2
	switch {
	case strings.HasPrefix(name, "tuple_union_agg_"):
		kind, first = tupleUnionKind, 1
	case strings.HasPrefix(name, "tuple_intersection_agg_"):
		kind, first = tupleIntersectKind, 1
	}
	display, lgNom, mode, err := tupleOptions(name, args, first, kind != tupleIntersectKind, opts)
	if err != nil {
		return nil, err
	}
	call := quoteSQL(callString(name, display))
	var in []Expr
	if kind == tupleBuild {
		key, err := tupleKeyArg(call, args[0], opts)
		if err != nil {
			return nil, err
		}
		sum, err := tupleSummaryArg(name, call, args[1], opts)
		if err != nil {
			return nil, err
		}
		in = []Expr{key, sum}
	} else {
		if args[0].Type().Kind != sqltypes.Binary {
			return nil, unexpectedInputType(call, 0, `"BINARY"`, args[0])
		}
		in = []Expr{args[0]}
	}
	return newTupleAggFunc(name, display, in, kind, lgNom, mode, true, opts), nil
}

func newTupleAggFunc(name string, display, in []Expr, kind tupleAggKind, lgNom int, mode tupleMode, final bool, opts Options) *aggFunc {
	var newAcc func(*Context) GroupedAccumulator
	types := make([]sqltypes.DataType, len(in))
	for i, e := range in {
		types[i] = e.Type()
	}
	if strings.HasSuffix(name, "_double") {
		newAcc = func(*Context) GroupedAccumulator {
			return &tupleAcc[float64]{name: name, kind: kind, nom: 1 << lgNom, mode: mode, final: final, types: types, codec: tupleDoubles}
		}
	} else {
		newAcc = func(*Context) GroupedAccumulator {
			return &tupleAcc[int32]{name: name, kind: kind, nom: 1 << lgNom, mode: mode, final: final, types: types, codec: tupleInts}
		}
	}
	return &aggFunc{name: name, args: in, display: display, t: sqltypes.BinaryType, opts: opts, newAcc: newAcc}
}

// tupleKeyArg casts a key to the first key type it implicitly casts to.
func tupleKeyArg(call string, key Expr, opts Options) (Expr, error) {
	kt := key.Type()
	for _, t := range tupleKeyTypes {
		if kt.Kind == t.Kind && (t.Kind != sqltypes.Array || kt.Elem.Kind == t.Elem.Kind) {
			return key, nil
		}
	}
	for _, t := range tupleKeyTypes {
		if t.Kind != sqltypes.Array && implicitlyCastable(kt, t) {
			return implicitCast(key, t, opts)
		}
	}
	return nil, unexpectedInputType(call, 0, `("ARRAY<INT>" or "ARRAY<BIGINT>" or "BINARY" or "DOUBLE" or "FLOAT" or "INT" or "BIGINT" or "STRING")`, key)
}

// tupleSummaryArg casts the summary to DOUBLE or INT (any number or string, as Spark's
// implicit cast here).
func tupleSummaryArg(name, call string, s Expr, opts Options) (Expr, error) {
	t := sqltypes.DoubleType
	if strings.HasSuffix(name, "_integer") {
		t = sqltypes.IntegerType
	}
	st := s.Type()
	if !st.IsNumeric() && st.Kind != sqltypes.String && st.Kind != sqltypes.Null {
		return nil, unexpectedInputType(call, 1, `"`+t.SQL()+`"`, s)
	}
	return implicitCast(s, t, opts)
}

// tupleAcc keeps one update sketch, union or intersection per group.
type tupleAcc[V tupleValue] struct {
	name   string
	kind   tupleAggKind
	nom    int
	mode   tupleMode
	final  bool // the batch result re-unions (re-intersects) the buffer as Spark's final step
	types  []sqltypes.DataType
	codec  tupleCodec[V]
	qs     []*tupleQS[V]
	unions []*tupleUnion[V]
	inters []*tupleIntersection[V]
}

func (a *tupleAcc[V]) Grow(n int) {
	a.qs, a.unions, a.inters = growTo(a.qs, n), growTo(a.unions, n), growTo(a.inters, n)
}

func (a *tupleAcc[V]) SizeBytes() int64 {
	n := int64(len(a.qs)) * 24
	for i := range a.qs {
		switch {
		case a.qs[i] != nil:
			n += 64 + 24*int64(len(a.qs[i].table))
		case a.unions[i] != nil:
			n += 80 + 24*int64(len(a.unions[i].q.table))
		case a.inters[i] != nil && a.inters[i].t != nil:
			n += 64 + 24*int64(len(a.inters[i].t.table))
		}
	}
	return n
}

func (a *tupleAcc[V]) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		k := ValueAt(args[0], i, a.types[0])
		if k == nil {
			continue
		}
		if a.kind == tupleBuild {
			v := ValueAt(args[1], i, a.types[1])
			if v == nil {
				continue
			}
			h, ok := tupleKeyHash(k)
			if !ok {
				continue
			}
			if a.qs[g] == nil {
				a.qs[g] = newTupleQS[V](a.nom)
			}
			a.qs[g].update(h, tupleValueOf[V](v), a.mode)
			continue
		}
		c, err := a.codec.read(k.([]byte))
		if err != nil {
			return tupleInvalidBuffer(a.name)
		}
		a.add(g, c)
	}
	return nil
}

func (a *tupleAcc[V]) add(g uint32, c *tupleCompact[V]) {
	if a.kind == tupleIntersectKind {
		if a.inters[g] == nil {
			a.inters[g] = newTupleIntersection[V](a.mode)
		}
		a.inters[g].add(c.hashes, c.sums, c.empty, c.thetaLong(), nil)
		return
	}
	if a.unions[g] == nil {
		a.unions[g] = newTupleUnion[V](a.nom, a.mode)
	}
	a.unions[g].add(c)
}

// tupleKeyHash hashes a non-NULL key as DataSketches' UpdatableSketch.update does; empty
// strings, binaries and arrays are skipped.
func tupleKeyHash(k any) (uint64, bool) {
	switch x := k.(type) {
	case int32:
		return thetaHashLong(int64(x)), true
	case int64:
		return thetaHashLong(x), true
	case float32:
		return thetaHashDouble(float64(x)), true
	case float64:
		return thetaHashDouble(x), true
	case string:
		return thetaHash([]byte(x)), x != ""
	case []byte:
		return thetaHash(x), len(x) > 0
	case []any:
		var b []byte
		for _, e := range x {
			switch n := e.(type) {
			case int32:
				b = binary.LittleEndian.AppendUint32(b, uint32(n))
			case int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(n))
			default: // a NULL element reads as 0 of the array's width
				b = append(b, 0, 0, 0, 0)
			}
		}
		return thetaHash(b), len(x) > 0
	}
	return 0, false
}

func tupleValueOf[V tupleValue](v any) V {
	switch x := v.(type) {
	case int32:
		return V(x)
	case float64:
		return V(x)
	}
	return 0
}

func (a *tupleAcc[V]) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *tupleAcc[V]) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		c, err := a.result(g)
		if err != nil {
			return nil, err
		}
		out[i] = a.codec.bytes(c)
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}

func (a *tupleAcc[V]) result(g uint32) (*tupleCompact[V], error) {
	var c *tupleCompact[V]
	switch a.kind {
	case tupleBuild:
		c = &tupleCompact[V]{theta: thetaMax, empty: true}
		if a.qs[g] != nil {
			c = a.qs[g].compact()
		}
	case tupleUnionKind:
		c = &tupleCompact[V]{theta: thetaMax, empty: true}
		if a.unions[g] != nil {
			c = a.unions[g].result()
		}
	default:
		x := a.inters[g]
		if x == nil {
			x = newTupleIntersection[V](a.mode)
		}
		r, err := x.result()
		if err != nil {
			return nil, sparkerr.New(sparkerr.SparkException, "", "", "org.apache.datasketches.common.SketchesStateException: "+err.Error())
		}
		c = r
	}
	if !a.final {
		return c, nil
	}
	if a.kind == tupleIntersectKind {
		x := newTupleIntersection[V](a.mode)
		x.add(c.hashes, c.sums, c.empty, c.thetaLong(), nil)
		return x.result()
	}
	u := newTupleUnion[V](a.nom, a.mode)
	u.add(c)
	return u.result(), nil
}

// tupleSplit splits tuple_sketch_agg and tuple_union_agg before an exchange: partial sketches
// without the final re-union, and a final union of them.
func tupleSplit(a *aggFunc, partial Expr) (AggFunc, AggFunc, bool) {
	if !strings.HasPrefix(a.name, "tuple_sketch_agg_") && !strings.HasPrefix(a.name, "tuple_union_agg_") {
		return nil, nil, false
	}
	first := 2
	if strings.HasPrefix(a.name, "tuple_union_agg_") {
		first = 1
	}
	_, lgNom, mode, err := tupleOptions(a.name, a.display, first, true, a.opts)
	if err != nil {
		return nil, nil, false
	}
	kind := tupleBuild
	if first == 1 {
		kind = tupleUnionKind
	}
	p := newTupleAggFunc(a.name, a.display, a.args, kind, lgNom, mode, false, a.opts)
	f := newTupleAggFunc(a.name, a.display, []Expr{partial}, tupleUnionKind, lgNom, mode, false, a.opts)
	return p, f, true
}
