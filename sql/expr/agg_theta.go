package expr

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// theta_sketch_agg(x [, lgNomEntries]), theta_union_agg(sketch [, lgNomEntries]) and
// theta_intersection_agg(sketch): Spark's ThetaSketchAgg, ThetaUnionAgg and
// ThetaIntersectionAgg over the sketches of sketch_theta.go. A group's result is the compact
// sketch's bytes, never NULL (an empty group gives the empty sketch; an intersection over no
// sketches fails as DataSketches does). x is an INT or BIGINT (hashed as a long), FLOAT or
// DOUBLE (as a double), STRING (its UTF-8 bytes; empty strings are skipped), BINARY (skipped
// when empty), ARRAY<INT> or ARRAY<BIGINT> (their elements' bytes; empty arrays skipped);
// NULLs are skipped. No implicit casts, as Spark's ExpectsInputTypes here. lgNomEntries is a
// constant INT, 12 by default, checked when the aggregate runs (SKETCH_INVALID_LG_NOM_ENTRIES
// outside [4, 26]; NULL counts as 0). theta_sketch_agg splits before an exchange into itself
// per partition and theta_union_agg of the partial sketches, as Spark merges its buffers.
// Rows cannot be retracted.

func init() {
	registerAggregate(1, 2, bindThetaAgg, "theta_sketch_agg", "theta_union_agg")
	registerAggregate(1, 1, bindThetaAgg, "theta_intersection_agg")
}

const thetaSketchAgg, thetaUnionAgg, thetaIntersectionAgg = "theta_sketch_agg", "theta_union_agg", "theta_intersection_agg"

func bindThetaAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	display := args
	if name != thetaIntersectionAgg && len(args) == 1 {
		display = []Expr{args[0], NewLiteral(int32(thetaDefaultLgNom), sqltypes.IntegerType)}
	}
	call := quoteSQL(callString(name, display))
	x := args[0]
	if name == thetaSketchAgg {
		if !thetaItemType(x.Type()) {
			return nil, unexpectedInputType(call, 0, `("ARRAY<INT>" or "ARRAY<BIGINT>" or "BINARY" or "DOUBLE" or "FLOAT" or "INT" or "BIGINT" or "STRING")`, x)
		}
	} else if x.Type().Kind != sqltypes.Binary {
		return nil, unexpectedInputType(call, 0, `"BINARY"`, x)
	}
	lgNom, err := sketchLgNomArg(call, display, 1, thetaDefaultLgNom)
	if err != nil {
		return nil, err
	}
	return &aggFunc{name: name, args: []Expr{x}, display: display, distinct: distinct, t: sqltypes.BinaryType, opts: opts,
		newAcc: func(*Context) GroupedAccumulator { return &thetaAcc{name: name, lgNom: lgNom, t: x.Type()} }}, nil
}

func thetaItemType(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Integer, sqltypes.Long, sqltypes.Float, sqltypes.Double, sqltypes.String, sqltypes.Binary:
		return true
	case sqltypes.Array:
		return t.Elem.Kind == sqltypes.Integer || t.Elem.Kind == sqltypes.Long
	}
	return false
}

// sketchLgNomArg reads args[i], a sketch's constant INT size parameter (def when absent, 0 when
// NULL). Its range is checked when the sketch is built.
func sketchLgNomArg(call string, args []Expr, i, def int) (int, error) {
	if i >= len(args) {
		return def, nil
	}
	a := args[i]
	if a.Type().Kind != sqltypes.Integer && a.Type().Kind != sqltypes.Null {
		return 0, unexpectedInputType(call, i, `"INT"`, a)
	}
	v, ok := constantOperand(a)
	if !ok {
		return 0, nonFoldable(call[1:len(call)-1], "lgNomEntries", `"INT"`, a)
	}
	if v == nil {
		return 0, nil
	}
	return int(toInt64(v)), nil
}

// checkThetaLgNom is ThetaSketchUtils.checkLgNomLongs.
func checkThetaLgNom(name string, lgNom int) error {
	if lgNom < thetaMinLgNom || lgNom > thetaMaxLgNom {
		v := fmt.Sprint(lgNom)
		return sparkerr.Newf(sparkerr.SparkRuntimeException, "SKETCH_INVALID_LG_NOM_ENTRIES", "22003",
			"Invalid call to `%s`; the `lgNomEntries` value must be between %d and %d, inclusive: %s.", name, thetaMinLgNom, thetaMaxLgNom, v).
			WithParams("function", "`"+name+"`", "min", fmt.Sprint(thetaMinLgNom), "max", fmt.Sprint(thetaMaxLgNom), "value", v)
	}
	return nil
}

// thetaInvalidBuffer is THETA_INVALID_INPUT_SKETCH_BUFFER.
func thetaInvalidBuffer(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "THETA_INVALID_INPUT_SKETCH_BUFFER", "22000",
		"Invalid call to `%s`; only valid Theta sketch buffers are supported as inputs (such as those produced by the `theta_sketch_agg` function).", name).
		WithParams("function", "`"+name+"`")
}

// thetaAcc keeps one update sketch, union or intersection per group, created on its first row.
type thetaAcc struct {
	name    string
	lgNom   int
	t       sqltypes.DataType
	updates []*thetaUpdate
	unions  []*thetaUnion
	inters  []*thetaIntersection
}

func (a *thetaAcc) Grow(n int) {
	switch a.name {
	case thetaSketchAgg:
		a.updates = growTo(a.updates, n)
	case thetaUnionAgg:
		a.unions = growTo(a.unions, n)
	default:
		a.inters = growTo(a.inters, n)
	}
}

func (a *thetaAcc) SizeBytes() int64 {
	var n int64
	for _, u := range a.updates {
		if u != nil {
			n += 64 + 16*int64(len(u.hashes))
		}
	}
	for _, u := range a.unions {
		if u != nil {
			n += 80 + 16*int64(len(u.gadget.hashes))
		}
	}
	for _, x := range a.inters {
		if x != nil {
			n += 48 + 16*int64(len(x.hashes))
		}
	}
	return n + 8*int64(len(a.updates)+len(a.unions)+len(a.inters))
}

func (a *thetaAcc) Update(groups []uint32, args []arrow.Array) error {
	if a.name != thetaIntersectionAgg {
		if err := checkThetaLgNom(a.name, a.lgNom); err != nil {
			return err
		}
	}
	for i, g := range groups {
		v := ValueAt(args[0], i, a.t)
		if v == nil {
			continue
		}
		if a.name == thetaSketchAgg {
			a.updateItem(g, v)
			continue
		}
		c, err := readThetaCompact(v.([]byte))
		if err != nil {
			return thetaInvalidBuffer(a.name)
		}
		if a.name == thetaUnionAgg {
			if a.unions[g] == nil {
				a.unions[g] = newThetaUnion(a.lgNom)
			}
			err = a.unions[g].add(c)
		} else {
			if a.inters[g] == nil {
				a.inters[g] = newThetaIntersection()
			}
			err = a.inters[g].add(c)
		}
		if err != nil {
			return thetaInvalidBuffer(a.name)
		}
	}
	return nil
}

// updateItem hashes one non-NULL item into group g's sketch (ThetaSketchAgg.update).
func (a *thetaAcc) updateItem(g uint32, v any) {
	s := a.updates[g]
	if s == nil {
		s = newThetaUpdate(a.lgNom)
		a.updates[g] = s
	}
	switch x := v.(type) {
	case int32:
		s.update(thetaHashLong(int64(x)))
	case int64:
		s.update(thetaHashLong(x))
	case float32:
		s.update(thetaHashDouble(float64(x)))
	case float64:
		s.update(thetaHashDouble(x))
	case string:
		if x != "" {
			s.update(thetaHash([]byte(x)))
		}
	case []byte:
		if len(x) > 0 {
			s.update(thetaHash(x))
		}
	case []any:
		if len(x) == 0 {
			return
		}
		var b []byte
		for _, e := range x {
			if a.t.Elem.Kind == sqltypes.Integer {
				n, _ := e.(int32)
				b = binary.LittleEndian.AppendUint32(b, uint32(n))
			} else {
				n, _ := e.(int64)
				b = binary.LittleEndian.AppendUint64(b, uint64(n))
			}
		}
		s.update(thetaHash(b))
	}
}

func (a *thetaAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *thetaAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	if a.name != thetaIntersectionAgg {
		if err := checkThetaLgNom(a.name, a.lgNom); err != nil {
			return nil, err
		}
	}
	out := make([]any, len(groups))
	for i, g := range groups {
		var c *thetaCompact
		switch a.name {
		case thetaSketchAgg:
			c = newThetaCompact(nil, thetaMax, true)
			if s := a.updates[g]; s != nil {
				c = s.compact()
			}
		case thetaUnionAgg:
			c = newThetaCompact(nil, thetaMax, true)
			if u := a.unions[g]; u != nil {
				c = u.result()
			}
		default:
			x := a.inters[g]
			if x == nil {
				x = newThetaIntersection()
			}
			r, err := x.result()
			if err != nil {
				return nil, sparkerr.New(sparkerr.SparkException, "", "", "org.apache.datasketches.common.SketchesStateException: "+err.Error())
			}
			c = r
		}
		out[i] = c.bytes()
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}

// sketchFinal is the final step of a sketch aggregate split before an exchange (SplitAggregate):
// theta_sketch_agg and theta_union_agg are their own partials, and their final step is
// theta_union_agg of the partial sketches with the same lgNomEntries.
func sketchFinal(a *aggFunc, partial Expr) (AggFunc, bool) {
	if a.name != thetaSketchAgg && a.name != thetaUnionAgg {
		return nil, false
	}
	f, err := BindAggregate(thetaUnionAgg, []Expr{partial, a.display[1]}, false, a.opts)
	return f, err == nil
}
