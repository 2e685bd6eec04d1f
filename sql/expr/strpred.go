package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// stringPredicate is a vectorized string test with a constant pattern (LIKE 'abc%',
// startswith(s, 'x'), rlike(s, '…')): the pattern is compiled once at bind time and the input
// strings are read straight from the Arrow array.
type stringPredicate struct {
	child Expr
	pred  func(string) bool
	str   sqlText
}

func (p *stringPredicate) Type() sqltypes.DataType     { return sqltypes.BooleanType }
func (p *stringPredicate) Nullable() bool              { return p.child.Nullable() }
func (p *stringPredicate) String() string              { return p.str.String() }
func (p *stringPredicate) writeSQL(b *strings.Builder) { p.str.write(b) }
func (p *stringPredicate) Children() []Expr            { return []Expr{p.child} }

func (p *stringPredicate) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := p.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if out, ok := predicateBits(ctx, a, p.pred); ok {
		return out, nil
	}
	n := a.Len()
	vals := make([]bool, n)
	if s, ok := a.(*array.String); ok {
		for i := 0; i < n; i++ {
			if s.IsValid(i) {
				vals[i] = p.pred(s.Value(i))
			}
		}
	} else {
		for i := 0; i < n; i++ {
			if v, ok := ValueAt(a, i, sqltypes.StringType).(string); ok {
				vals[i] = p.pred(v)
			}
		}
	}
	return buildBools(ctx.mem(), vals, validity(a)), nil
}

// constPattern returns the literal string value of e, if it is one.
func constPattern(e Expr) (string, bool) {
	v, ok := literalValue(e)
	s, isStr := v.(string)
	return s, ok && isStr
}

// likePredicate compiles a constant LIKE pattern, using plain string tests (likeSegments) when
// the pattern has no '_' and no escape, and a regex otherwise.
func likePredicate(pattern string, esc rune, ci bool) (func(string) bool, error) {
	if !ci && !strings.ContainsAny(pattern, "_"+string(esc)) && utf8.ValidString(pattern) {
		return likeSegments(pattern), nil
	}
	re, err := compileJavaRegex(likeToRegex(pattern, esc, ci))
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// stringMapExpr applies a string → string function over a string column, reading and writing
// Arrow string data directly.
type stringMapExpr struct {
	child Expr
	fn    func(string) string
	str   string
	// ascii, when set, is fn on one ASCII byte (upper, lower): a batch whose strings are all
	// ASCII is mapped byte by byte into a copy of its buffers (asciiMap).
	ascii func(byte) byte
}

func (m *stringMapExpr) Type() sqltypes.DataType { return sqltypes.StringType }
func (m *stringMapExpr) Nullable() bool          { return m.child.Nullable() }
func (m *stringMapExpr) String() string          { return m.str }
func (m *stringMapExpr) Children() []Expr        { return []Expr{m.child} }

func (m *stringMapExpr) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := m.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if m.ascii != nil {
		if out, ok := asciiMap(ctx, a, m.ascii); ok {
			return out, nil
		}
	}
	n := a.Len()
	b := array.NewStringBuilder(ctx.mem())
	defer b.Release()
	b.Reserve(n)
	if s, ok := a.(*array.String); ok {
		b.ReserveData(len(s.ValueBytes()))
		for i := 0; i < n; i++ {
			if s.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(m.fn(s.Value(i)))
			}
		}
		return b.NewArray(), nil
	}
	for i := 0; i < n; i++ {
		if v, ok := ValueAt(a, i, sqltypes.StringType).(string); ok {
			b.Append(m.fn(v))
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}
