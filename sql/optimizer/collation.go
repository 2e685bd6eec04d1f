package optimizer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// collationKeys makes the operators, which hash, compare and sort strings by their bytes,
// group, join, deduplicate, partition and sort collated strings (UTF8_LCASE, UNICODE_CI, …)
// by their collation keys (expr.CollationKey: byte-equal and byte-ordered as the strings are
// by their collation), as Spark's RewriteCollationJoin and its group-by rewrite do. A grouped
// or deduplicated collated column keeps the first of the values that group together, as
// Spark does.
func collationKeys(n logical.Node, o *Options) logical.Node {
	cs := n.Children()
	if len(cs) > 0 {
		ncs := make([]logical.Node, len(cs))
		for i, c := range cs {
			ncs[i] = collationKeys(c, o)
		}
		rebuilt, ok := withChildren(n, ncs)
		if w, isWindow := n.(*logical.Window); !ok && isWindow {
			c := *w
			c.Input, rebuilt, ok = ncs[0], &c, true
		}
		if !ok {
			return n
		}
		n = rebuilt
	}
	return collationKeyed(n)
}

// collationKeyed rewrites one node's keys (its children already rewritten). Unlike the other
// rules it also rewrites under Window, which transformUp does not enter.
func collationKeyed(n logical.Node) logical.Node {
	switch x := n.(type) {
	case *logical.Sort:
		if keys, ok := collatedSortKeys(x.Keys); ok {
			c := *x
			c.Keys = keys
			return &c
		}
	case *logical.Window:
		keys, ok1 := collatedSortKeys(x.OrderBy)
		parts, ok2 := collatedExprs(x.PartitionBy)
		if ok1 || ok2 {
			c := *x
			c.OrderBy, c.PartitionBy = keys, parts
			return &c
		}
	case *logical.Join:
		l, ok1 := collatedExprs(x.LeftKeys)
		r, ok2 := collatedExprs(x.RightKeys)
		if ok1 || ok2 {
			c := *x
			c.LeftKeys, c.RightKeys = l, r
			return &c
		}
	case *logical.Aggregate:
		return collatedAggregate(x)
	case *logical.Distinct:
		return collatedDistinct(x)
	}
	return n
}

// collationKeyOf is e's collation key when e is a collated string, else e.
func collationKeyOf(e expr.Expr) (expr.Expr, bool) {
	if expr.NeedsCollationKey(e.Type()) {
		return expr.CollationKey(e), true
	}
	return e, false
}

func collatedExprs(es []expr.Expr) ([]expr.Expr, bool) {
	return keyed(es, func(e *expr.Expr) *expr.Expr { return e })
}

func collatedSortKeys(keys []logical.SortKey) ([]logical.SortKey, bool) {
	return keyed(keys, func(k *logical.SortKey) *expr.Expr { return &k.Expr })
}

// keyed returns xs with the expression at(x) of each element replaced by its collation key
// where it needs one (a copy; xs itself when none does), and whether any did.
func keyed[T any](xs []T, at func(*T) *expr.Expr) ([]T, bool) {
	var out []T
	for i := range xs {
		k, ok := collationKeyOf(*at(&xs[i]))
		if !ok {
			continue
		}
		if out == nil {
			out = append([]T(nil), xs...)
		}
		*at(&out[i]) = k
	}
	if out == nil {
		return xs, false
	}
	return out, true
}

// collatedAggregate groups by the collation keys of collated grouping expressions and outputs
// first(expression) in their place.
func collatedAggregate(a *logical.Aggregate) logical.Node {
	groups, ok := collatedExprs(a.Groups)
	if !ok {
		return a
	}
	out := *a
	out.Groups = groups
	out.Aggs = append([]expr.AggFunc(nil), a.Aggs...)
	out.Names = append([]string(nil), a.Names...)
	schema := a.Schema()
	proj := make([]expr.Expr, len(schema))
	for i, g := range a.Groups {
		idx := i
		if groups[i] != g {
			first, err := expr.BindAggregate("first", []expr.Expr{g}, false, expr.Options{})
			if err != nil {
				return a
			}
			idx = len(groups) + len(out.Aggs)
			out.Aggs = append(out.Aggs, first)
			out.Names = append(out.Names, schema[i].Name)
		}
		f := schema[i]
		proj[i] = &expr.Column{Index: idx, Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	for j := range a.Aggs {
		proj[len(a.Groups)+j] = columnRef(&out, len(groups)+j)
	}
	return &logical.Project{Input: &out, Exprs: proj}
}

// collatedDistinct deduplicates by the collation keys of collated key columns: they are
// appended to the input, the deduplication keys on them, and a projection drops them.
func collatedDistinct(d *logical.Distinct) logical.Node {
	schema := d.Input.Schema()
	keys := d.Keys
	if keys == nil {
		keys = make([]int, len(schema))
		for i := range keys {
			keys[i] = i
		}
	}
	cols := make([]expr.Expr, len(schema))
	for i := range schema {
		cols[i] = columnRef(d.Input, i)
	}
	wide := append([]expr.Expr(nil), cols...)
	newKeys := make([]int, len(keys))
	for i, k := range keys {
		newKeys[i] = k
		if key, ok := collationKeyOf(cols[k]); ok {
			newKeys[i] = len(wide)
			wide = append(wide, key)
		}
	}
	if len(wide) == len(cols) {
		return d
	}
	out := *d
	out.Input = &logical.Project{Input: d.Input, Exprs: wide}
	out.Keys = newKeys
	return &logical.Project{Input: &out, Exprs: cols}
}
