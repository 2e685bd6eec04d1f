package parser

import (
	"reflect"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// maxExprDepth bounds the depth of one expression tree. Binary operators, predicates and
// postfix operators chain in loops, not by recursion, so `1 + 1 + … + 1` builds a tree as deep
// as it is long without deepening the parse; everything downstream (analysis, rendering,
// evaluation) recurses over that tree, at about 1 KB of stack per level. Spark itself fails
// such a statement with FAILED_TO_PARSE_TOO_COMPLEX past a few thousand levels (a
// StackOverflowError in its parser); Weir answers up to this depth (≈ 100 MB of stack at most)
// and fails deeper ones with the same error.
const maxExprDepth = 100_000

// tooComplex is Spark's error for a statement that exhausted the parser's stack.
func tooComplex() *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "FAILED_TO_PARSE_TOO_COMPLEX", "54001",
		"The statement, including potential SQL functions and referenced views, was too complex to parse. To mitigate this error divide the statement into multiple, less complex chunks.")
}

// expr parses an expression (see exprLoop) and, when it is the outermost expression of its
// query, checks the depth of its tree before anything walks it recursively.
func (p *parser) expr(minBP int) plan.Expr {
	p.exprNest++
	e := func() plan.Expr {
		defer func() { p.exprNest-- }()
		return p.exprLoop(minBP)
	}()
	if p.exprNest == 0 {
		p.checkDepth(e)
	}
	return e
}

// checkDepth fails the parse with FAILED_TO_PARSE_TOO_COMPLEX when e is deeper than
// maxExprDepth. It walks e with an explicit stack, so it is safe on any depth, and is linear.
func (p *parser) checkDepth(e plan.Expr) {
	if exprDepthExceeds(e, maxExprDepth) {
		panic(parseFailure{err: tooComplex(), fatal: true})
	}
}

// exprDepthExceeds reports whether the tree of e is more than limit levels deep.
func exprDepthExceeds(e plan.Expr, limit int) bool {
	type item struct {
		e     plan.Expr
		depth int
	}
	stack := []item{{e, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > limit {
			return true
		}
		for _, c := range exprChildren(it.e) {
			if c != nil {
				stack = append(stack, item{c, it.depth + 1})
			}
		}
	}
	return false
}

// exprChildren lists the sub-expressions of e that the parser builds (subquery plans excluded:
// their expressions are checked as they are parsed).
func exprChildren(e plan.Expr) []plan.Expr {
	switch x := e.(type) {
	case plan.Call:
		if x.Filter == nil && x.WithinGroup == nil {
			return x.Args
		}
		out := append([]plan.Expr(nil), x.Args...)
		for _, s := range x.WithinGroup {
			out = append(out, s)
		}
		if x.Filter != nil {
			out = append(out, x.Filter)
		}
		return out
	case plan.Alias:
		return []plan.Expr{x.Child}
	case plan.Cast:
		return []plan.Expr{x.Child}
	case plan.SortOrder:
		return []plan.Expr{x.Child}
	case plan.ExtractValue:
		return []plan.Expr{x.Child, x.Extraction}
	case plan.Lambda:
		return []plan.Expr{x.Body}
	case plan.InSubquery:
		return x.Values
	case plan.Window:
		out := append([]plan.Expr{x.Func}, x.PartitionBy...)
		for _, s := range x.OrderBy {
			out = append(out, s.Child)
		}
		if x.Frame != nil {
			for _, b := range []*plan.FrameBound{x.Frame.Lower, x.Frame.Upper} {
				if b != nil {
					out = append(out, b.Offset)
				}
			}
		}
		return out
	}
	return nil
}

// maxRelationDepth bounds the nesting of relations in one statement. Set operations and joins
// chain in loops (`SELECT 1 UNION ALL SELECT 1 UNION ALL …`), so a statement can nest relations
// as deep as it is long; the analyzer and planner recurse over them with several KB of stack
// per level. Spark's parser fails about 1 500 chained UNIONs with FAILED_TO_PARSE_TOO_COMPLEX.
const maxRelationDepth = 10_000

var (
	relationType = reflect.TypeFor[plan.Relation]()
	literalType  = reflect.TypeFor[plan.Literal]()
	dataType     = reflect.TypeFor[sqltypes.DataType]()
)

// relationDepth fails the parse when cmd nests relations too deep (see checkRelationDepth).
func (p *parser) relationDepth(cmd any) {
	if err := checkRelationDepth(cmd); err != nil {
		panic(parseFailure{err: err, fatal: true})
	}
}

// checkRelationDepth fails the parse with FAILED_TO_PARSE_TOO_COMPLEX when relations nest more
// than maxRelationDepth deep anywhere in cmd (subqueries in expressions included). It walks
// the whole statement with an explicit stack, visiting a shared node (a CTE referenced twice)
// again only when it is reached deeper than before.
func checkRelationDepth(cmd any) *sparkerr.Error {
	type item struct {
		v     reflect.Value
		depth int
	}
	seen := map[uintptr]int{}
	stack := []item{{reflect.ValueOf(cmd), 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v, depth := it.v, it.depth
		switch v.Kind() {
		case reflect.Interface:
			if v.IsNil() {
				continue
			}
			if v.Type() == relationType || v.Elem().Type().Implements(relationType) {
				depth++
				if depth > maxRelationDepth {
					return tooComplex()
				}
			}
			stack = append(stack, item{v.Elem(), depth})
		case reflect.Pointer:
			if v.IsNil() {
				continue
			}
			if v.Type().Implements(relationType) && v.Type() != reflect.PointerTo(literalType) {
				if d, ok := seen[v.Pointer()]; ok && d >= depth {
					continue
				}
				seen[v.Pointer()] = depth
			}
			stack = append(stack, item{v.Elem(), depth})
		case reflect.Struct:
			if t := v.Type(); t == literalType || t == dataType {
				continue
			}
			for i := 0; i < v.NumField(); i++ {
				stack = append(stack, item{v.Field(i), depth})
			}
		case reflect.Slice, reflect.Array:
			switch v.Type().Elem().Kind() {
			case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Slice:
				for i := 0; i < v.Len(); i++ {
					stack = append(stack, item{v.Index(i), depth})
				}
			}
		}
	}
	return nil
}
