package operators

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// partitionSeed makes exchange hashes independent of the hash tables' inside operators.
const partitionSeed = 42

// HashPartitioner routes each row by the hash of keys (evaluated over the batch's user
// columns): equal keys always reach the same partition.
func HashPartitioner(ctx *expr.Context, keys []expr.Expr) flow.Partitioner {
	return &hashPartitioner{ctx: ctx, keys: keys}
}

type hashPartitioner struct {
	ctx  *expr.Context
	keys []expr.Expr
}

func (h *hashPartitioner) Split(env flow.Env, rec arrow.RecordBatch, n int) ([]arrow.RecordBatch, error) {
	if n == 1 {
		return []arrow.RecordBatch{flow.WithoutEnv(rec)}, nil
	}
	cols, err := evalAll(instanceContext(h.ctx, env), h.keys, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	hs := make([]uint64, rec.NumRows())
	hashColumns(cols, partitionSeed, hs)
	buckets := make([][]int64, n)
	for i, x := range hs {
		p := x % uint64(n)
		buckets[p] = append(buckets[p], int64(i))
	}
	return splitBuckets(env, rec, buckets)
}

// splitBuckets cuts rec into the rows of each bucket. A shuffle's batches leave without their
// batch environment (flow.WithoutEnv): the rows' input file is not known past an exchange.
func splitBuckets(env flow.Env, rec arrow.RecordBatch, buckets [][]int64) ([]arrow.RecordBatch, error) {
	rec = flow.WithoutEnv(rec)
	defer rec.Release()
	out := make([]arrow.RecordBatch, len(buckets))
	for p, idx := range buckets {
		if len(idx) == 0 {
			continue
		}
		if int64(len(idx)) == rec.NumRows() {
			rec.Retain()
			out[p] = rec
			continue
		}
		t, err := takeRecord(env.Mem, rec, idx)
		if err != nil {
			releaseRecords(out)
			return nil, err
		}
		out[p] = t
	}
	return out, nil
}

// RoundRobinPartitioner deals rows out to partitions in turn.
func RoundRobinPartitioner() flow.Partitioner { return &roundRobin{} }

type roundRobin struct{ next atomic.Int64 }

func (r *roundRobin) Split(env flow.Env, rec arrow.RecordBatch, n int) ([]arrow.RecordBatch, error) {
	start := r.next.Add(rec.NumRows()) - rec.NumRows()
	buckets := make([][]int64, n)
	for i := int64(0); i < rec.NumRows(); i++ {
		p := (start + i) % int64(n)
		buckets[p] = append(buckets[p], i)
	}
	return splitBuckets(env, rec, buckets)
}

// OffsetPartitioner sends producer partition p's batches whole to consumer partition
// offset+p: a union lays its inputs' partitions side by side this way.
func OffsetPartitioner(offset int) flow.Partitioner { return offsetPartitioner(offset) }

type offsetPartitioner int

func (o offsetPartitioner) Split(env flow.Env, rec arrow.RecordBatch, n int) ([]arrow.RecordBatch, error) {
	out := make([]arrow.RecordBatch, n)
	rec.Retain()
	out[int(o)+env.Partition] = rec
	return out, nil
}
