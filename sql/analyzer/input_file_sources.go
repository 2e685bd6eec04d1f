package analyzer

import (
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
)

// checkInputFileSources is Spark's PreReadCheck: input_file_name(), input_file_block_start()
// and input_file_block_length() in an operator over more than one data source read (a join
// of two reads) are MULTI_SOURCES_UNSUPPORTED_FOR_EXPRESSION, since no one file feeds its rows.
// A union's branches count as one source (they do not read at once); other leaves (range,
// local data, persisted rows) as none.
func checkInputFileSources(n logical.Node) error {
	for _, c := range n.Children() {
		if err := checkInputFileSources(c); err != nil {
			return err
		}
	}
	var exprs []expr.Expr
	switch x := n.(type) {
	case *logical.Project:
		exprs = x.Exprs
	case *logical.Filter:
		exprs = []expr.Expr{x.Cond}
	case *logical.Join:
		if x.Residual != nil {
			exprs = []expr.Expr{x.Residual}
		}
	}
	for _, e := range exprs {
		call := expr.InputFileCall(e)
		if call == nil {
			continue
		}
		if fileBlockSources(n) > 1 {
			q := "\"" + call.String() + "\""
			return sparkerr.Analysis("MULTI_SOURCES_UNSUPPORTED_FOR_EXPRESSION", "42K0E",
				"The expression %s does not support more than one source.", q).WithParams("expr", q)
		}
		return nil
	}
	return nil
}

// fileBlockSources counts the data source reads whose rows reach n's input, as Spark's
// checkNumInputFileBlockSources.
func fileBlockSources(n logical.Node) int {
	switch x := n.(type) {
	case *logical.SourceScan:
		return 1
	case *logical.InMemoryTableScan:
		return 0
	case *logical.Union:
		for _, c := range x.Children() {
			if fileBlockSources(c) > 0 {
				return 1
			}
		}
		return 0
	}
	sum := 0
	for _, c := range n.Children() {
		sum += fileBlockSources(c)
	}
	return sum
}
