package memory

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// noopSink writes nothing; it counts the rows it would write (numOutputRows): the epoch's
// inserts, or in complete mode the size of the result table.
type noopSink struct {
	mode    flow.OutputMode
	written sinks.RowCounter
}

func newNoop(env sinks.Env, _ map[string]string) (sinks.Sink, error) {
	return &noopSink{mode: env.Mode}, nil
}

// Description implements Sink (Spark reports the NoopTable singleton's toString).
func (s *noopSink) Description() string {
	return "org.apache.spark.sql.execution.datasources.noop.NoopTable$" + objectID
}

// Parallelism implements Sink: any number of partitions, each counting its own rows.
func (s *noopSink) Parallelism(upstream int) int { return upstream }

// OutputRows implements Sink.
func (s *noopSink) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *noopSink) NewOperator(flow.Env) (flow.Operator, error) {
	return &noopOperator{sink: s}, nil
}

// noopOperator counts one partition's rows. In complete mode the partition's share of the
// result table is its inserts minus its retractions so far (every retraction removes a row
// inserted earlier through the same partition).
type noopOperator struct {
	sink     *noopSink
	commits  commitLog
	inserts  int64 // the open epoch's
	retracts int64
	table    int64 // complete mode: rows in this partition's share of the result
}

// Process implements flow.Operator.
func (o *noopOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	r := flow.Retracted(rec)
	n := int64(0)
	for i := 0; i < r.Len(); i++ {
		if r.Value(i) {
			n++
		}
	}
	o.retracts += n
	o.inserts += rec.NumRows() - n
	return nil
}

// Barrier implements flow.BarrierHandler.
func (o *noopOperator) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	ins, ret := o.inserts, o.retracts
	o.inserts, o.retracts = 0, 0
	if !o.commits.fresh(epoch) {
		return nil
	}
	o.commits.committed(epoch)
	if o.sink.mode == flow.OutputComplete {
		o.table = max(0, o.table+ins-ret)
		o.sink.written.Add(o.table)
		return nil
	}
	o.sink.written.Add(ins)
	return nil
}

// newNoopBatch is df.write.format("noop"): Spark's noop table accepts the append and
// overwrite modes only.
func newNoopBatch(_ context.Context, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
	if mode != sinks.SaveAppend && mode != sinks.SaveOverwrite {
		name := map[sinks.SaveMode]string{sinks.SaveErrorIfExists: "ErrorIfExists", sinks.SaveIgnore: "Ignore"}[mode]
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1308", "",
			"TableProvider implementation noop cannot be written with "+name+" mode, please use Append or Overwrite modes instead.").
			WithParams("source", "noop", "createMode", name)
	}
	s, err := newNoop(env, options)
	if err != nil {
		return nil, err
	}
	return sinks.BatchAdapter{Sink: s}, nil
}
