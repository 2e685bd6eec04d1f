package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// testEnv holds a checked allocator and a context; Close asserts no Arrow memory leaked.
type testEnv struct {
	t   *testing.T
	mem *memory.CheckedAllocator
	ctx *Context
}

func newEnv(t *testing.T, ansi bool) *testEnv {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	return &testEnv{t: t, mem: mem, ctx: &Context{Mem: mem, Location: time.UTC, ANSI: ansi}}
}

func (e *testEnv) close() { e.mem.AssertSize(e.t, 0) }

// batch builds a record batch from columns of Go values.
func (e *testEnv) batch(fields []sqltypes.Field, cols ...[]any) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(cols))
	n := 0
	for i, c := range cols {
		arrs[i] = BuildArray(e.mem, fields[i].Type, "UTC", c)
		n = len(c)
	}
	rb := array.NewRecordBatch(sqltypes.ToArrowSchema(fields, "UTC"), arrs, int64(n))
	releaseAll(arrs)
	return rb
}

// emptyBatch is a batch with n rows and no columns.
func (e *testEnv) emptyBatch(n int) arrow.RecordBatch {
	return array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, int64(n))
}

// eval evaluates x over b and returns Go values.
func (e *testEnv) eval(x Expr, b arrow.RecordBatch) ([]any, error) {
	a, err := x.Eval(e.ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if a.Len() != int(b.NumRows()) {
		e.t.Fatalf("%s: got %d rows, want %d", x, a.Len(), b.NumRows())
	}
	out := make([]any, a.Len())
	for i := range out {
		out[i] = ValueAt(a, i, x.Type())
	}
	return out, nil
}

func col(i int, name string, t sqltypes.DataType) *Column {
	return &Column{Index: i, Name: name, T: t, Null: true}
}

func lit(v any, t sqltypes.DataType) Expr { return NewLiteral(v, t) }

func mustBind(t *testing.T, name string, opts Options, args ...Expr) Expr {
	t.Helper()
	e, err := Bind(name, args, opts)
	if err != nil {
		t.Fatalf("Bind(%s): %v", name, err)
	}
	return e
}

func nan() float64 { var z float64; return z / z }
