package optimizer

import (
	"math"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// reorderJoins rebuilds every tree of inner joins of a batch plan in the order doc.go (batch
// 3) describes.
func reorderJoins(n logical.Node, o *Options) logical.Node {
	return reorderUnder(n, o)
}

func reorderUnder(n logical.Node, o *Options) logical.Node {
	if j, ok := n.(*logical.Join); ok && innerJoin(j) && !logical.IsStreaming(j) {
		return reorderTree(j, o)
	}
	if !known(n) {
		return n
	}
	cs := n.Children()
	ncs := make([]logical.Node, len(cs))
	for i, c := range cs {
		ncs[i] = reorderUnder(c, o)
	}
	out, _ := withChildren(n, ncs)
	return out
}

// innerJoin reports whether j is an inner join the reordering may take apart: a join with a
// strategy hint keeps its sides (Spark's ReorderJoin leaves hinted joins too).
func innerJoin(j *logical.Join) bool {
	return (j.Type == plan.InnerJoin || j.Type == plan.CrossJoin) && j.LeftHint == "" && j.RightHint == ""
}

// joinInput is one input of a flattened join tree: its columns are [offset, offset+width) of
// the tree's output.
type joinInput struct {
	node          logical.Node
	offset, width int
	rows          float64
}

// joinCond is a condition over the tree's output, with the inputs it reads.
type joinCond struct {
	e      expr.Expr
	inputs map[int]bool
}

// flatten collects the inputs and conditions (over the tree's output) of the inner-join tree
// under n, whose output starts at column offset.
func flatten(n logical.Node, offset int, o *Options, ins *[]joinInput, conds *[]expr.Expr) {
	j, ok := n.(*logical.Join)
	if !ok || !innerJoin(j) {
		*ins = append(*ins, joinInput{node: reorderUnder(n, o), offset: offset, width: len(n.Schema()), rows: estimateRows(n, o)})
		return
	}
	nl := len(j.Left.Schema())
	flatten(j.Left, offset, o, ins, conds)
	flatten(j.Right, offset+nl, o, ins, conds)
	for i := range j.LeftKeys {
		l := expr.ShiftColumns(j.LeftKeys[i], offset)
		r := expr.ShiftColumns(j.RightKeys[i], offset+nl)
		eq, err := expr.Bind("=", []expr.Expr{l, r}, expr.Options{})
		if err != nil {
			// Keys of one join are of one type: this does not happen.
			eq = nil
		}
		if eq != nil {
			*conds = append(*conds, eq)
		}
	}
	if j.Residual != nil {
		for _, c := range expr.Conjuncts(j.Residual) {
			*conds = append(*conds, expr.ShiftColumns(c, offset))
		}
	}
}

// reorderTree rebuilds the inner-join tree j left-deep: the largest input first, then the
// smallest input connected to those joined, each as the build (right) side.
func reorderTree(j *logical.Join, o *Options) logical.Node {
	var ins []joinInput
	var exprs []expr.Expr
	flatten(j, 0, o, &ins, &exprs)
	for _, e := range exprs {
		if !movable(e) {
			// A condition that may not move keeps the written order (its children reordered).
			c := *j
			c.Left, c.Right = reorderUnder(j.Left, o), reorderUnder(j.Right, o)
			return &c
		}
	}
	conds := make([]joinCond, len(exprs))
	for i, e := range exprs {
		conds[i] = joinCond{e: e, inputs: map[int]bool{}}
		for col := range expr.ColumnsOf(e, nil) {
			conds[i].inputs[inputOf(ins, col)] = true
		}
	}
	order := joinOrder(ins, conds, o)
	// newPos maps a column of the original output to its place in the reordered one.
	newPos := make([]int, len(j.Schema()))
	pos := 0
	for _, k := range order {
		for c := 0; c < ins[k].width; c++ {
			newPos[ins[k].offset+c] = pos + c
		}
		pos += ins[k].width
	}
	remap := func(e expr.Expr) expr.Expr { return expr.RemapColumns(e, func(i int) int { return newPos[i] }) }
	joined := map[int]bool{order[0]: true}
	var tree logical.Node = ins[order[0]].node
	placed := make([]bool, len(conds))
	for _, k := range order[1:] {
		joined[k] = true
		var here []expr.Expr
		for i, c := range conds {
			if !placed[i] && subset(c.inputs, joined) {
				placed[i] = true
				here = append(here, remap(c.e))
			}
		}
		nj := &logical.Join{Left: tree, Right: ins[k].node, Type: plan.CrossJoin}
		nj.Out = joinSchema(nj.Left, nj.Right, plan.InnerJoin)
		addJoinConditions(nj, here)
		tree = nj
	}
	var rest []expr.Expr
	for i, c := range conds {
		if !placed[i] {
			rest = append(rest, remap(c.e))
		}
	}
	tree = filterOver(tree, rest)
	identity := true
	for i, p := range newPos {
		identity = identity && i == p
	}
	if identity {
		return tree
	}
	// Restore the original column order (and names).
	out := j.Schema()
	proj := make([]expr.Expr, len(out))
	for i, f := range out {
		proj[i] = &expr.Column{Index: newPos[i], Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	return &logical.Project{Input: tree, Exprs: proj}
}

// joinOrder picks the order of inputs: the largest first (the probe side), then repeatedly
// the input connected to those already joined (a cross product only when none is) whose join
// is estimated to give the fewest rows, smaller inputs first on ties. An equality keeps 1 /
// the larger distinct count of its sides (of several joining one input, the most selective),
// another condition a third.
func joinOrder(ins []joinInput, conds []joinCond, o *Options) []int {
	first := 0
	for i := range ins {
		if ins[i].rows > ins[first].rows {
			first = i
		}
	}
	order := []int{first}
	joined := map[int]bool{first: true}
	cur := ins[first].rows
	for len(order) < len(ins) {
		best, bestConnected, bestRows := -1, false, 0.0
		for i := range ins {
			if joined[i] {
				continue
			}
			// Equalities joining i to the joined inputs are taken as correlated (a composite key
			// such as TPC-H's (partkey, suppkey) has about as many values as its larger part, not
			// their product): the most selective one counts; other conditions multiply.
			connected := false
			rows, eq := cur*ins[i].rows, 1.0
			for _, c := range conds {
				if c.inputs[i] && len(c.inputs) > 1 && connects(c.inputs, joined, i) {
					connected = true
					if sel, isEq := condSelectivity(c, ins, o); isEq {
						eq = min(eq, sel)
					} else {
						rows *= sel
					}
				}
			}
			rows *= eq
			better := best < 0 || (connected && !bestConnected) ||
				(connected == bestConnected && (rows < bestRows || (rows == bestRows && ins[i].rows < ins[best].rows)))
			if better {
				best, bestConnected, bestRows = i, connected, rows
			}
		}
		order = append(order, best)
		joined[best] = true
		cur = max(1, bestRows)
	}
	return order
}

// condSelectivity is the fraction of pairs a join condition keeps, and whether it is an
// equality.
func condSelectivity(c joinCond, ins []joinInput, o *Options) (float64, bool) {
	l, r, ok := expr.Equality(c.e)
	if !ok {
		return 1.0 / 3, false
	}
	return 1 / equiDistinct(sideDistinct(l, ins, o), sideBase(l, ins, o),
		sideDistinct(r, ins, o), sideBase(r, ins, o)), true
}

// sideBase is baseOf one side of an equality over the flattened inputs.
func sideBase(e expr.Expr, ins []joinInput, o *Options) base {
	if c, ok := stripAlias(e).(*expr.Column); ok {
		k := inputOf(ins, c.Index)
		return baseOf(ins[k].node, c.Index-ins[k].offset, o)
	}
	return base{math.Inf(1), math.Inf(1)}
}

// sideDistinct is the distinct count of one side of an equality over the flattened inputs.
func sideDistinct(e expr.Expr, ins []joinInput, o *Options) float64 {
	cols := expr.ColumnsOf(e, nil)
	if c, ok := stripAlias(e).(*expr.Column); ok {
		k := inputOf(ins, c.Index)
		return distinctValues(ins[k].node, c.Index-ins[k].offset, o)
	}
	for col := range cols {
		return max(1, ins[inputOf(ins, col)].rows)
	}
	return 1
}

// connects reports whether a condition reading inputs would be placed when input i joins
// the inputs joined: it reads i and nothing beyond them.
func connects(inputs, joined map[int]bool, i int) bool {
	for k := range inputs {
		if k != i && !joined[k] {
			return false
		}
	}
	return true
}

func subset(a, b map[int]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// inputOf is the input whose columns contain col.
func inputOf(ins []joinInput, col int) int {
	for i, in := range ins {
		if col >= in.offset && col < in.offset+in.width {
			return i
		}
	}
	return -1
}
