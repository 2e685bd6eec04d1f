package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// update_fields: Column.withField and Column.dropFields (Spark's UpdateFields). A chain of
// operations on one struct is one expression, as Spark merges them: each WithField replaces
// every field of its name (case-insensitively unless the session is case-sensitive; the field
// takes the new name's spelling) or appends one; each DropField removes every field of its name.
// A NULL struct gives NULL. Nested paths (withField("a.b", v)) are the analyzer's: it binds them
// as WithField("a", update_fields(s.a, WithField("b", v))).

// FieldUpdate is one operation: set Name to Value, or drop Name when Value is nil.
type FieldUpdate struct {
	Name  string
	Value Expr
}

// updateFields is base with ops applied; out says, for each result field, the index of the base
// field it copies (>= 0) or -1-k for the k-th value.
type updateFields struct {
	base          Expr
	ops           []FieldUpdate
	caseSensitive bool
	t             sqltypes.DataType
	out           []int
	values        []Expr
}

// UpdateFields applies ops to the struct base (appending them to base's own when base is an
// update_fields already). A base that is not a struct is DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE;
// dropping every field is DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS.
func UpdateFields(base Expr, ops []FieldUpdate, caseSensitive bool) (Expr, error) {
	if u, ok := base.(*updateFields); ok {
		base, ops = u.base, append(append([]FieldUpdate(nil), u.ops...), ops...)
	}
	u := &updateFields{base: base, ops: ops, caseSensitive: caseSensitive}
	bt := base.Type()
	if bt.Kind != sqltypes.Struct {
		return nil, unexpectedInputType(quoteSQL(u.String()), 0, `"STRUCT"`, base)
	}
	fields := append([]sqltypes.Field(nil), bt.Fields...)
	src := make([]int, len(fields))
	for i := range src {
		src[i] = i
	}
	same := func(a, b string) bool {
		if caseSensitive {
			return a == b
		}
		return strings.EqualFold(a, b)
	}
	for _, op := range ops {
		if op.Value == nil {
			keep := 0
			for i, f := range fields {
				if !same(f.Name, op.Name) {
					fields[keep], src[keep] = f, src[i]
					keep++
				}
			}
			fields, src = fields[:keep], src[:keep]
			continue
		}
		k := -1 - len(u.values)
		u.values = append(u.values, op.Value)
		f := sqltypes.Field{Name: op.Name, Type: op.Value.Type(), Nullable: op.Value.Nullable()}
		found := false
		for i := range fields {
			if same(fields[i].Name, op.Name) {
				fields[i], src[i], found = f, k, true
			}
		}
		if !found {
			fields, src = append(fields, f), append(src, k)
		}
	}
	if len(fields) == 0 {
		return nil, typeMismatch("CANNOT_DROP_ALL_FIELDS", quoteSQL(u.String()), "Cannot drop all fields in struct.")
	}
	u.t, u.out = sqltypes.StructType(fields...), src
	return u, nil
}

func (u *updateFields) Type() sqltypes.DataType { return u.t }
func (u *updateFields) Nullable() bool          { return u.base.Nullable() }

// String renders as Spark: update_fields(s, WithField(v), dropfield()).
func (u *updateFields) String() string {
	var b strings.Builder
	b.WriteString("update_fields(" + u.base.String())
	for _, op := range u.ops {
		if op.Value == nil {
			b.WriteString(", dropfield()")
		} else {
			b.WriteString(", WithField(" + op.Value.String() + ")")
		}
	}
	b.WriteByte(')')
	return b.String()
}

func (u *updateFields) Children() []Expr { return append([]Expr{u.base}, u.values...) }

// withChildren is u over base cs[0] and values cs[1:] (rebuild).
func (u *updateFields) withChildren(cs []Expr) Expr {
	c := *u
	c.base = cs[0]
	c.values = cs[1:]
	c.ops = append([]FieldUpdate(nil), u.ops...)
	k := 0
	for i := range c.ops {
		if c.ops[i].Value != nil {
			c.ops[i].Value = c.values[k]
			k++
		}
	}
	return &c
}

func (u *updateFields) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	cols, err := evalAll(ctx, u.Children(), batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	bases := valuesOf(cols[0], u.base.Type())
	vals := make([][]any, len(u.values))
	for i, v := range u.values {
		vals[i] = valuesOf(cols[1+i], v.Type())
	}
	out := make([]any, len(bases))
	for r, b := range bases {
		if b == nil {
			continue
		}
		in := b.([]any)
		row := make([]any, len(u.out))
		for i, s := range u.out {
			if s >= 0 {
				row[i] = in[s]
			} else {
				row[i] = vals[-1-s][r]
			}
		}
		out[r] = row
	}
	return BuildArray(ctx.mem(), u.t, ctx.tz(), out), nil
}
