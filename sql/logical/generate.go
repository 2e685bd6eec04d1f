package logical

import (
	"strings"

	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Generate runs a generator (explode, posexplode, inline, stack, json_tuple…) over each input
// row: its output is the input's columns followed by the generated columns, named Names (the
// generator's default names unless aliased), one output row per generated row. With an outer
// generator an input row that generates nothing gives one row of NULLs.
type Generate struct {
	Input     Node
	Generator expr.Generator
	Names     []string
}

// Schema implements Node.
func (g *Generate) Schema() sqltypes.Schema {
	s := append(sqltypes.Schema{}, g.Input.Schema()...)
	for i, f := range g.Generator.Output() {
		f.Name = g.Names[i]
		s = append(s, f)
	}
	return s
}

// Children implements Node.
func (g *Generate) Children() []Node { return []Node{g.Input} }

// Describe implements Node.
func (g *Generate) Describe() string {
	outer := "false"
	if g.Generator.Outer() {
		outer = "true"
	}
	return "Generate " + g.Generator.String() + ", " + outer + ", [" + strings.Join(g.Names, ", ") + "]"
}
