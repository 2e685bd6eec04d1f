package rate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The "rate-micro-batch" stream source, Spark's RatePerMicroBatchProvider /
// RatePerMicroBatchStream: every micro-batch is exactly rowsPerBatch rows whatever the trigger
// or lag. Offsets are {"offset":<rows so far>,"timestamp":<ms>}; the next end is the start plus
// rowsPerBatch rows and advanceMillisPerBatch ms (Spark's latestOffset(start, limit)). Every row
// of a batch carries the batch start's timestamp; partition p gets start + p + k·numPartitions.

type rateMicroBatchOptions struct {
	rowsPerBatch      int64
	numPartitions     int
	startTimestamp    int64
	advanceMsPerBatch int
}

func parseRateMicroBatchOptions(opts map[string]string, userSchema string, defaultPartitions int) (rateMicroBatchOptions, error) {
	opts = sources.NormalizeOptions(opts)
	if err := sources.NoUserSchema("RatePerMicroBatchProvider", userSchema); err != nil {
		return rateMicroBatchOptions{}, err
	}
	var o rateMicroBatchOptions
	var err error
	if o.rowsPerBatch, err = sources.OptionLong(opts, "rowsperbatch", 0); err != nil {
		return o, err
	}
	if err := sources.Positive("rowsPerBatch", o.rowsPerBatch); err != nil {
		return o, err
	}
	if o.numPartitions, err = sources.OptionInt(opts, "numpartitions", defaultPartitions); err != nil {
		return o, err
	}
	if err := sources.Positive("numPartitions", int64(o.numPartitions)); err != nil {
		return o, err
	}
	if o.startTimestamp, err = sources.OptionLong(opts, "starttimestamp", 0); err != nil {
		return o, err
	}
	if o.startTimestamp < 0 {
		return o, sparkerr.IllegalArgument("Invalid value '%d'. The option 'startTimestamp' must be non-negative", o.startTimestamp)
	}
	if o.advanceMsPerBatch, err = sources.OptionInt(opts, "advancemillisperbatch", 1000); err != nil {
		return o, err
	}
	if o.advanceMsPerBatch < 0 {
		return o, sparkerr.IllegalArgument("Invalid value '%d'. The option 'advanceMillisPerBatch' must be non-negative", o.advanceMsPerBatch)
	}
	return o, nil
}

func rateMicroBatchSchemaFunc(opts map[string]string, userSchema string) (sqltypes.Schema, error) {
	if _, err := parseRateMicroBatchOptions(opts, userSchema, 1); err != nil {
		return nil, err
	}
	return rateSchema, nil
}

// rateMicroBatchOffset is RatePerMicroBatchStreamOffset.
type rateMicroBatchOffset struct {
	Offset    int64 `json:"offset"`
	Timestamp int64 `json:"timestamp"`
}

func (o rateMicroBatchOffset) json() sources.Offset {
	b, _ := json.Marshal(o)
	return b
}

func parseRateMicroBatchOffset(off sources.Offset) (rateMicroBatchOffset, error) {
	var o rateMicroBatchOffset
	if err := json.Unmarshal(off, &o); err != nil {
		return o, sparkerr.New(sources.IllegalStateException, "", "", "The type of Offset should be RatePerMicroBatchStreamOffset").Wrap(err)
	}
	return o, nil
}

// RateMicroBatchSource is the "rate-micro-batch" stream source.
type RateMicroBatchSource struct {
	opts  rateMicroBatchOptions
	mem   memory.Allocator
	arrow *arrow.Schema

	mu sync.Mutex
	// planned is the furthest end handed out by Latest or read: where Latest's next batch starts.
	planned rateMicroBatchOffset
	// target is Trigger.AvailableNow's one batch (PrepareAvailableNow; nil: none).
	target *rateMicroBatchOffset
}

func openRateMicroBatch(_ context.Context, env sources.StreamEnv, opts map[string]string, userSchema string) (sources.StreamSource, error) {
	env = sources.EnvDefaults(env)
	o, err := parseRateMicroBatchOptions(opts, userSchema, env.DefaultPartitions)
	if err != nil {
		return nil, err
	}
	return &RateMicroBatchSource{
		opts: o, mem: env.Mem, arrow: sqltypes.ToArrowSchema(rateSchema, env.TimeZone),
		planned: rateMicroBatchOffset{Timestamp: o.startTimestamp},
	}, nil
}

// Schema implements StreamSource.
func (r *RateMicroBatchSource) Schema() sqltypes.Schema { return rateSchema }

// Partitions implements StreamSource.
func (r *RateMicroBatchSource) Partitions() int { return r.opts.numPartitions }

// Description is Spark's RatePerMicroBatchStream.toString.
func (r *RateMicroBatchSource) Description() string {
	return fmt.Sprintf("RatePerMicroBatchStream[rowsPerBatch=%d, numPartitions=%d, startTimestamp=%d, advanceMsPerBatch=%d]",
		r.opts.rowsPerBatch, r.opts.numPartitions, r.opts.startTimestamp, r.opts.advanceMsPerBatch)
}

// MicroBatchOnly implements MicroBatchOnly: Spark's source has no continuous read.
func (r *RateMicroBatchSource) MicroBatchOnly() bool { return true }

// Initial implements StreamSource.
func (r *RateMicroBatchSource) Initial(context.Context) (sources.Offset, error) {
	return rateMicroBatchOffset{Timestamp: r.opts.startTimestamp}.json(), nil
}

// LatestFrom implements StartRelative: one batch after start (after PrepareAvailableNow, its
// target).
func (r *RateMicroBatchSource) LatestFrom(_ context.Context, start sources.Offset) (sources.Offset, error) {
	r.mu.Lock()
	target := r.target
	r.mu.Unlock()
	if target != nil {
		return target.json(), nil
	}
	s, err := parseRateMicroBatchOffset(start)
	if err != nil {
		return nil, err
	}
	return r.next(s).json(), nil
}

// PrepareAvailableNow implements AvailableNow as Spark's RatePerMicroBatchStream does: the
// batch after start is all an availableNow query reads.
func (r *RateMicroBatchSource) PrepareAvailableNow(_ context.Context, start sources.Offset) (sources.Offset, error) {
	s, err := parseRateMicroBatchOffset(start)
	if err != nil {
		return nil, err
	}
	t := r.next(s)
	r.mu.Lock()
	r.target = &t
	r.mu.Unlock()
	return t.json(), nil
}

func (r *RateMicroBatchSource) next(s rateMicroBatchOffset) rateMicroBatchOffset {
	end := int64(math.MaxInt64)
	if s.Offset <= math.MaxInt64-r.opts.rowsPerBatch {
		end = s.Offset + r.opts.rowsPerBatch
	}
	return rateMicroBatchOffset{Offset: end, Timestamp: s.Timestamp + int64(r.opts.advanceMsPerBatch)}
}

// Latest implements StreamSource: one batch after the furthest offset handed out by Latest or
// read so far, so a coordinator calling Latest once per micro-batch gets Spark's batches. (A
// restarted query should use LatestFrom with its resume offset.)
func (r *RateMicroBatchSource) Latest(context.Context) (sources.Offset, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.planned = r.next(r.planned)
	return r.planned.json(), nil
}

// Read implements StreamSource.
func (r *RateMicroBatchSource) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	s, err := parseRateMicroBatchOffset(start)
	if err != nil {
		return err
	}
	e, err := parseRateMicroBatchOffset(end)
	if err != nil {
		return err
	}
	if s.Offset > e.Offset {
		return sparkerr.Internal("assertion failed: startOffset(%d) > endOffset(%d)", s.Offset, e.Offset)
	}
	if s.Timestamp > e.Timestamp {
		return sparkerr.Internal("assertion failed: startTimestamp(%d) > endTimestamp(%d)", s.Timestamp, e.Timestamp)
	}
	r.mu.Lock()
	if e.Offset > r.planned.Offset {
		r.planned = e
	}
	r.mu.Unlock()
	if s.Offset == e.Offset || p < 0 || p >= r.opts.numPartitions {
		return nil
	}
	micros := s.Timestamp * 1000
	rows := rateBatches{mem: r.mem, schema: r.arrow, stamp: func(_, ts []int64) {
		for i := range ts {
			ts[i] = micros
		}
	}}
	return rows.emit(ctx, s.Offset+int64(p), e.Offset, int64(r.opts.numPartitions), emit)
}

// Close implements StreamSource.
func (r *RateMicroBatchSource) Close() error { return nil }
