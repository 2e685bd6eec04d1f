package analyzer

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// lookup finds the columns of r named by ref: it tries the longest qualifier match first
// (Spark's `t.a`, `db.t.a`), then the first part as a column name. It returns the matching
// column indexes and the remaining name parts, which are struct field accesses. ok is false
// when nothing matched.
func (a *Analyzer) lookup(r *resolved, ref plan.ColumnRef) (idx []int, rest []string, ok bool) {
	cands := make([]int, 0, len(r.cols))
	for i, c := range r.cols {
		if !c.hidden {
			cands = append(cands, i)
		}
	}
	if ref.PlanID != 0 {
		if pinned := columnsCarrying(r.cols, ref.PlanID); len(pinned) > 0 {
			cands = pinned
		}
	}
	parts := ref.Name
	for k := len(parts) - 1; k >= 0; k-- {
		q, name := parts[:k], parts[k]
		var hits []int
		for _, i := range cands {
			c := r.cols[i]
			if a.nameEq(c.name, name) && (k == 0 || a.answersTo(c, q)) {
				hits = append(hits, i)
			}
		}
		if len(hits) > 0 {
			if ref.PlanID != 0 && len(hits) > 1 {
				if nearest := columnsWithPlanID(r.cols, hits, ref.PlanID); len(nearest) > 0 {
					hits = nearest
				}
			}
			return hits, parts[k+1:], true
		}
	}
	return nil, nil, false
}

// resolveColumn binds a column reference over r, including trailing struct field accesses.
func (a *Analyzer) resolveColumn(r *resolved, ref plan.ColumnRef) (expr.Expr, error) {
	if err := a.outerPlanID(r, ref); err != nil {
		return nil, err
	}
	i, rest, err := a.locateColumn(r, ref)
	if err != nil {
		if x, ok, oerr := a.outerColumn(ref, err); ok {
			return x, oerr
		}
		return nil, err
	}
	x, err := extractFields(r.ref(i), rest)
	if err != nil || len(rest) == 0 {
		return x, err
	}
	// Spark names a dotted field access after its last part.
	return &expr.Alias{Child: x, Name: rest[len(rest)-1]}, nil
}

// locateColumn finds the one column of r that ref names, and the struct fields to extract.
func (a *Analyzer) locateColumn(r *resolved, ref plan.ColumnRef) (int, []string, error) {
	if len(ref.Name) == 0 {
		return 0, nil, sparkerr.Internal("analyzer: empty column reference")
	}
	idx, rest, ok := a.lookup(r, ref)
	if !ok {
		return 0, nil, unresolvedColumn(ref.Name, candidateNames(r.cols))
	}
	if len(idx) > 1 {
		return 0, nil, ambiguousReference(ref.Name, r, idx)
	}
	return idx[0], rest, nil
}

// extractFields applies struct field (or map key) extractions to e.
func extractFields(e expr.Expr, rest []string) (expr.Expr, error) {
	for _, f := range rest {
		x, err := expr.BindExtractValue(e, expr.NewLiteral(f, sqltypes.StringType))
		if err != nil {
			return nil, err
		}
		e = x
	}
	return e, nil
}

// ambiguousReference is AMBIGUOUS_REFERENCE listing the qualified candidates.
func ambiguousReference(name []string, r *resolved, idx []int) *sparkerr.Error {
	refs := make([]string, len(idx))
	for i, j := range idx {
		c := r.cols[j]
		refs[i] = sparkerr.Quote(append(append([]string{}, c.qualifier...), c.name)...)
	}
	list := "[" + strings.Join(refs, ", ") + "]"
	return sparkerr.Analysis("AMBIGUOUS_REFERENCE", "42704",
		"Reference %s is ambiguous, could be: %s.", sparkerr.Quote(name...), list).
		WithParams("name", sparkerr.Quote(name...), "referenceNames", list)
}

// expandStar returns the references a star stands for: all columns, the columns of a
// qualifier or plan id, or the fields of a struct column (`s.*`).
func (a *Analyzer) expandStar(r *resolved, s plan.Star) ([]expr.Expr, error) {
	var out []expr.Expr
	switch {
	case s.PlanID != 0 && len(s.Target) == 0:
		for _, i := range columnsCarrying(r.cols, s.PlanID) {
			out = append(out, r.ref(i))
		}
		if out == nil {
			out = r.visibleRefs()
		}
		return out, nil
	case len(s.Target) == 0:
		return r.visibleRefs(), nil
	}
	for i, c := range r.cols {
		if !c.hidden && a.qualifierMatches(c.qualifier, s.Target) {
			out = append(out, r.ref(i))
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	// `s.*` on a struct column expands its fields.
	if base, err := a.resolveColumn(r, plan.ColumnRef{Name: s.Target, PlanID: s.PlanID}); err == nil {
		if base.Type().Kind == sqltypes.Struct {
			for _, f := range base.Type().Fields {
				x, err := expr.BindExtractValue(base, expr.NewLiteral(f.Name, sqltypes.StringType))
				if err != nil {
					return nil, err
				}
				out = append(out, &expr.Alias{Child: x, Name: f.Name})
			}
			return out, nil
		}
	}
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = sparkerr.Quote(c.name)
	}
	return nil, sparkerr.Analysis("CANNOT_RESOLVE_STAR_EXPAND", "42704",
		"Cannot resolve %s.* given input columns %s. Please check that the specified table or struct exists and is accessible in the input columns.",
		sparkerr.Quote(s.Target...), strings.Join(names, ", ")).
		WithParams("targetString", sparkerr.Quote(s.Target...), "columns", strings.Join(names, ", "))
}

// findByName returns the index of the column of r named name (unqualified), -1 if none, or an
// AMBIGUOUS_REFERENCE error if several.
func (a *Analyzer) findByName(r *resolved, name string) (int, error) {
	found := -1
	var all []int
	for i, c := range r.cols {
		if !c.hidden && a.nameEq(c.name, name) {
			if found < 0 {
				found = i
			}
			all = append(all, i)
		}
	}
	if len(all) > 1 {
		return -1, ambiguousReference([]string{name}, r, all)
	}
	return found, nil
}
