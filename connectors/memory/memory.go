package memory

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// memorySink keeps the query's result in a MemoryTable registered as a temp view named after
// the query. Append and update append each epoch's rows; complete replaces the table's contents
// with the whole result each epoch. The table outlives the query (the view stays readable
// after it stops); its owner (the view registry) releases it.
type memorySink struct {
	env     sinks.Env
	table   *sinks.MemoryTable
	commits commitLog
	written sinks.RowCounter
}

// newMemory requires a query name and registers the table under it.
func newMemory(env sinks.Env, _ map[string]string) (sinks.Sink, error) {
	if env.QueryName == "" {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1194", "",
			"queryName must be specified for memory sink")
	}
	if env.Tables == nil {
		return nil, sparkerr.Internal("memory sink: no temp view registry")
	}
	table := sinks.NewMemoryTable(env.Schema)
	if err := env.Tables.RegisterTable(env.QueryName, table); err != nil {
		return nil, err
	}
	return &memorySink{env: env, table: table}, nil
}

// Table returns the sink's result table.
func (s *memorySink) Table() *sinks.MemoryTable { return s.table }

// Description implements Sink.
func (s *memorySink) Description() string { return "MemorySink" }

// Parallelism implements Sink: one partition keeps the table's row order per epoch.
func (s *memorySink) Parallelism(int) int { return 1 }

// OutputRows implements Sink.
func (s *memorySink) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *memorySink) NewOperator(env flow.Env) (flow.Operator, error) {
	return &epochOperator{
		log:     sinks.NewChangelog(s.env.Mode, env.Mem),
		commits: &s.commits,
		written: &s.written,
		write: func(_ context.Context, _ int64, recs []arrow.RecordBatch) error {
			if s.env.Mode == flow.OutputComplete {
				for _, r := range recs {
					r.Retain()
				}
				s.table.Replace(recs)
				return nil
			}
			if sinks.CountRows(recs) == 0 {
				return nil
			}
			// One compact copy per epoch: the table does not pin the upstream batches.
			rec, err := sinks.ConcatRecords(env.Mem, recs)
			if err != nil {
				return err
			}
			s.table.Append(rec)
			return nil
		},
	}, nil
}
