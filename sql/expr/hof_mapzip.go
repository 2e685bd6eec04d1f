package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// mapZipKeyType checks map_zip_with's two maps share a key type and returns it.
func mapZipKeyType(args []Expr) (sqltypes.DataType, error) {
	for i, a := range args {
		if a.Type().Kind != sqltypes.Map {
			return sqltypes.DataType{}, unexpectedInputType(quoteSQL("map_zip_with"), i, `"MAP"`, a)
		}
	}
	k1, k2 := *args[0].Type().Key, *args[1].Type().Key
	if !k1.EqualIgnoreNullable(k2) {
		q := quoteSQL("map_zip_with")
		return sqltypes.DataType{}, typeMismatch("MAP_ZIP_WITH_DIFF_TYPES", q,
			"Input to the map_zip_with should have been two maps with compatible key types, but it's [%s, %s].",
			quoteSQL(k1.SQL()), quoteSQL(k2.SQL())).WithParams("functionName", "`map_zip_with`",
			"leftType", quoteSQL(k1.SQL()), "rightType", quoteSQL(k2.SQL()))
	}
	return k1, nil
}

// evalMapZip is map_zip_with(m1, m2, (k, v1, v2) -> v): the keys of m1 then the keys only m2
// has, each with the body over both values (NULL where a map lacks the key); NULL if either
// map is NULL.
func (h *hof) evalMapZip(ctx *Context, batch arrow.RecordBatch, inputs [][]any, out []any) error {
	kt := *h.args[0].Type().Key
	var rows []int
	var ks, v1s, v2s []any
	sizes := make([]int, len(inputs[0]))
	for r := range inputs[0] {
		if inputs[0][r] == nil || inputs[1][r] == nil {
			sizes[r] = -1
			continue
		}
		m1, m2 := inputs[0][r].(*sqltypes.MapValue), inputs[1][r].(*sqltypes.MapValue)
		keys := append([]any(nil), m1.Keys...)
		for _, k := range m2.Keys {
			if mapIndex(m1, k, kt) < 0 {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			rows = append(rows, r)
			ks, v1s, v2s = append(ks, k), append(v1s, mapGet(m1, k, kt)), append(v2s, mapGet(m2, k, kt))
		}
		sizes[r] = len(keys)
	}
	res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{ks, v1s, v2s}[:len(h.lambdas[0].Params)])
	if err != nil {
		return err
	}
	k := 0
	for r, n := range sizes {
		if n < 0 {
			continue
		}
		out[r] = &sqltypes.MapValue{Keys: append([]any(nil), ks[k:k+n]...), Values: append([]any(nil), res[k:k+n]...)}
		k += n
	}
	return nil
}

// mapIndex is the position of key k in m, or -1.
func mapIndex(m *sqltypes.MapValue, k any, kt sqltypes.DataType) int {
	for i, x := range m.Keys {
		if Compare(x, k, kt) == 0 {
			return i
		}
	}
	return -1
}

// mapGet is m's value for k, or nil.
func mapGet(m *sqltypes.MapValue, k any, kt sqltypes.DataType) any {
	if i := mapIndex(m, k, kt); i >= 0 {
		return m.Values[i]
	}
	return nil
}
