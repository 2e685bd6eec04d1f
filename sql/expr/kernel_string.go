package expr

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// String kernels over Arrow string arrays: values are read as substrings of the array's data
// buffer through its offsets (no Go string is allocated per row) and boolean results are
// written as bits. Comparisons (= < <= > >= over UTF8_BINARY strings, column-column and
// column-constant) order by bytes, as Spark's UTF8String does; predicates with a constant
// pattern (LIKE reduced to equality / prefix / suffix / substrings in order, startswith,
// endswith, contains, regex) call the pattern's test per row; substring and length compute
// on the bytes when a value is ASCII and through the row-wise function otherwise, and upper and
// lower map a batch of ASCII strings byte by byte.

// strView is the values of a string array: row i is data[offs[i]:offs[i+1]].
type strView struct {
	offs []int32
	data string
}

func viewOf(a arrow.Array) (strView, bool) {
	s, ok := a.(*array.String)
	if !ok {
		return strView{}, false
	}
	v := strView{offs: s.ValueOffsets()}
	if b := s.Data().Buffers()[2]; b != nil && b.Len() > 0 {
		bs := b.Bytes()
		v.data = unsafe.String(&bs[0], len(bs))
	}
	return v, true
}

func (v strView) at(i int) string { return v.data[v.offs[i]:v.offs[i+1]] }

// binaryCollation reports whether t compares by bytes.
func binaryCollation(t sqltypes.DataType) bool {
	return t.StringCollation == "" || strings.EqualFold(t.StringCollation, "UTF8_BINARY")
}

// stringKernel compares string operands; ok is false for <=>, or an operand that is not a
// plain string array.
func (c *comparison) stringKernel(ctx *Context, l, r operand, n int) (arrow.Array, bool) {
	if c.op == "<=>" {
		return nil, false
	}
	if (l.isConst && l.k == nil) || (r.isConst && r.k == nil) {
		return array0Null(ctx, sqltypes.BooleanType, n), true
	}
	mem := ctx.mem()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	clear(bits)
	var valid *memory.Buffer
	switch {
	case l.isConst && r.isConst:
		buf.Release()
		return nil, false
	case l.isConst || r.isConst:
		col, k, op := r.arr, l.k, flipComparison(c.op)
		if r.isConst {
			col, k, op = l.arr, r.k, c.op
		}
		v, ok := viewOf(col)
		ks, isStr := k.(string)
		if !ok || !isStr {
			buf.Release()
			return nil, false
		}
		if op == "=" {
			for i := 0; i < n; i++ {
				if int(v.offs[i+1]-v.offs[i]) == len(ks) && v.at(i) == ks {
					bits[i>>3] |= 1 << (i & 7)
				}
			}
		} else {
			for i := 0; i < n; i++ {
				if cmpResult(op, strings.Compare(v.at(i), ks)) {
					bits[i>>3] |= 1 << (i & 7)
				}
			}
		}
		valid = andValidity(mem, n, col)
	default:
		lv, ok1 := viewOf(l.arr)
		rv, ok2 := viewOf(r.arr)
		if !ok1 || !ok2 {
			buf.Release()
			return nil, false
		}
		for i := 0; i < n; i++ {
			if cmpResult(c.op, strings.Compare(lv.at(i), rv.at(i))) {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
		valid = andValidity(mem, n, l.arr, r.arr)
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, valid, buf), true
}

// predicateBits runs pred over a string array into a boolean array (NULL where the input is).
func predicateBits(ctx *Context, a arrow.Array, pred func(string) bool) (arrow.Array, bool) {
	v, ok := viewOf(a)
	if !ok {
		return nil, false
	}
	n := a.Len()
	mem := ctx.mem()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	clear(bits)
	for i := 0; i < n; i++ {
		if pred(v.at(i)) {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, andValidity(mem, n, a), buf), true
}

// likeSegments is a LIKE pattern without '_' or escapes as a test: the text before the first
// '%' is a prefix, the text after the last one a suffix, and the texts between them must occur
// in order, without overlapping, in what lies between.
func likeSegments(pattern string) func(string) bool {
	parts := strings.Split(pattern, "%")
	if len(parts) == 1 {
		return func(s string) bool { return s == pattern }
	}
	pre, suf := parts[0], parts[len(parts)-1]
	var mid []string
	for _, p := range parts[1 : len(parts)-1] {
		if p != "" {
			mid = append(mid, p)
		}
	}
	switch {
	case len(mid) == 0 && suf == "":
		return func(s string) bool { return strings.HasPrefix(s, pre) }
	case len(mid) == 0 && pre == "":
		return func(s string) bool { return strings.HasSuffix(s, suf) }
	case len(mid) == 1 && pre == "" && suf == "":
		m := mid[0]
		return func(s string) bool { return strings.Contains(s, m) }
	}
	return func(s string) bool {
		if len(s) < len(pre)+len(suf) || !strings.HasPrefix(s, pre) || !strings.HasSuffix(s, suf) {
			return false
		}
		s = s[len(pre) : len(s)-len(suf)]
		for _, m := range mid {
			i := strings.Index(s, m)
			if i < 0 {
				return false
			}
			s = s[i+len(m):]
		}
		return true
	}
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// substringKernel is substring(s, pos[, len]) over a string array and INT arrays: ASCII values
// are sliced by bytes, others go through substringSQL.
func substringKernel(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
	v, ok := viewOf(cols[0])
	if !ok {
		return nil, false
	}
	pos, ok := numSlice[int32](cols[1])
	if !ok || cols[1].DataType().ID() != arrow.INT32 {
		return nil, false
	}
	var lens []int32
	if len(cols) == 3 {
		if lens, ok = numSlice[int32](cols[2]); !ok || cols[2].DataType().ID() != arrow.INT32 {
			return nil, false
		}
	}
	n := cols[0].Len()
	b := array.NewStringBuilder(ctx.mem())
	defer b.Release()
	b.Reserve(n)
	b.ReserveData(len(v.data))
	for i := 0; i < n; i++ {
		if cols[0].IsNull(i) || cols[1].IsNull(i) || (lens != nil && cols[2].IsNull(i)) {
			b.AppendNull()
			continue
		}
		s := v.at(i)
		l := int64(1 << 40)
		if lens != nil {
			l = int64(lens[i])
		}
		if !isASCII(s) {
			b.Append(substringSQL(s, int64(pos[i]), l))
			continue
		}
		start, end := substringRange(int64(len(s)), int64(pos[i]), l)
		b.Append(s[start:end])
	}
	return b.NewArray(), true
}

// lengthKernel is length(s) (characters) over a string array.
func lengthKernel(ctx *Context, cols []arrow.Array) (arrow.Array, bool) {
	v, ok := viewOf(cols[0])
	if !ok {
		return nil, false
	}
	n := cols[0].Len()
	mem := ctx.mem()
	buf, out := kernValues[int32](mem, n)
	for i := range out {
		s := v.at(i)
		if isASCII(s) {
			out[i] = int32(len(s))
		} else {
			out[i] = int32(utf8.RuneCountInString(s))
		}
	}
	return makeArray(arrow.PrimitiveTypes.Int32, n, andValidity(mem, n, cols[0]), buf), true
}

// substringRange is the [start, end) that substringBytes keeps of n units (start = end when
// nothing is kept).
func substringRange(n, pos, length int64) (int64, int64) {
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end := n
	if length < n+1 {
		end = start + length
	}
	start, end = max(start, 0), min(end, n)
	if start >= end {
		return 0, 0
	}
	return start, end
}

// asciiMap applies f to every byte of a string array whose values are all ASCII, into new
// offset and data buffers (lengths are kept); ok is false otherwise.
func asciiMap(ctx *Context, a arrow.Array, f func(byte) byte) (arrow.Array, bool) {
	v, ok := viewOf(a)
	if !ok {
		return nil, false
	}
	n := a.Len()
	lo, hi := v.offs[0], v.offs[n]
	src := v.data[lo:hi]
	if !isASCII(src) {
		return nil, false
	}
	mem := ctx.mem()
	offBuf, offs := kernValues[int32](mem, n+1)
	for i := range offs {
		offs[i] = v.offs[i] - lo
	}
	data := memory.NewResizableBuffer(mem)
	data.Resize(len(src))
	out := data.Bytes()
	for i := 0; i < len(src); i++ {
		out[i] = f(src[i])
	}
	return makeStringArray(n, andValidity(mem, n, a), offBuf, data), true
}

// makeStringArray is a string array of n rows over its buffers (valid nil: no NULLs), taking
// over the caller's references.
func makeStringArray(n int, valid, offBuf, data *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, offBuf, data}, nil, nulls, 0)
	releaseBuf(valid)
	offBuf.Release()
	data.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

func asciiUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}
