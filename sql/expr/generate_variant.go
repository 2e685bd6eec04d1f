package expr

import (
	"github.com/weirhq/weir/sql/types/variant"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// variant_explode and variant_explode_outer: table functions (Spark refuses them in a select
// list and in LATERAL VIEW) that turn a variant object or array into one row per field or
// element: pos (its position), key (the field's name, NULL for an array element) and value (the
// field or element as a VARIANT sharing the input's metadata, as Spark's VariantExplode). Any
// other input, SQL NULL and variant null included, gives no rows (one row of NULLs for the
// outer form).

func init() {
	generatorRegistry["variant_explode"] = generatorBinder{1, 1, bindVariantExplode}
	tableOnlyGenerators["variant_explode"] = true
}

// tableOnlyGenerators are the generators Spark calls only as table-valued functions in FROM.
var tableOnlyGenerators = map[string]bool{}

// IsTableOnlyGenerator reports whether name (any case) is a generator that Spark accepts only
// as a table-valued function in FROM (a select list gives NOT_A_SCALAR_FUNCTION, LATERAL VIEW
// ROUTINE_NOT_FOUND).
func IsTableOnlyGenerator(name string) bool {
	base, _ := cutOuter(name)
	return tableOnlyGenerators[base]
}

func bindVariantExplode(name string, args []Expr, _ Options) (*generator, error) {
	if k := args[0].Type().Kind; k != sqltypes.Variant && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"VARIANT"`, args[0])
	}
	out := sqltypes.Schema{
		{Name: "pos", Type: sqltypes.IntegerType},
		{Name: "key", Type: sqltypes.StringType, Nullable: true},
		{Name: "value", Type: sqltypes.VariantType},
	}
	return &generator{args: args, out: out, row: func(v []any, emit func(...any)) {
		vv, ok := v[0].(sqltypes.VariantValue)
		if !ok || len(vv.Value) == 0 {
			return
		}
		root := variant.New(vv.Value, vv.Metadata)
		switch root.Type() {
		case variant.Object:
			for i := 0; i < root.Len(); i++ {
				k, f := root.Field(i)
				emit(int32(i), k, sqltypes.VariantValue{Value: f.Raw(), Metadata: vv.Metadata})
			}
		case variant.Array:
			for i := 0; i < root.Len(); i++ {
				emit(int32(i), nil, sqltypes.VariantValue{Value: root.Elem(i).Raw(), Metadata: vv.Metadata})
			}
		}
	}}, nil
}
