package engine

import (
	"context"

	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/pyworker/pickle"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// analyzeWorkers bounds the session's planner workers running UDTF analyze methods at once
// (analysis is one call at a time per query; a second lets two queries analyze side by side).
const analyzeWorkers = 2

// udtfAnalyzer is the analyzer's AnalyzePythonUDTF for the session: nil when it runs no Python
// workers (no --python, or a runner given in tests).
func (s *Session) udtfAnalyzer() func(context.Context, *analyzer.PythonUDTFAnalyzeCall) (*analyzer.PythonUDTFAnalysis, error) {
	if s.python.runner != nil || s.python.path == "" {
		return nil
	}
	return s.analyzePythonUDTF
}

// analyzePool is the session's pool of pyspark.sql.worker.analyze_udtf workers, made at the
// first use; closePython closes it.
func (s *Session) analyzePool() *pyworker.Pool {
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	if s.python.analyzePool == nil {
		s.python.analyzePool = pyworker.NewPool(s.loggingPool(pyworker.PoolConfig{Python: s.python.path,
			MaxWorkers: analyzeWorkers, Module: pyworker.AnalyzeUDTFModule}))
	}
	return s.python.analyzePool
}

// analyzePythonUDTF runs a UDTF's static analyze method on a planner worker, as Spark's
// UserDefinedPythonTableFunctionAnalyzeRunner does: constant arguments' values pickled as the
// JVM pickles them, the SQL texts of the result's partitioning, ordering and selected columns
// parsed as expressions.
func (s *Session) analyzePythonUDTF(ctx context.Context, call *analyzer.PythonUDTFAnalyzeCall) (*analyzer.PythonUDTFAnalysis, error) {
	req := pyworker.UDTFAnalyzeRequest{Name: call.Name, Command: call.Command, PythonVersion: call.PythonVer,
		FaultHandler: s.faultHandler()}
	for _, a := range call.Args {
		arg := pyworker.UDTFAnalyzeArg{TypeJSON: sqltypes.JSONType(a.Type), Table: a.Table, Name: a.Name}
		if a.Value != nil {
			v, err := pickle.EncodeValue(a.Value, 0, a.Type)
			if err != nil {
				return nil, err
			}
			arg.Constant, arg.Value = true, v
		}
		req.Args = append(req.Args, arg)
	}
	res, err := s.analyzePool().AnalyzeUDTF(ctx, req)
	if err != nil {
		return nil, err
	}
	schema, err := sqltypes.ParseJSONType(res.SchemaJSON)
	if err != nil {
		return nil, err
	}
	out := &analyzer.PythonUDTFAnalysis{Schema: schema, Pickled: res.Pickled, WithSinglePartition: res.WithSinglePartition}
	for _, p := range res.PartitionBy {
		e, err := parser.ParseExpression(p)
		if err != nil {
			return nil, err
		}
		out.PartitionBy = append(out.PartitionBy, e)
	}
	for _, o := range res.OrderBy {
		e, err := parser.ParseExpression(o.Expr)
		if err != nil {
			return nil, err
		}
		if a, ok := e.(plan.Alias); ok {
			name := a.Names[0]
			return nil, sparkerr.Analysis("UDTF_INVALID_ALIAS_IN_REQUESTED_ORDERING_STRING_FROM_ANALYZE_METHOD", "42802",
				"Failed to evaluate the user-defined table function because its 'analyze' method returned a requested OrderingColumn whose column name expression included an unnecessary alias %s; please remove this alias and then try the query again.",
				name).WithParams("aliasName", name)
		}
		// Spark's default: ASC NULLS FIRST, DESC NULLS LAST.
		nullsFirst := o.Ascending
		switch o.NullsFirst {
		case 1:
			nullsFirst = true
		case 2:
			nullsFirst = false
		}
		out.OrderBy = append(out.OrderBy, plan.SortOrder{Child: e, Descending: !o.Ascending, NullsFirst: nullsFirst})
	}
	for _, c := range res.Select {
		e, err := parser.ParseExpression(c.Expr)
		if err != nil {
			return nil, err
		}
		out.Select = append(out.Select, analyzer.PythonUDTFSelected{Expr: e, SQL: c.Expr, Alias: c.Alias})
	}
	return out, nil
}
