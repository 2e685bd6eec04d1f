package expr

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Typed kernels: the operands of an operator are read as raw value slices of their Arrow
// layout (int8..int64, float32/float64, date32, timestamp[us], decimal128), a constant operand
// (a literal, or any deterministic subtree without column references, evaluated once per
// batch) is broadcast instead of being built as an Arrow array, and NULLs are the AND of the
// operands' validity bitmaps, computed a word at a time, never tested row by row in the value
// loop. The row-wise paths (evalRows, castValue) remain the oracle the kernels are tested
// against (kernel_test.go).

// kernNum is every Go value type a kernel computes over.
type kernNum interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// operand is an evaluated kernel input: an array, or a constant (k, nil for NULL).
type operand struct {
	arr     arrow.Array
	k       any
	isConst bool
}

func (o operand) release() {
	if o.arr != nil {
		o.arr.Release()
	}
}

// isConstantExpr reports whether e is a literal or a deterministic subtree without column
// references that may be evaluated once for a whole batch.
func isConstantExpr(e Expr) bool {
	if _, ok := e.(*Literal); ok {
		return true
	}
	return batchConstant(e) && IsDeterministic(e)
}

// batchConstant reports whether e has one value for every row of a batch: literals, and the
// operators constantTree folds, and functions of fixed-width results without a result-size
// check (date '1994-01-01' + interval '1' year, current_date()) over such operands. A
// function reading the session or the clock is one value per batch too (the optimizer's Fold
// still leaves those alone).
func batchConstant(e Expr) bool {
	switch x := e.(type) {
	case *Literal:
		return true
	case *arith, *castExpr, *comparison, *boolLogic, *notExpr, *nullTest, *inSet, *inList, *coalesce, *caseWhen:
	case *rowFunc:
		if x.size != nil || !fixedWidthKind(x.t.Kind) {
			return false
		}
	default:
		return false
	}
	for _, c := range e.Children() {
		if !batchConstant(c) {
			return false
		}
	}
	return true
}

// fixedWidthKind reports whether values of kind k are of one fixed size (so repeating one is
// bounded by the batch's row count).
func fixedWidthKind(k sqltypes.Kind) bool {
	switch k {
	case sqltypes.Boolean, sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Float,
		sqltypes.Double, sqltypes.Decimal, sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ,
		sqltypes.DayTimeInterval, sqltypes.YearMonthInterval, sqltypes.Time:
		return true
	}
	return false
}

// evalOperand evaluates e over batch, or once when it is constant. A constant subtree that
// fails fails here, as it would over the batch's rows (an empty batch evaluates nothing).
func evalOperand(ctx *Context, e Expr, batch arrow.RecordBatch) (operand, error) {
	if l, ok := e.(*Literal); ok {
		return operand{k: l.Value, isConst: true}, nil
	}
	if batch.NumRows() > 0 && isConstantExpr(e) {
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		defer one.Release()
		a, err := e.Eval(ctx, one)
		if err != nil {
			return operand{}, err
		}
		defer a.Release()
		return operand{k: ValueAt(a, 0, e.Type()), isConst: true}, nil
	}
	a, err := e.Eval(ctx, batch)
	if err != nil {
		return operand{}, err
	}
	return operand{arr: a}, nil
}

// splitConst returns the column and the constant of two operands, one of each.
func splitConst(l, r operand) (col, k operand) {
	if l.isConst {
		return r, l
	}
	return l, r
}

// materialize returns o as an array of n rows of type t (retained: the caller releases it).
func (o operand) materialize(ctx *Context, t sqltypes.DataType, n int) arrow.Array {
	if o.isConst {
		return repeatValue(ctx, o.k, t, n)
	}
	o.arr.Retain()
	return o.arr
}

// numSlice returns the values of a plain fixed-width array whose Arrow layout is T (dates are
// int32 days, timestamps int64 microseconds), or false.
func numSlice[T kernNum](a arrow.Array) ([]T, bool) {
	var zero T
	id := a.DataType().ID()
	ok := false
	switch any(zero).(type) {
	case int8:
		ok = id == arrow.INT8
	case int16:
		ok = id == arrow.INT16
	case int32:
		ok = id == arrow.INT32 || id == arrow.DATE32
	case int64:
		ok = id == arrow.INT64
		if ts, isTS := a.DataType().(*arrow.TimestampType); isTS {
			ok = ts.Unit == arrow.Microsecond
		}
	case float32:
		ok = id == arrow.FLOAT32
	case float64:
		ok = id == arrow.FLOAT64
	}
	if !ok {
		return nil, false
	}
	d := a.Data()
	n := d.Len()
	if n == 0 {
		return []T{}, true
	}
	buf := d.Buffers()[1]
	if buf == nil {
		return nil, false
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(&buf.Bytes()[0])), buf.Len()/int(unsafe.Sizeof(zero)))
	return all[d.Offset() : d.Offset()+n], true
}

// kernValues allocates an Arrow value buffer of n T and returns it with its typed view.
func kernValues[T kernNum](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * int(unsafe.Sizeof(zero)))
	if n == 0 {
		return buf, []T{}
	}
	return buf, unsafe.Slice((*T)(unsafe.Pointer(&buf.Bytes()[0])), n)
}

// broadcast is n copies of k.
func broadcast[T kernNum](k T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = k
	}
	return s
}

// andValidity is the AND of the validity bitmaps of arrs (nil entries are constants, always
// valid) over n rows: nil when every row is valid.
func andValidity(mem memory.Allocator, n int, arrs ...arrow.Array) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range arrs {
		if a == nil || a.NullN() == 0 {
			continue
		}
		bits := a.NullBitmapBytes()
		off := int64(a.Data().Offset())
		if out == nil {
			out = memory.NewResizableBuffer(mem)
			out.Resize(int(bitutil.BytesForBits(int64(n))))
			bitutil.CopyBitmap(bits, int(off), n, out.Bytes(), 0)
			continue
		}
		bitutil.BitmapAnd(out.Bytes(), bits, 0, off, out.Bytes(), 0, int64(n))
	}
	return out
}

// allValid returns a bitmap of n set bits.
func allValid(mem memory.Allocator, n int) *memory.Buffer {
	out := memory.NewResizableBuffer(mem)
	out.Resize(int(bitutil.BytesForBits(int64(n))))
	bitutil.SetBitsTo(out.Bytes(), 0, int64(n), true)
	return out
}

// makeArray wraps a value buffer and a validity bitmap (nil: all valid) of n rows in an array
// of dt, taking over both buffers.
func makeArray(dt arrow.DataType, n int, valid, vals *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	vals.Release()
	if valid != nil {
		valid.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// isValidBit reports whether row i is valid in bitmap (nil: all valid).
func isValidBit(valid *memory.Buffer, i int) bool {
	return valid == nil || bitutil.BitIsSet(valid.Bytes(), i)
}

// kernConst converts a non-NULL constant of a numeric, date or timestamp type to T.
func kernConst[T kernNum](v any) T {
	switch x := v.(type) {
	case float32:
		return T(x)
	case float64:
		return T(x)
	}
	return T(toInt64(v))
}
