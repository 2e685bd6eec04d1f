package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/plan"
)

// Distinct keeps the first row of each distinct value of the key columns (all columns when
// keyCols is nil) seen by this partition; the planner hash-partitions on the keys first.
// NULLs compare equal.
func Distinct(keyCols []int) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &distinct{env: env, keyCols: keyCols, seen: newRowTable(env.Mem)}, nil
	}
}

type distinct struct {
	env     flow.Env
	keyCols []int
	seen    *rowTable
}

func (d *distinct) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	user := flow.UserColumns(rec)
	defer user.Release()
	keys := user.Columns()
	if d.keyCols != nil {
		keys = make([]arrow.Array, len(d.keyCols))
		for i, c := range d.keyCols {
			keys[i] = user.Column(c)
		}
	}
	ids := make([]uint32, rec.NumRows())
	next := uint32(d.seen.len())
	keep, err := d.seen.lookup(keys, ids, true, func() uint32 { next++; return next - 1 })
	if err != nil {
		return err
	}
	return emitRows(ctx, d.env, out, rec, keep)
}

func (d *distinct) Close() { d.seen.release() }

// SetOp computes INTERSECT or EXCEPT (ALL or distinct) of input 0 and input 1 over whole rows
// (NULLs compare equal), emitting at end of data in order of first appearance on the left.
// The planner hash-partitions both sides on every column first.
func SetOp(typ plan.SetOpType, all bool) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &setOp{env: env, typ: typ, all: all}, nil
	}
}

type setOp struct {
	env         flow.Env
	typ         plan.SetOpType
	all         bool
	left, right []arrow.RecordBatch
}

func (s *setOp) Process(_ context.Context, in int, rec arrow.RecordBatch, _ flow.Emitter) error {
	rec.Retain()
	if in == 0 {
		s.left = append(s.left, rec)
	} else {
		s.right = append(s.right, rec)
	}
	return nil
}

func (s *setOp) EndOfData(ctx context.Context, out flow.Emitter) error {
	left, err := concatColumns(s.env.Mem, s.env.OutSchema, s.left)
	if err != nil {
		return err
	}
	defer releaseAll(left)
	table := newRowTable(s.env.Mem)
	defer table.release()
	var lcount, rcount []int64
	ids := make([]uint32, left[0].Len())
	firsts, err := table.lookup(left, ids, true, func() uint32 {
		lcount, rcount = append(lcount, 0), append(rcount, 0)
		return uint32(len(lcount) - 1)
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		lcount[id]++
	}
	for _, r := range s.right {
		user := flow.UserColumns(r)
		rids := make([]uint32, r.NumRows())
		_, err := table.lookup(user.Columns(), rids, false, nil)
		user.Release()
		if err != nil {
			return err
		}
		for _, id := range rids {
			if id != notFound {
				rcount[id]++
			}
		}
	}
	var idx []int64
	for id := range lcount {
		// Ids are dense in order of first appearance: firsts[id] is the id's first left row.
		for n := s.copies(lcount[id], rcount[id]); n > 0; n-- {
			idx = append(idx, firsts[id])
		}
	}
	rows, err := take(s.env.Mem, left, idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(rows)
	return emitInChunks(ctx, s.env, out, rows, nil)
}

// copies is how many times a row seen l times on the left and r on the right is output.
func (s *setOp) copies(l, r int64) int64 {
	switch {
	case s.typ == plan.Intersect && s.all:
		return min(l, r)
	case s.typ == plan.Intersect:
		return min(1, l, r)
	case s.all:
		return max(0, l-r)
	case r == 0:
		return 1
	}
	return 0
}

func (s *setOp) Close() {
	releaseRecords(s.left)
	releaseRecords(s.right)
	s.left, s.right = nil, nil
}
