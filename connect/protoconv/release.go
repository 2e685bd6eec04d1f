package protoconv

import (
	"reflect"

	"github.com/weirhq/weir/sql/plan"
)

var relationIface = reflect.TypeOf((*plan.Relation)(nil)).Elem()

// ReleaseRecords releases the Arrow records of every plan.LocalRelation in the tree rooted at r
// and clears them, for an owner that drops a translated plan without executing it. It follows
// every field of type plan.Relation (Input, Left, Right, SQLQuery.Resolved, …).
func ReleaseRecords(r plan.Relation) {
	if r == nil {
		return
	}
	v := reflect.ValueOf(r)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	if lr, ok := r.(*plan.LocalRelation); ok {
		for _, rec := range lr.Records {
			rec.Release()
		}
		lr.Records = nil
		return
	}
	e := v.Elem()
	if e.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < e.NumField(); i++ {
		f := e.Field(i)
		if f.Type() == relationIface && !f.IsNil() {
			ReleaseRecords(f.Interface().(plan.Relation))
		}
	}
}
