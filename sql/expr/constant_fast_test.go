package expr

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// The column-against-constant kernels must give exactly what the general kernels give when the
// constant is a column of repeated values: same values, NULLs and errors.
func TestConstantKernelsMatchGeneral(t *testing.T) {
	type kind struct {
		t      sqltypes.DataType
		values []any
		consts []any
	}
	kinds := []kind{
		{sqltypes.LongType,
			[]any{int64(0), int64(1), int64(-1), int64(7), int64(-7), nil, int64(math.MaxInt64), int64(math.MinInt64),
				int64(math.MaxInt64 / 3), int64(math.MinInt64 / 3), int64(1 << 40)},
			[]any{int64(0), int64(1), int64(-1), int64(2), int64(-2), int64(3), int64(10000), int64(math.MaxInt64), int64(math.MinInt64)}},
		{sqltypes.IntegerType,
			[]any{int32(0), int32(1), int32(-1), int32(9), nil, int32(math.MaxInt32), int32(math.MinInt32), int32(1 << 20)},
			[]any{int32(0), int32(1), int32(-1), int32(2), int32(-3), int32(math.MaxInt32), int32(math.MinInt32)}},
		{sqltypes.DoubleType,
			[]any{0.0, 1.5, -2.25, nil, math.Inf(1), 1e308},
			[]any{0.0, 2.0, -0.5, 1e308}},
	}
	ops := []string{"+", "-", "*", "%", "==", "<", "<=", ">", ">="}
	for _, ansi := range []bool{true, false} {
		for _, k := range kinds {
			// Rows: every value, and every value with the NULLs removed (no validity bitmap).
			var nonNull []any
			for _, v := range k.values {
				if v != nil {
					nonNull = append(nonNull, v)
				}
			}
			for _, rows := range [][]any{k.values, nonNull} {
				for _, c := range k.consts {
					for _, op := range ops {
						for _, constRight := range []bool{true, false} {
							name := fmt.Sprintf("ansi=%t/%s/%v/%s/right=%t/nulls=%t", ansi, k.t.SQL(), c, op, constRight, len(rows) != len(nonNull))
							t.Run(name, func(t *testing.T) {
								checkConstantKernel(t, ansi, k.t, rows, c, op, constRight)
							})
						}
					}
				}
			}
		}
	}
}

func checkConstantKernel(t *testing.T, ansi bool, typ sqltypes.DataType, rows []any, c any, op string, constRight bool) {
	e := newEnv(t, ansi)
	defer e.close()
	reps := make([]any, len(rows))
	for i := range reps {
		reps[i] = c
	}
	fields := []sqltypes.Field{{Name: "x", Type: typ, Nullable: true}, {Name: "k", Type: typ, Nullable: true}}
	b := e.batch(fields, rows, reps)
	defer b.Release()
	opts := Options{ANSI: ansi}
	x, kc := Expr(col(0, "x", typ)), Expr(col(1, "k", typ))
	kl := lit(c, typ)
	var fast, general Expr
	if constRight {
		fast, general = mustBind(t, op, opts, x, kl), mustBind(t, op, opts, x, kc)
	} else {
		fast, general = mustBind(t, op, opts, kl, x), mustBind(t, op, opts, kc, x)
	}
	got, gotErr := e.eval(fast, b)
	want, wantErr := e.eval(general, b)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, want %v", gotErr, wantErr)
	}
	// Printed, so that NaN equals NaN.
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// An integer literal widened by an implicit cast is a constant too.
func TestConstantKernelWidenedLiteral(t *testing.T) {
	e := newEnv(t, true)
	defer e.close()
	b := e.batch([]sqltypes.Field{{Name: "v", Type: sqltypes.LongType, Nullable: true}},
		[]any{int64(5), nil, int64(-6), int64(math.MaxInt64)})
	defer b.Release()
	v := col(0, "v", sqltypes.LongType)
	rem := mustBind(t, "%", Options{ANSI: true}, v, lit(int32(2), sqltypes.IntegerType))
	if _, ok := constantOf(rem.(*arith).right); !ok {
		t.Fatalf("%s: the widened literal is not a constant", rem)
	}
	got, err := e.eval(rem, b)
	if err != nil || !reflect.DeepEqual(got, []any{int64(1), nil, int64(0), int64(1)}) {
		t.Fatalf("%s = %v, %v", rem, got, err)
	}
	_, err = e.eval(mustBind(t, "+", Options{ANSI: true}, v, lit(int32(1), sqltypes.IntegerType)), b)
	if err == nil {
		t.Fatal("MaxInt64 + 1 did not overflow")
	}
}

// (x % d) op k fuses the remainder into the comparison; the answer is the general kernels'.
func TestModuloComparisonMatchesGeneral(t *testing.T) {
	for _, typ := range []sqltypes.DataType{sqltypes.LongType, sqltypes.IntegerType} {
		rows := []any{int64(0), int64(1), int64(-7), nil, int64(12), int64(-3), int64(math.MaxInt32), int64(math.MinInt32), int64(5)}
		if typ.Kind == sqltypes.IntegerType.Kind {
			for i, r := range rows {
				if r != nil {
					rows[i] = int32(r.(int64))
				}
			}
		}
		for _, d := range []int64{3, -4, 1, 0, -1} {
			for _, k := range []int64{0, 1, -1, 2} {
				for _, op := range []string{"==", "<", "<=", ">", ">="} {
					for _, ansi := range []bool{true, false} {
						t.Run(fmt.Sprintf("%s/%d/%s/%d/ansi=%t", typ.SQL(), d, op, k, ansi), func(t *testing.T) {
							e := newEnv(t, ansi)
							defer e.close()
							fields := []sqltypes.Field{{Name: "x", Type: typ, Nullable: true}, {Name: "d", Type: typ, Nullable: true}}
							ds := make([]any, len(rows))
							for i := range ds {
								if typ.Kind == sqltypes.IntegerType.Kind {
									ds[i] = int32(d)
								} else {
									ds[i] = d
								}
							}
							b := e.batch(fields, rows, ds)
							defer b.Release()
							opts := Options{ANSI: ansi}
							x := col(0, "x", typ)
							fused := mustBind(t, op, opts, mustBind(t, "%", opts, x, lit(ds[0], typ)), lit(int32(k), sqltypes.IntegerType))
							general := mustBind(t, op, opts, mustBind(t, "%", opts, x, col(1, "d", typ)), lit(int32(k), sqltypes.IntegerType))
							got, gotErr := e.eval(fused, b)
							want, wantErr := e.eval(general, b)
							if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
								t.Fatalf("%s: got %v %v, want %v %v", fused, got, gotErr, want, wantErr)
							}
						})
					}
				}
			}
		}
	}
}
