package operators

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sparkerr"
)

// checkNotNull fails when column c of a Python function's result has a null where its declared
// field f (a field of mapInPandas' / mapInArrow's / applyInPandas' schema, e.g. "a long not
// null") or a field, element or map value nested in it is declared NOT NULL. Spark fails the
// task when it reads such a null from the worker's Arrow batch (ArrowColumnVector:
// "java.lang.IllegalStateException: Value at index is null"); a null inside a null struct or
// list does not count.
func checkNotNull(c arrow.Array, f arrow.Field) error {
	if f.Nullable && !notNullType(f.Type) {
		return nil
	}
	if row, path, ok := firstBadNull(c, f, nil, []string{f.Name}); ok {
		return sparkerr.Newf(sparkerr.SparkException, "", "",
			"Job aborted due to stage failure: Value at index is null: the Python function returned a null at row %d "+
				"of %s, which its result schema declares NOT NULL", row, sparkerr.Quote(path...))
	}
	return nil
}

// firstBadNull finds the first row of c (restricted to rows, nil: all) that is null where f
// says NOT NULL, or whose nested values are; path names the field, extended for nested ones.
func firstBadNull(c arrow.Array, f arrow.Field, rows []int, path []string) (int, []string, bool) {
	each := func(fn func(i int) bool) {
		if rows == nil {
			for i := 0; i < c.Len(); i++ {
				if fn(i) {
					return
				}
			}
			return
		}
		for _, i := range rows {
			if fn(i) {
				return
			}
		}
	}
	bad := -1
	if !f.Nullable && c.NullN() > 0 {
		each(func(i int) bool {
			if c.IsNull(i) {
				bad = i
				return true
			}
			return false
		})
		if bad >= 0 {
			return bad, path, true
		}
	}
	// The rows whose nested values are read: the valid ones.
	var valid []int
	each(func(i int) bool {
		if c.IsValid(i) {
			valid = append(valid, i)
		}
		return false
	})
	switch a := c.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for k, sf := range st.Fields() {
			child := a.Field(k)
			if a.Offset() != 0 {
				child = array.NewSlice(child, int64(a.Offset()), int64(a.Offset()+a.Len()))
				defer child.Release()
			}
			if row, p, ok := firstBadNull(child, sf, valid, append(clonePath(path), sf.Name)); ok {
				return row, p, true
			}
		}
	case *array.Map:
		mt := a.DataType().(*arrow.MapType)
		if row, ok := badNested(a.Offsets(), valid, a.Items(), mt.ItemField()); ok {
			return row, append(clonePath(path), "value"), true
		}
	case array.ListLike:
		lt, ok := a.DataType().(arrow.ListLikeType)
		if !ok {
			break
		}
		elem := lt.ElemField()
		if off, ok := a.(interface{ Offsets() []int32 }); ok {
			if row, ok := badNested(off.Offsets(), valid, a.ListValues(), elem); ok {
				return row, append(clonePath(path), "element"), true
			}
		}
	}
	return 0, nil, false
}

// badNested finds the first of rows whose values (values[offsets[row]:offsets[row+1]]) hold a
// null although f is NOT NULL, or a nested violation.
func badNested(offsets []int32, rows []int, values arrow.Array, f arrow.Field) (int, bool) {
	for _, r := range rows {
		var idx []int
		for j := offsets[r]; j < offsets[r+1]; j++ {
			idx = append(idx, int(j))
		}
		if len(idx) == 0 {
			continue
		}
		if _, _, ok := firstBadNull(values, f, idx, nil); ok {
			return r, true
		}
	}
	return 0, false
}

func clonePath(p []string) []string { return append([]string(nil), p...) }

// notNullFields reports whether any of fs, or a field nested in one, is NOT NULL (a result
// needs checking).
func notNullFields(fs []arrow.Field) bool {
	for _, f := range fs {
		if !f.Nullable || notNullType(f.Type) {
			return true
		}
	}
	return false
}

func notNullType(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.StructType:
		return notNullFields(t.Fields())
	case *arrow.MapType:
		return !t.ItemField().Nullable || notNullType(t.ItemField().Type) || notNullType(t.KeyType())
	case arrow.ListLikeType:
		return !t.ElemField().Nullable || notNullType(t.Elem())
	}
	return false
}
