package expr

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestWidenedKernelsMatchRowWise compares the fused CAST(integral AS DOUBLE) kernels
// (comparisons and + - * % pmod with a constant on either side) with the row-wise path: the column
// cast row by row (castRows), the constant evaluated over the batch, then the operator's
// evalRows. Columns are random sliced TINYINT..BIGINT with NULLs and extremes (BIGINT values
// that round in a double); constants include NULL, NaN, ±0.0, ±Inf. The seed is printed.
func TestWidenedKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 19))
	froms := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType}
	ops := []string{"+", "-", "*", "/", "%", "pmod", "=", "<=>", "<", "<=", ">", ">="}
	fused := 0
	for iter := 0; iter < 2000; iter++ {
		ansi := r.IntN(2) == 0
		opts := Options{ANSI: ansi}
		env := newEnv(t, ansi)
		from := froms[r.IntN(len(froms))]
		n := 1 + r.IntN(40)
		xs := make([]any, n+3)
		for i := range xs {
			xs[i] = kernelValue(r, from)
		}
		full := env.batch([]sqltypes.Field{{Name: "x", Type: from, Nullable: true}}, xs)
		b := full.NewSlice(2, int64(n+2))
		full.Release()
		cast, err := NewCast(col(0, "x", from), sqltypes.DoubleType, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		var k Expr = NewLiteral(kernelValue(r, sqltypes.DoubleType), sqltypes.DoubleType)
		if r.IntN(4) == 0 { // a constant subtree: CAST(BIGINT literal AS DOUBLE)
			if k, err = NewCast(NewLiteral(kernelValue(r, sqltypes.LongType), sqltypes.LongType), sqltypes.DoubleType, 0, opts); err != nil {
				t.Fatal(err)
			}
		}
		op := ops[r.IntN(len(ops))]
		constLeft := r.IntN(2) == 0
		args := []Expr{cast, k}
		if constLeft {
			args = []Expr{k, cast}
		}
		e, err := Bind(op, args, opts)
		if err != nil {
			t.Fatalf("seed %d iter %d: Bind(%s): %v", seed, iter, op, err)
		}
		want, werr := widenedOracle(t, env, e, b, cast.(*castExpr), constLeft)
		var out arrow.Array
		var ok bool
		switch x := e.(type) {
		case *arith:
			out, ok, err = x.widenedKernel(env.ctx, b)
		case *comparison:
			out, ok, err = x.widenedKernel(env.ctx, b)
		default:
			t.Fatalf("Bind(%s) gave %T", op, e)
		}
		if err != nil && (werr == nil || err.Error() != werr.Error()) {
			t.Fatalf("seed %d iter %d %s: fused err %v, row-wise err %v", seed, iter, e, err, werr)
		}
		if fusable := op != "/" && op != "<=>"; ok != fusable {
			t.Fatalf("seed %d iter %d %s: fused %v, want %v", seed, iter, e, ok, fusable)
		}
		got, gerr := env.eval(e, b)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("seed %d iter %d %s ansi=%v: kernel err %v, row-wise err %v", seed, iter, e, ansi, gerr, werr)
		}
		if ok && err == nil {
			fused++
			if out.Len() != n {
				t.Fatalf("seed %d iter %d %s: %d rows, want %d", seed, iter, e, out.Len(), n)
			}
			if direct := valuesOf(out, e.Type()); !sameExact(direct, got) {
				t.Fatalf("seed %d iter %d %s: fused kernel %v, Eval %v", seed, iter, e, direct, got)
			}
			out.Release()
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s ansi=%v row %d (x=%v): kernel %v, row-wise %v", seed, iter, e, ansi, i, xs[i+2], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
	if fused < 1000 {
		t.Fatalf("only %d of 2000 expressions took the fused kernels", fused)
	}
}

// widenedOracle evaluates e (an arith or comparison of cast and a constant) row by row.
func widenedOracle(t *testing.T, env *testEnv, e Expr, b arrow.RecordBatch, cast *castExpr, constLeft bool) ([]any, error) {
	t.Helper()
	x, err := cast.castRows(env.ctx, b.Column(0), cast.child.Type())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Release()
	kexpr := e.Children()[1]
	if constLeft {
		kexpr = e.Children()[0]
	}
	k, err := kexpr.Eval(env.ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	l, r := x, k
	if constLeft {
		l, r = k, x
	}
	var out arrow.Array
	switch y := e.(type) {
	case *arith:
		if out, err = y.evalRows(env.ctx, l, r); err != nil {
			return nil, err
		}
	case *comparison:
		out = y.evalRows(env.ctx, l, r)
	}
	defer out.Release()
	return valuesOf(out, e.Type()), nil
}

// sameExact reports whether a and b hold the same values by exactKey.
func sameExact(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if exactKey(a[i]) != exactKey(b[i]) {
			return false
		}
	}
	return true
}
