package expr

import (
	"fmt"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// update_fields over a literal struct: Spark's field order, case-insensitive replacement taking
// the new spelling, merging of chained operations, NULL struct, and its errors.
func TestUpdateFields(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	st := sqltypes.StructType(
		sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
		sqltypes.Field{Name: "b", Type: sqltypes.StringType, Nullable: true})
	s := NewLiteral([]any{int32(1), "x"}, st)
	nine := NewLiteral(int64(9), sqltypes.LongType)
	step, err := UpdateFields(s, []FieldUpdate{{Name: "A", Value: nine}, {Name: "c", Value: nine}}, false)
	if err != nil {
		t.Fatal(err)
	}
	u, err := UpdateFields(step, []FieldUpdate{{Name: "b"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The chain is one expression over the base struct.
	if got, want := u.String(), "update_fields("+s.String()+", WithField(9), WithField(9), dropfield())"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got, want := u.Type().String(), "struct<A:bigint,c:bigint>"; got != want {
		t.Errorf("type %s, want %s", got, want)
	}
	b := env.emptyBatch(1)
	defer b.Release()
	vals, err := env.eval(u, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(vals[0]); got != "[9 9]" {
		t.Errorf("value %s, want [9 9]", got)
	}
	null, _ := UpdateFields(NewLiteral(nil, st), []FieldUpdate{{Name: "a"}}, false)
	if vals, err := env.eval(null, b); err != nil || vals[0] != nil {
		t.Errorf("NULL struct gives %v, %v; want NULL", vals, err)
	}
	if _, err := UpdateFields(s, []FieldUpdate{{Name: "A"}}, true); err != nil {
		t.Errorf("case-sensitive drop of a missing field: %v", err)
	}
	for _, c := range []struct {
		base Expr
		ops  []FieldUpdate
		want string
	}{
		{s, []FieldUpdate{{Name: "a"}, {Name: "B"}}, "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS"},
		{nine, []FieldUpdate{{Name: "a", Value: nine}}, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"},
	} {
		if _, err := UpdateFields(c.base, c.ops, false); err == nil || errClass(err) != c.want {
			t.Errorf("UpdateFields(%s, %v) error %v, want %s", c.base, c.ops, err, c.want)
		}
	}
}

func TestUpdateFieldsWithChildren(t *testing.T) {
	st := sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true})
	u, err := UpdateFields(NewLiteral([]any{int32(1)}, st), []FieldUpdate{{Name: "b", Value: NewLiteral(int32(2), sqltypes.IntegerType)}}, false)
	if err != nil {
		t.Fatal(err)
	}
	three := NewLiteral(int32(3), sqltypes.IntegerType)
	v := WithChildren(u, []Expr{u.Children()[0], three})
	if got := v.String(); got != "update_fields("+u.Children()[0].String()+", WithField(3))" {
		t.Errorf("rebuilt %s", got)
	}
}
