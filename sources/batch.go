package sources

import (
	"context"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
)

// RangeBatchRows is how many ids a Range batch holds.
const RangeBatchRows = 8192

// Range produces ids start, start+step, … below end (above end for a negative step) in one
// int64 user column, split like Spark's Range: partition i of n gets the contiguous slice of
// element indexes [i·count/n, (i+1)·count/n).
type Range struct {
	Start, End, Step int64
}

// Count is the number of ids the range holds.
func (r Range) Count() *big.Int {
	if r.Step == 0 {
		return new(big.Int)
	}
	span := new(big.Int).Sub(big.NewInt(r.End), big.NewInt(r.Start))
	step := big.NewInt(r.Step)
	if span.Sign() == 0 || span.Sign() != step.Sign() {
		return new(big.Int)
	}
	// ceil(span / step) for same-signed operands.
	q, m := new(big.Int).QuoRem(span, step, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// Slice is partition p of n's first element index and element count (a range holds at most
// 2^64-1 elements, so both fit in uint64).
func (r Range) Slice(p, n int) (first, count uint64) {
	total := r.Count()
	lo := new(big.Int).Div(new(big.Int).Mul(total, big.NewInt(int64(p))), big.NewInt(int64(n)))
	hi := new(big.Int).Div(new(big.Int).Mul(total, big.NewInt(int64(p+1))), big.NewInt(int64(n)))
	return lo.Uint64(), new(big.Int).Sub(hi, lo).Uint64()
}

// Run implements flow.Source.
func (r Range) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	if r.Step == 0 {
		return sparkerr.IllegalArgument("requirement failed: The step of range must not be 0")
	}
	first, count := r.Slice(env.Partition, env.Partitions)
	return r.emit(ctx, env, out, first, count)
}

// emit sends count ids from element index first on; the offset of a partition is simply how
// many of its ids were emitted.
func (r Range) emit(ctx context.Context, env flow.Env, out flow.Emitter, first, count uint64) error {
	// Two's-complement wrap-around keeps start + first·step exact modulo 2^64.
	next := int64(uint64(r.Start) + first*uint64(r.Step))
	mem := &idBuffers{mem: env.Mem}
	defer mem.close()
	for done := uint64(0); done < count; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(RangeBatchRows, count-done)
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(int(n) * arrow.Int64SizeBytes)
		vals := arrow.Int64Traits.CastFromBytes(buf.Bytes())
		for k := range vals {
			vals[k] = next
			next += r.Step
		}
		done += n
		data := array.NewData(arrow.PrimitiveTypes.Int64, int(n), []*memory.Buffer{nil, buf}, nil, 0, 0)
		buf.Release()
		ids := array.MakeFromData(data)
		data.Release()
		rec := flow.NewDataBatch(env.Mem, env.OutSchema, []arrow.Array{ids}, nil)
		ids.Release()
		if err := out.Emit(ctx, rec); err != nil {
			return err
		}
	}
	return nil
}

// LocalData emits inline records (user columns of the node's user schema) from one partition.
// The records stay owned by the caller; the source retains what it sends.
type LocalData struct {
	Records []arrow.RecordBatch
	// Snapshot, when set, is read when the source runs instead of Records; the source releases
	// what it returns.
	Snapshot func() []arrow.RecordBatch
}

// Run implements flow.Source.
func (l LocalData) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	if env.Partition != 0 {
		return nil
	}
	recs := l.Records
	if l.Snapshot != nil {
		recs = l.Snapshot()
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
	}
	for _, rec := range recs {
		if rec.NumRows() == 0 {
			continue
		}
		cols, err := conformColumns(ctx, env.Mem, rec, env.OutSchema)
		if err != nil {
			return err
		}
		err = out.Emit(ctx, flow.NewDataBatchRows(env.Mem, env.OutSchema, cols, nil, int(rec.NumRows())))
		for _, c := range cols {
			c.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
