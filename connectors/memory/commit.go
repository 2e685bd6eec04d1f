package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
)

// commitLog remembers the last epoch a sink committed, so a replayed epoch (one not after it)
// is ignored.
type commitLog struct {
	mu   sync.Mutex
	last int64
	any  bool
}

// fresh reports whether epoch comes after every committed epoch.
func (c *commitLog) fresh(epoch int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.any || epoch > c.last
}

// committed records epoch as committed.
func (c *commitLog) committed(epoch int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last, c.any = epoch, true
}

// epochWriter writes one committed epoch: recs are the epoch's output (user columns; the
// writer releases nothing it did not retain itself).
type epochWriter func(ctx context.Context, epoch int64, recs []arrow.RecordBatch) error

// epochOperator is the flow operator shared by the console and memory sinks: it feeds data
// batches to a changelog and, at each barrier of an epoch not committed before, hands the
// epoch's output to write and records the commit.
type epochOperator struct {
	log     *sinks.Changelog
	commits *commitLog
	written *sinks.RowCounter
	write   epochWriter
}

// Process implements flow.Operator.
func (o *epochOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	o.log.Add(rec)
	return nil
}

// Barrier implements flow.BarrierHandler.
func (o *epochOperator) Barrier(ctx context.Context, epoch int64, _ flow.Emitter) error {
	if !o.commits.fresh(epoch) {
		o.log.Discard()
		return nil
	}
	recs, err := o.log.Commit()
	if err != nil {
		return err
	}
	defer sinks.ReleaseRecords(recs)
	if err := o.write(ctx, epoch, recs); err != nil {
		return err
	}
	o.commits.committed(epoch)
	o.written.Add(sinks.CountRows(recs))
	return nil
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch
// and are dropped.
func (o *epochOperator) EndOfData(context.Context, flow.Emitter) error {
	o.log.Release()
	return nil
}

// Close implements flow.Closer.
func (o *epochOperator) Close() { o.log.Release() }

// objectID renders a JVM default toString suffix ("@1b2c3d4e") for descriptions of Spark
// singletons: one value per process, as a singleton's identity hash is.
var objectID = fmt.Sprintf("@%x", rand.Uint32())
