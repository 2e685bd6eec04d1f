package expr

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// count_min_sketch(col, eps, confidence, seed): Spark's CountMinSketchAgg, a BINARY never NULL
// serialized as Spark's CountMinSketchImpl writes it (big-endian): version 1 (int), total count
// (long), depth and width (ints), depth hash multipliers (longs), then the depth × width counts
// (longs, row by row). width is ceil(2/eps), depth ceil(-ln(1-confidence)/ln 2), and the
// multipliers java.util.Random(seed).nextInt(Integer.MAX_VALUE) in turn. An integral value x is
// counted in column ((a·x + (a·x >> 32)) & (2^31-1)) % width of the row of multiplier a; a STRING
// (its UTF-8 bytes) or BINARY in column |(h1 + i·h2) % width| of row i, h1 and h2 Spark's
// Murmur3_x86_32 of the bytes with seeds 0 and h1. NULLs are skipped (empty strings and binaries
// count). eps and confidence are constant DOUBLEs, seed a constant INT or BIGINT (its low 32
// bits). The counts add up, so the aggregate retracts rows and splits around an exchange: the
// final step adds the partial sketches' counts.

func init() {
	registerAggregate(0, -1, bindCountMinSketch, "count_min_sketch")
}

// cmsParams are count_min_sketch's parameters in Spark's function signature.
var cmsParams = []string{"column", "epsilon", "confidence", "seed"}

func bindCountMinSketch(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	if len(args) > len(cmsParams) {
		return nil, wrongNumArgs(name, "4", len(args))
	}
	if len(args) < len(cmsParams) {
		p := cmsParams[len(args)]
		return nil, sparkerr.Newf(sparkerr.AnalysisException, "REQUIRED_PARAMETER_NOT_FOUND", "4274K",
			"Cannot invoke routine `%s` because the parameter named `%s` is required, but the routine call did not supply a value. Please update the routine call to supply an argument value (either positionally at index 0 or by name) and retry the query again.", name, p).
			WithParams("routineName", "`"+name+"`", "parameterName", "`"+p+"`", "index", "0")
	}
	call := callString(name, args)
	x := args[0]
	if k := x.Type().Kind; !x.Type().IsIntegral() && k != sqltypes.Binary && k != sqltypes.Null &&
		(k != sqltypes.String || !binaryCollation(x.Type())) {
		return nil, unexpectedInputType(quoteSQL(call), 0, `("INTEGRAL" or "STRING" or "BINARY")`, x)
	}
	for i := 1; i <= 2; i++ {
		if k := args[i].Type().Kind; k != sqltypes.Double && k != sqltypes.Null {
			return nil, unexpectedInputType(quoteSQL(call), i, `"DOUBLE"`, args[i])
		}
	}
	if k := args[3].Type().Kind; k != sqltypes.Integer && k != sqltypes.Long && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(call), 3, `("INT" or "BIGINT")`, args[3])
	}
	names := []string{"eps", "confidence", "seed"}
	vals := make([]any, 3)
	for i, a := range args[1:] {
		v, ok := constantOperand(a)
		if !ok {
			return nil, nonFoldable(call, names[i], `"`+a.Type().SQL()+`"`, a)
		}
		vals[i] = v
	}
	for i, v := range vals {
		if v == nil {
			return nil, typeMismatch("UNEXPECTED_NULL", quoteSQL(call), "The %s must not be null.", names[i]).
				WithParams("exprName", names[i])
		}
	}
	eps, confidence, seed := toFloat64(vals[0]), toFloat64(vals[1]), int32(toInt64(vals[2]))
	if !(eps > 0) && !math.IsNaN(eps) {
		return nil, cmsOutOfRange(call, "eps", "(0.0, 1.7976931348623157E308]", eps)
	}
	if confidence <= 0 || confidence >= 1 {
		return nil, cmsOutOfRange(call, "confidence", "(0.0, 1.0]", confidence)
	}
	shape := newCMSShape(eps, confidence, seed)
	f := &aggFunc{name: name, args: args[:1], display: args, distinct: distinct, t: sqltypes.BinaryType, opts: opts,
		newAcc: func(ctx *Context) GroupedAccumulator { return newCMSAcc(ctx, name, shape, x.Type(), false) }}
	f.split = func(self *aggFunc, partial Expr) ([]AggFunc, AggFunc) {
		final := &aggFunc{name: name, args: []Expr{partial}, display: self.display, t: sqltypes.BinaryType, opts: opts,
			newAcc: func(ctx *Context) GroupedAccumulator { return newCMSAcc(ctx, name, shape, sqltypes.BinaryType, true) }}
		return []AggFunc{self}, final
	}
	return f, nil
}

func cmsOutOfRange(call, what, valueRange string, v float64) *sparkerr.Error {
	cur := renderSQLValue(v, sqltypes.DoubleType)
	return typeMismatch("VALUE_OUT_OF_RANGE", quoteSQL(call), "The %s must be between %s (current value = %s).", what, valueRange, cur).
		WithParams("exprName", what, "valueRange", valueRange, "currentValue", cur)
}

// cmsShape is a sketch's dimensions and hash multipliers, shared by all its groups.
type cmsShape struct {
	depth, width int32
	hashA        []int64
}

func newCMSShape(eps, confidence float64, seed int32) *cmsShape {
	s := &cmsShape{width: javaDoubleToInt(math.Ceil(2 / eps)), depth: javaDoubleToInt(math.Ceil(-math.Log(1-confidence) / math.Log(2)))}
	r := newJavaRandom(int64(seed))
	s.hashA = make([]int64, s.depth)
	for i := range s.hashA {
		s.hashA[i] = int64(r.nextInt(math.MaxInt32))
	}
	return s
}

// javaDoubleToInt is Java's (int) cast: truncation, saturating, NaN 0.
func javaDoubleToInt(f float64) int32 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// bytes is the size of a serialized sketch.
func (s *cmsShape) bytes() int64 {
	return 20 + 8*int64(s.depth) + 8*int64(s.depth)*int64(s.width)
}

// longColumn is the column of x in row i.
func (s *cmsShape) longColumn(x int64, i int) int {
	h := s.hashA[i] * x
	h += h >> 32
	h &= math.MaxInt32
	return int(int32(h) % s.width)
}

// bytesColumns are the columns of b in each row.
func (s *cmsShape) bytesColumns(b []byte, out []int) {
	h1 := int32(m3HashBytes(b, 0))
	h2 := int32(m3HashBytes(b, uint32(h1)))
	for i := range out {
		c := (h1 + int32(i)*h2) % s.width
		if c < 0 {
			c = -c
		}
		out[i] = int(c)
	}
}

// cmsAcc keeps one table of counts per group (allocated on the group's first row). merge says
// it is the final step, whose inputs are partial sketches.
type cmsAcc struct {
	name   string
	shape  *cmsShape
	t      sqltypes.DataType
	merge  bool
	err    error
	tables [][]int64 // depth × width counts, row by row
	totals []int64
	cols   []int
}

func newCMSAcc(ctx *Context, name string, shape *cmsShape, t sqltypes.DataType, merge bool) *cmsAcc {
	a := &cmsAcc{name: name, shape: shape, t: t, merge: merge, cols: make([]int, shape.depth)}
	a.err = ctx.checkResultBytes(name, shape.bytes(), 0)
	return a
}

func (a *cmsAcc) Grow(n int) {
	a.tables, a.totals = growTo(a.tables, n), growTo(a.totals, n)
}

func (a *cmsAcc) SizeBytes() int64 {
	n := int64(len(a.tables)) * 32
	for _, t := range a.tables {
		n += 8 * int64(len(t))
	}
	return n
}

func (a *cmsAcc) table(g uint32) []int64 {
	if a.tables[g] == nil {
		a.tables[g] = make([]int64, int(a.shape.depth)*int(a.shape.width))
	}
	return a.tables[g]
}

func (a *cmsAcc) Update(groups []uint32, args []arrow.Array) error { return a.add(groups, args, 1) }

func (a *cmsAcc) Retract(groups []uint32, args []arrow.Array) error {
	if a.merge {
		return errInsertOnly
	}
	return a.add(groups, args, -1)
}

func (a *cmsAcc) add(groups []uint32, args []arrow.Array, delta int64) error {
	if a.err != nil {
		return a.err
	}
	w := int(a.shape.width)
	if w == 0 { // eps NaN: Java's % by a zero width
		return sparkerr.DivideByZero()
	}
	for i, g := range groups {
		v := ValueAt(args[0], i, a.t)
		if v == nil {
			continue
		}
		if a.merge {
			if err := a.mergeSketch(g, v.([]byte)); err != nil {
				return err
			}
			continue
		}
		switch x := v.(type) {
		case string:
			a.shape.bytesColumns([]byte(x), a.cols)
		case []byte:
			a.shape.bytesColumns(x, a.cols)
		default:
			for r := range a.cols {
				a.cols[r] = a.shape.longColumn(toInt64(x), r)
			}
		}
		t := a.table(g)
		for r, c := range a.cols {
			t[r*w+c] += delta
		}
		a.totals[g] += delta
	}
	return nil
}

// mergeSketch adds a partial sketch's counts (CountMinSketchImpl.mergeInPlace).
func (a *cmsAcc) mergeSketch(g uint32, b []byte) error {
	d, w := int(a.shape.depth), int(a.shape.width)
	if int64(len(b)) != a.shape.bytes() || int32(binary.BigEndian.Uint32(b[12:])) != a.shape.depth ||
		int32(binary.BigEndian.Uint32(b[16:])) != a.shape.width {
		return sparkerr.Internal("expr: %s merges a partial sketch of another shape", a.name)
	}
	a.totals[g] += int64(binary.BigEndian.Uint64(b[4:]))
	t := a.table(g)
	counts := b[20+8*d:]
	for j := range d * w {
		t[j] += int64(binary.BigEndian.Uint64(counts[8*j:]))
	}
	return nil
}

func (a *cmsAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	if a.err != nil {
		return nil, a.err
	}
	out := make([]any, len(groups))
	for i, g := range groups {
		b := make([]byte, 0, a.shape.bytes())
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint64(b, uint64(a.totals[g]))
		b = binary.BigEndian.AppendUint32(b, uint32(a.shape.depth))
		b = binary.BigEndian.AppendUint32(b, uint32(a.shape.width))
		for _, h := range a.shape.hashA {
			b = binary.BigEndian.AppendUint64(b, uint64(h))
		}
		if t := a.tables[g]; t != nil {
			for _, c := range t {
				b = binary.BigEndian.AppendUint64(b, uint64(c))
			}
		} else {
			b = b[:a.shape.bytes()]
		}
		out[i] = b
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}
