package expr

import "fmt"

// Rewriting bound expressions (the optimizer's tool): WithChildren rebuilds any expression with
// new children of the same types; Transform applies a function bottom-up; RemapColumns and
// ReplaceColumns move an expression onto another input. A rendering fixed at bind time (a
// function alias such as nvl, a call's text) is kept; renderings built from the children follow
// the new children.

// Rebuilder is implemented by expression types defined outside this package that support
// rewriting: WithChildren returns the expression over new children (same number and types).
type Rebuilder interface {
	WithChildren(cs []Expr) Expr
}

// WithChildren returns e with its children (as Children orders them) replaced by cs, which
// must have e's number of children and the same types. e itself is not modified; when every
// child is unchanged e is returned. It panics on an expression Rewritable rejects.
func WithChildren(e Expr, cs []Expr) Expr {
	old := e.Children()
	if len(old) != len(cs) {
		panic(fmt.Sprintf("expr: WithChildren of %T with %d children, want %d", e, len(cs), len(old)))
	}
	same := true
	for i := range cs {
		same = same && cs[i] == old[i]
	}
	if same {
		return e
	}
	out, ok := rebuild(e, cs)
	if !ok {
		panic(fmt.Sprintf("expr: WithChildren does not support %T", e))
	}
	return out
}

// Rewritable reports whether WithChildren supports every node of e (an expression type added
// elsewhere without Rebuilder is not): callers leave expressions that are not where they are.
func Rewritable(e Expr) bool {
	cs := e.Children()
	if len(cs) == 0 {
		return true
	}
	if _, ok := rebuild(e, cs); !ok {
		return false
	}
	for _, c := range cs {
		if !Rewritable(c) {
			return false
		}
	}
	return true
}

// rebuild is e over children cs; false for an expression type it does not know.
func rebuild(e Expr, cs []Expr) (Expr, bool) {
	switch x := e.(type) {
	case *Alias:
		return &Alias{Child: cs[0], Name: x.Name}, true
	case *arith:
		c := *x
		c.left, c.right = cs[0], cs[1]
		return &c, true
	case *castExpr:
		c := *x
		c.child = cs[0]
		return &c, true
	case *comparison:
		c := *x
		c.left, c.right = cs[0], cs[1]
		return &c, true
	case *extractValue:
		c := *x
		c.child = cs[0]
		if c.key != nil {
			c.key = cs[1]
		}
		return &c, true
	case *TimeWindow:
		c := *x
		c.TS = cs[0]
		return &c, true
	case *SessionWindow:
		c := *x
		c.TS = cs[0]
		return &c, true
	case *WindowTime:
		c := *x
		c.Window = cs[0]
		return &c, true
	case *hof:
		return x.withChildren(cs), true
	case *inSet:
		c := *x
		c.value = cs[0]
		return &c, true
	case *fromJSONStruct:
		c := *x
		c.rowFunc = x.rowFunc.withArgs(cs)
		return &c, true
	case *toJSONStruct:
		c := *x
		c.rowFunc = x.rowFunc.withArgs(cs)
		return &c, true
	case *boolLogic:
		return &boolLogic{and: x.and, left: cs[0], right: cs[1]}, true
	case *notExpr:
		return &notExpr{child: cs[0]}, true
	case *nullTest:
		return &nullTest{kind: x.kind, child: cs[0]}, true
	case *caseWhen:
		c := *x
		c.conds = make([]Expr, len(x.conds))
		c.vals = make([]Expr, len(x.vals))
		for i := range x.conds {
			c.conds[i], c.vals[i] = cs[2*i], cs[2*i+1]
		}
		if x.elseV != nil {
			c.elseV = cs[len(cs)-1]
		}
		return &c, true
	case *coalesce:
		c := *x
		c.args = append([]Expr(nil), cs...)
		return &c, true
	case *inList:
		c := *x
		c.value = cs[0]
		c.list = append([]Expr(nil), cs[1:]...)
		if x.set != nil {
			return c.withSet(x.tz), true
		}
		return &c, true
	case *rowFunc:
		return x.withArgs(cs), true
	case *stringPredicate:
		c := *x
		c.child = cs[0]
		return &c, true
	case *stringMapExpr:
		c := *x
		c.child = cs[0]
		return &c, true
	case *renamed:
		inner, ok := rebuild(x.Expr, cs)
		if !ok {
			return nil, false
		}
		c := *x
		c.Expr = inner
		return &c, true
	case *updateFields:
		return x.withChildren(cs), true
	case *inputFileExpr:
		return x, true // a leaf
	case *collated:
		c := *x
		c.child = cs[0]
		return &c, true
	case *collationKey:
		return &collationKey{child: cs[0]}, true
	case Rebuilder:
		return x.WithChildren(cs), true
	}
	// Leaves (Column, Literal, LambdaVariable) have no children, so only a new expression type
	// can get here: TestRebuildCoversEveryType guards the types of this package.
	return nil, false
}

func (f *rowFunc) withArgs(cs []Expr) *rowFunc {
	c := *f
	c.args = append([]Expr(nil), cs...)
	return &c
}

// withChildren rebuilds a higher-order call: its lambdas get fresh parameter variables (a
// variable records its batch column while its function evaluates, so two calls must not share
// one).
func (h *hof) withChildren(cs []Expr) Expr {
	c := &hof{name: h.name, args: append([]Expr(nil), cs[:len(h.args)]...), t: h.t}
	for i, l := range h.lambdas {
		fresh := map[*LambdaVariable]*LambdaVariable{}
		nl := Lambda{Params: make([]*LambdaVariable, len(l.Params))}
		for j, p := range l.Params {
			q := *p
			nl.Params[j] = &q
			fresh[p] = &q
		}
		nl.Body = Transform(cs[len(h.args)+i], func(e Expr) Expr {
			if v, ok := e.(*LambdaVariable); ok && fresh[v] != nil {
				return fresh[v]
			}
			return e
		})
		c.lambdas = append(c.lambdas, nl)
	}
	return c
}

// Transform rebuilds e bottom-up: each node's children are transformed first, then f is applied
// to the node rebuilt over them. f returns its argument when it has nothing to change.
func Transform(e Expr, f func(Expr) Expr) Expr {
	cs := e.Children()
	if len(cs) > 0 {
		ncs := make([]Expr, len(cs))
		for i, c := range cs {
			ncs[i] = Transform(c, f)
		}
		e = WithChildren(e, ncs)
	}
	return f(e)
}

// ReplaceColumns rebuilds e with every column reference replaced by with(column).
func ReplaceColumns(e Expr, with func(*Column) Expr) Expr {
	return Transform(e, func(x Expr) Expr {
		if c, ok := x.(*Column); ok {
			return with(c)
		}
		return x
	})
}

// RemapColumns rebuilds e with column reference i moved to index to(i).
func RemapColumns(e Expr, to func(int) int) Expr {
	return ReplaceColumns(e, func(c *Column) Expr {
		n := to(c.Index)
		if n == c.Index {
			return c
		}
		return &Column{Index: n, Name: c.Name, T: c.T, Null: c.Null}
	})
}

// ShiftColumns is RemapColumns by a constant offset.
func ShiftColumns(e Expr, by int) Expr {
	if by == 0 {
		return e
	}
	return RemapColumns(e, func(i int) int { return i + by })
}

// ColumnsOf adds the input column indices e references to set (which it returns, allocating
// it when nil).
func ColumnsOf(e Expr, set map[int]bool) map[int]bool {
	if set == nil {
		set = map[int]bool{}
	}
	var walk func(Expr)
	walk = func(x Expr) {
		if c, ok := x.(*Column); ok {
			set[c.Index] = true
			return
		}
		for _, ch := range x.Children() {
			walk(ch)
		}
	}
	walk(e)
	return set
}

// AggWithArgs returns a with its argument expressions replaced by args (same number and
// types).
func AggWithArgs(a AggFunc, args []Expr) AggFunc {
	x, ok := a.(*aggFunc)
	if !ok {
		panic(fmt.Sprintf("expr: AggWithArgs does not support %T", a))
	}
	if len(args) != len(x.args) {
		panic(fmt.Sprintf("expr: AggWithArgs with %d arguments, want %d", len(args), len(x.args)))
	}
	c := *x
	c.args = append([]Expr(nil), args...)
	return &c
}

// GeneratorWithArgs returns g with its argument expressions replaced by args (same number and
// types).
func GeneratorWithArgs(g Generator, args []Expr) Generator {
	x, ok := g.(*generator)
	if !ok {
		panic(fmt.Sprintf("expr: GeneratorWithArgs does not support %T", g))
	}
	c := *x
	c.args = append([]Expr(nil), args...)
	return &c
}

// nondeterministicFuncs are the functions whose results depend on the row's partition or on
// how many rows came before (Spark's Nondeterministic expressions; the input file functions,
// inputFileExpr, are too).
var nondeterministicFuncs = map[string]bool{
	"rand": true, "random": true, "randn": true, "randstr": true, "uniform": true, "uuid": true,
	"shuffle": true, "spark_partition_id": true, "monotonically_increasing_id": true,
}

// IsDeterministic reports whether e gives the same result every time it is evaluated over the
// same row: false when it calls a nondeterministicFuncs function. The optimizer moves and folds
// only deterministic expressions.
func IsDeterministic(e Expr) bool {
	switch x := e.(type) {
	case *rowFunc:
		if nondeterministicFuncs[x.name] {
			return false
		}
	case *renamed:
		return IsDeterministic(x.Expr)
	case *inputFileExpr:
		return false
	case *fromJSONStruct:
		return IsDeterministic(x.rowFunc)
	case *toJSONStruct:
		return IsDeterministic(x.rowFunc)
	}
	for _, c := range e.Children() {
		if !IsDeterministic(c) {
			return false
		}
	}
	return true
}
