package expr

import (
	sqltypes "github.com/weirhq/weir/sql/types"
)

// schema_of_variant_agg(v): the schema of all of a group's variant values merged as
// schema_of_variant merges an array's elements (mergeVariantSchema), rendered as
// schema_of_variant does; SQL NULLs and variant nulls add nothing, and a group without any
// other value is VOID (never NULL), as Spark's SchemaOfVariantAgg.

func init() {
	registerAggregate(1, 1, bindSchemaOfVariantAgg, "schema_of_variant_agg")
}

func bindSchemaOfVariantAgg(name string, args []Expr, distinct bool, _ Options) (AggFunc, error) {
	if err := requireVariant(name, args, 0); err != nil {
		return nil, err
	}
	f := tupleAgg(name, args, distinct, sqltypes.StringType, skipNullFirst, func(rows [][]any) (any, error) {
		t := sqltypes.NullType
		for _, r := range rows {
			root, err := openVariant(r[0])
			if err != nil {
				return nil, err
			}
			t = mergeVariantSchema(t, variantSchema(root))
		}
		return variantSchemaSQL(t), nil
	})
	f.null = false
	return f, nil
}
