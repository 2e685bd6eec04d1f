package optimizer

import (
	"github.com/weirhq/weir/sql/logical"
)

// Rebuildable is implemented by node types defined outside package logical that the optimizer
// may rewrite under: WithChildren returns the node over new children of the same schemas.
type Rebuildable interface {
	WithChildren(cs []logical.Node) logical.Node
}

// withChildren returns n over children cs (each with the schema of the child it replaces); ok
// is false for a node type the optimizer does not know, which is then left intact.
func withChildren(n logical.Node, cs []logical.Node) (logical.Node, bool) {
	old := n.Children()
	same := len(old) == len(cs)
	for i := 0; same && i < len(cs); i++ {
		same = old[i] == cs[i]
	}
	if same {
		return n, known(n)
	}
	return rebuild(n, cs)
}

// known reports whether the optimizer may rewrite under n.
func known(n logical.Node) bool {
	_, ok := rebuild(n, n.Children())
	return ok
}

// rebuild is a copy of n over children cs; false for a node type it does not know.
func rebuild(n logical.Node, cs []logical.Node) (logical.Node, bool) {
	switch x := n.(type) {
	case *logical.Range, *logical.LocalData, *logical.SourceScan:
		return x, true
	case *logical.Project:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Filter:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Aggregate:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Sort:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Limit:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Tail:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Join:
		c := *x
		c.Left, c.Right = cs[0], cs[1]
		return &c, true
	case *logical.Union:
		c := *x
		c.Inputs = cs
		return &c, true
	case *logical.Distinct:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.SetOp:
		c := *x
		c.Left, c.Right = cs[0], cs[1]
		return &c, true
	case *logical.Sample:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Repartition:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.ResolvedHint:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Watermark:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.ExpandWindow:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.Generate:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.PythonEval:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.MapInPython:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.GroupMapInPython:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.CoGroupMapInPython:
		c := *x
		c.Left, c.Right = cs[0], cs[1]
		return &c, true
	case *logical.AggregateInPython:
		c := *x
		c.Input = cs[0]
		return &c, true
	case *logical.PythonUDTF:
		c := *x
		c.Input = cs[0]
		return &c, true
	case Rebuildable:
		return x.WithChildren(cs), true
	}
	return n, false
}

// transformUp applies f to every node bottom-up: each node's children first, then f to the
// node rebuilt over them. Under a node withChildren does not know nothing is rewritten.
func transformUp(n logical.Node, f func(logical.Node) logical.Node) logical.Node {
	if !known(n) {
		return n
	}
	cs := n.Children()
	if len(cs) > 0 {
		ncs := make([]logical.Node, len(cs))
		for i, c := range cs {
			ncs[i] = transformUp(c, f)
		}
		n, _ = withChildren(n, ncs)
	}
	return f(n)
}
