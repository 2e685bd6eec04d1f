package expr

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// boolLogic is AND / OR with three-valued logic.
type boolLogic struct {
	and         bool
	left, right Expr
}

func (b *boolLogic) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (b *boolLogic) Children() []Expr        { return []Expr{b.left, b.right} }
func (b *boolLogic) Nullable() bool          { return b.left.Nullable() || b.right.Nullable() }
func (b *boolLogic) String() string          { return renderSQL(b) }
func (b *boolLogic) writeSQL(sb *strings.Builder) {
	op := " OR "
	if b.and {
		op = " AND "
	}
	sb.WriteByte('(')
	writeSQL(sb, b.left)
	sb.WriteString(op)
	writeSQL(sb, b.right)
	sb.WriteByte(')')
}

func (b *boolLogic) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	la, err := b.left.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	if out, ok, err := b.evalKernel(ctx, batch, la); ok {
		return out, err
	}
	return b.evalRows(ctx, batch, la)
}

// evalRows is AND / OR row by row (the kernel's oracle).
func (b *boolLogic) evalRows(ctx *Context, batch arrow.RecordBatch, la arrow.Array) (arrow.Array, error) {
	l := la.(*array.Boolean)
	n := l.Len()
	// Rows whose result the left side decides need no right side (short-circuit, so that the
	// right side's errors on those rows do not surface, as in Spark).
	need := make([]bool, n)
	for i := 0; i < n; i++ {
		need[i] = l.IsNull(i) || l.Value(i) == b.and
	}
	ra, err := evalMasked(ctx, b.right, batch, need)
	if err != nil {
		return nil, err
	}
	defer ra.Release()
	r := ra.(*array.Boolean)
	vals := make([]bool, n)
	var valid []bool
	if l.NullN() > 0 || r.NullN() > 0 {
		valid = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		ln, rn := l.IsNull(i), r.IsNull(i)
		lv, rv := !ln && l.Value(i), !rn && r.Value(i)
		var v, ok bool
		if b.and {
			switch {
			case !ln && !lv, !rn && !rv:
				v, ok = false, true
			case ln || rn:
				ok = false
			default:
				v, ok = true, true
			}
		} else {
			switch {
			case lv || rv:
				v, ok = true, true
			case ln || rn:
				ok = false
			default:
				v, ok = false, true
			}
		}
		vals[i] = v
		if valid != nil {
			valid[i] = ok
		} else if !ok {
			panic("unreachable")
		}
	}
	return buildBools(ctx.mem(), vals, valid), nil
}

// evalMasked evaluates e on all rows; if that fails, it evaluates only the rows where need is
// true (other rows become NULL), so errors on unneeded rows are not raised.
func evalMasked(ctx *Context, e Expr, batch arrow.RecordBatch, need []bool) (arrow.Array, error) {
	all := true
	for _, x := range need {
		if !x {
			all = false
			break
		}
	}
	out, err := e.Eval(ctx, batch)
	if err == nil || all {
		return out, err
	}
	return evalOnRows(ctx, e, batch, need, err)
}

// evalOnRows evaluates e only on the rows where need is true (other rows become NULL), after
// its evaluation over the whole batch failed with err; when every row is needed, that is
// err.
func evalOnRows(ctx *Context, e Expr, batch arrow.RecordBatch, need []bool, err error) (arrow.Array, error) {
	all := true
	for _, x := range need {
		if !x {
			all = false
			break
		}
	}
	if all {
		return nil, err
	}
	sub := filterBatch(ctx, batch, need)
	defer sub.Release()
	part, err := e.Eval(ctx, sub)
	if err != nil {
		return nil, err
	}
	defer part.Release()
	vals := make([]any, len(need))
	j := 0
	for i, x := range need {
		if x {
			vals[i] = ValueAt(part, j, e.Type())
			j++
		}
	}
	return BuildArray(ctx.mem(), e.Type(), ctx.tz(), vals), nil
}

// notExpr is NOT.
type notExpr struct{ child Expr }

func (n *notExpr) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (n *notExpr) Children() []Expr        { return []Expr{n.child} }
func (n *notExpr) Nullable() bool          { return n.child.Nullable() }
func (n *notExpr) String() string          { return renderSQL(n) }
func (n *notExpr) writeSQL(b *strings.Builder) {
	b.WriteString("(NOT ")
	writeSQL(b, n.child)
	b.WriteByte(')')
}
func (n *notExpr) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := n.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if out, ok := n.evalKernel(ctx, a); ok {
		return out, nil
	}
	return n.evalRows(ctx, a), nil
}

// evalRows is NOT row by row (the kernel's oracle).
func (n *notExpr) evalRows(ctx *Context, a arrow.Array) arrow.Array {
	b := a.(*array.Boolean)
	vals := make([]bool, b.Len())
	for i := range vals {
		vals[i] = !b.Value(i)
	}
	return buildBools(ctx.mem(), vals, validity(a))
}

// nullTest is IS NULL / IS NOT NULL / isnan.
type nullTest struct {
	kind  string // "null", "notnull", "nan"
	child Expr
}

func (n *nullTest) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (n *nullTest) Children() []Expr        { return []Expr{n.child} }
func (n *nullTest) Nullable() bool          { return false }
func (n *nullTest) String() string          { return renderSQL(n) }
func (n *nullTest) writeSQL(b *strings.Builder) {
	switch n.kind {
	case "null", "notnull":
		b.WriteByte('(')
		writeSQL(b, n.child)
		if n.kind == "null" {
			b.WriteString(" IS NULL)")
		} else {
			b.WriteString(" IS NOT NULL)")
		}
		return
	}
	writeCall(b, "isnan", []Expr{n.child})
}
func (n *nullTest) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := n.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if out, ok := n.evalKernel(ctx, a); ok {
		return out, nil
	}
	return n.evalRows(ctx, a), nil
}

// evalRows is the null test row by row (the kernel's oracle).
func (n *nullTest) evalRows(ctx *Context, a arrow.Array) arrow.Array {
	vals := make([]bool, a.Len())
	switch n.kind {
	case "null":
		for i := range vals {
			vals[i] = isNullAt(a, i)
		}
	case "notnull":
		for i := range vals {
			vals[i] = !isNullAt(a, i)
		}
	default:
		for i := range vals {
			if v := ValueAt(a, i, n.child.Type()); v != nil {
				vals[i] = math.IsNaN(toFloat64(v))
			}
		}
	}
	return buildBools(ctx.mem(), vals, nil)
}

// caseWhen is CASE WHEN c1 THEN v1 … [ELSE e] END; branches evaluate only where needed.
type caseWhen struct {
	conds, vals []Expr
	elseV       Expr
	t           sqltypes.DataType
	// str overrides the rendering (if/nvl2-style callers).
	str sqlText
}

func (c *caseWhen) Type() sqltypes.DataType { return c.t }
func (c *caseWhen) Children() []Expr {
	var out []Expr
	for i := range c.conds {
		out = append(out, c.conds[i], c.vals[i])
	}
	if c.elseV != nil {
		out = append(out, c.elseV)
	}
	return out
}
func (c *caseWhen) Nullable() bool {
	if c.elseV == nil || c.elseV.Nullable() {
		return true
	}
	return anyNullable(c.vals)
}
func (c *caseWhen) String() string { return renderSQL(c) }
func (c *caseWhen) writeSQL(b *strings.Builder) {
	if c.str != nil {
		c.str.write(b)
		return
	}
	b.WriteString("CASE")
	for i := range c.conds {
		b.WriteString(" WHEN ")
		writeSQL(b, c.conds[i])
		b.WriteString(" THEN ")
		writeSQL(b, c.vals[i])
	}
	if c.elseV != nil {
		b.WriteString(" ELSE ")
		writeSQL(b, c.elseV)
	}
	b.WriteString(" END")
}

func (c *caseWhen) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	open := allRows(n)
	var parts []selectPart
	defer func() { releaseParts(parts) }()
	for k := range c.conds {
		ca, err := evalNeeded(ctx, c.conds[k], batch, func() []bool { return bitsToBools(open, n) })
		if err != nil {
			return nil, err
		}
		take, _ := triBits(ca.(*array.Boolean), n)
		ca.Release()
		any := false
		for i := range take {
			take[i] &= open[i]
			open[i] &^= take[i]
			any = any || take[i] != 0
		}
		if !any {
			continue
		}
		va, err := evalNeeded(ctx, c.vals[k], batch, func() []bool { return bitsToBools(take, n) })
		if err != nil {
			return nil, err
		}
		parts = append(parts, selectPart{arr: va, take: take})
	}
	if c.elseV != nil {
		va, err := evalNeeded(ctx, c.elseV, batch, func() []bool { return bitsToBools(open, n) })
		if err != nil {
			return nil, err
		}
		parts = append(parts, selectPart{arr: va, take: open})
	}
	return mergeParts(ctx, c.t, n, parts), nil
}

// coalesce returns the first non-null argument.
type coalesce struct {
	name string
	args []Expr
	t    sqltypes.DataType
}

func (c *coalesce) Type() sqltypes.DataType     { return c.t }
func (c *coalesce) Children() []Expr            { return c.args }
func (c *coalesce) String() string              { return renderSQL(c) }
func (c *coalesce) writeSQL(b *strings.Builder) { writeCall(b, c.name, c.args) }
func (c *coalesce) Nullable() bool {
	for _, a := range c.args {
		if !a.Nullable() {
			return false
		}
	}
	return true
}
func (c *coalesce) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	open := allRows(n)
	var parts []selectPart
	defer func() { releaseParts(parts) }()
	for _, a := range c.args {
		va, err := evalNeeded(ctx, a, batch, func() []bool { return bitsToBools(open, n) })
		if err != nil {
			return nil, err
		}
		take := validBits(va, n)
		left := false
		for i := range take {
			take[i] &= open[i]
			open[i] &^= take[i]
			left = left || open[i] != 0
		}
		parts = append(parts, selectPart{arr: va, take: take})
		if !left {
			break
		}
	}
	return mergeParts(ctx, c.t, n, parts), nil
}

// inList is value IN (list…) with SQL null semantics.
type inList struct {
	value Expr
	list  []Expr
	in    sqltypes.DataType
	// set, when the list's values are constants, holds them (kernel_inset.go); tz is the
	// session time zone it was built in (for casts of constants).
	set *inSet
	tz  string
}

// withSet is e with the set of its list's values when they are constants.
func (e *inList) withSet(tz string) *inList {
	e.set, e.tz = nil, tz
	if s, ok := newInSet(e.value, e.list, e.in, Options{TimeZone: tz}); ok {
		e.set = s
	}
	return e
}

func (e *inList) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (e *inList) Children() []Expr        { return append([]Expr{e.value}, e.list...) }
func (e *inList) Nullable() bool          { return e.value.Nullable() || anyNullable(e.list) }
func (e *inList) String() string          { return renderSQL(e) }
func (e *inList) writeSQL(b *strings.Builder) {
	b.WriteByte('(')
	writeSQL(b, e.value)
	b.WriteString(" IN (")
	for i, x := range e.list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeSQL(b, x)
	}
	b.WriteString("))")
}
func (e *inList) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if e.set != nil {
		return e.set.evalOf(ctx, batch, e.value)
	}
	cols, err := evalAll(ctx, e.Children(), batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	n := int(batch.NumRows())
	vals := make([]bool, n)
	valid := make([]bool, n)
	for i := 0; i < n; i++ {
		v := ValueAt(cols[0], i, e.in)
		if v == nil {
			continue
		}
		sawNull := false
		for _, c := range cols[1:] {
			x := ValueAt(c, i, e.in)
			if x == nil {
				sawNull = true
			} else if Compare(v, x, e.in) == 0 {
				vals[i] = true
				break
			}
		}
		valid[i] = vals[i] || !sawNull
	}
	return buildBools(ctx.mem(), vals, valid), nil
}

// filterBatch copies the rows of batch where keep is true (row-wise; used on error paths only).
func filterBatch(ctx *Context, batch arrow.RecordBatch, keep []bool) arrow.RecordBatch {
	schema := batch.Schema()
	cols := make([]arrow.Array, batch.NumCols())
	rows := 0
	for _, k := range keep {
		if k {
			rows++
		}
	}
	for c := range cols {
		src := batch.Column(c)
		b := array.NewBuilder(ctx.mem(), src.DataType())
		for i, k := range keep {
			if !k {
				continue
			}
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			appendFrom(b, src, i)
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	out := array.NewRecordBatch(schema, cols, int64(rows))
	releaseAll(cols)
	return out
}

// appendFrom appends src[i] to b (same Arrow type) via the Go value conventions.
func appendFrom(b array.Builder, src arrow.Array, i int) {
	t, err := sqltypes.FromArrow(src.DataType())
	if err != nil {
		b.AppendNull()
		return
	}
	appendValue(b, t, ValueAt(src, i, t))
}
