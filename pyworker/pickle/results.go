package pickle

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// AppendUDFResults decodes one pickled output batch of a SQL_BATCHED_UDF task (worker.py's
// BatchedSerializer dumps a list of per-row results) and appends every row's results to builders,
// one builder per UDF of the given return types (builders[i] builds sqltypes.ToArrow(types[i])).
// With one UDF each result is that UDF's value; with several it is a tuple of one value per UDF,
// as BatchEvalPythonExec reads them. It returns the number of rows appended. On error the
// builders may hold a partial batch and must be discarded.
func AppendUDFResults(builders []array.Builder, types []sqltypes.DataType, data []byte) (int, error) {
	v, err := Decode(data)
	if err != nil {
		return 0, err
	}
	l, ok := v.(*List)
	if !ok {
		return 0, pickleError("a UDF result batch is a %s, not a list", typeName(v))
	}
	budget := BudgetFor(len(data))
	for _, r := range l.Items {
		if len(types) == 1 {
			if err := AppendFromJava(builders[0], types[0], r, &budget); err != nil {
				return 0, err
			}
			continue
		}
		tup, ok := r.(Tuple)
		if !ok || len(tup) != len(types) {
			return 0, pickleError("a result row of %d UDFs is a %s", len(types), typeName(r))
		}
		for i, t := range types {
			if err := AppendFromJava(builders[i], t, tup[i], &budget); err != nil {
				return 0, err
			}
		}
	}
	return len(l.Items), nil
}
