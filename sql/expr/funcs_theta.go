package expr

import (
	"math"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// Theta sketch functions over the compact sketches of sketch_theta.go (Spark's
// thetasketchesExpressions): theta_sketch_estimate(s) is the estimate rounded half up to a
// BIGINT; theta_union(a, b [, lgNomEntries = 12]) unions two sketches into at most 2^lgNomEntries
// hashes (SKETCH_INVALID_LG_NOM_ENTRIES outside [4, 26]); theta_intersection(a, b) and
// theta_difference(a, b) (a AND NOT b) are DataSketches' stateless Intersection and AnotB. A
// NULL argument gives NULL; bytes that are not a compact theta sketch fail with
// THETA_INVALID_INPUT_SKETCH_BUFFER.

func init() {
	registerScalar(1, 1, bindThetaFunc, "theta_sketch_estimate")
	registerScalar(2, 3, bindThetaFunc, "theta_union")
	registerScalar(2, 2, bindThetaFunc, "theta_intersection", "theta_difference")
}

func bindThetaFunc(name string, args []Expr, _ Options) (Expr, error) {
	shown := args
	if name == "theta_union" && len(args) == 2 {
		shown = append(append([]Expr(nil), args...), NewLiteral(int32(thetaDefaultLgNom), sqltypes.IntegerType))
	}
	call := quoteSQL(callString(name, shown))
	for i, a := range shown {
		want, wantSQL := sqltypes.Binary, `"BINARY"`
		if i == 2 {
			want, wantSQL = sqltypes.Integer, `"INT"`
		}
		if a.Type().Kind != want && a.Type().Kind != sqltypes.Null {
			return nil, unexpectedInputType(call, i, wantSQL, a)
		}
	}
	read := func(v any) (*thetaCompact, error) {
		c, err := readThetaCompact(v.([]byte))
		if err != nil {
			return nil, thetaInvalidBuffer(name)
		}
		return c, nil
	}
	t := sqltypes.BinaryType
	if name == "theta_sketch_estimate" {
		t = sqltypes.LongType
	}
	f := strict(name, shown, t, func(_ *Context, a []any) (any, error) {
		if name == "theta_union" {
			// Spark checks lgNomEntries before it reads the sketches.
			if err := checkThetaLgNom(name, int(a[2].(int32))); err != nil {
				return nil, err
			}
		}
		x, err := read(a[0])
		if err != nil {
			return nil, err
		}
		if name == "theta_sketch_estimate" {
			return int64(math.Floor(x.estimate() + 0.5)), nil
		}
		y, err := read(a[1])
		if err != nil {
			return nil, err
		}
		r, err := thetaSetOp(name, x, y, a)
		if err != nil {
			return nil, thetaInvalidBuffer(name)
		}
		return r.bytes(), nil
	})
	f.str = callString(name, shown)
	return f, nil
}

func thetaSetOp(name string, x, y *thetaCompact, a []any) (*thetaCompact, error) {
	switch name {
	case "theta_union":
		u := newThetaUnion(int(a[2].(int32)))
		if err := u.add(x); err != nil {
			return nil, err
		}
		if err := u.add(y); err != nil {
			return nil, err
		}
		return u.result(), nil
	case "theta_intersection":
		in := newThetaIntersection()
		if err := in.add(x); err != nil {
			return nil, err
		}
		if err := in.add(y); err != nil {
			return nil, err
		}
		return in.result()
	}
	return thetaANotB(x, y)
}
