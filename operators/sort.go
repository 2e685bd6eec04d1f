package operators

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// SortKey is one ordering key of Sort.
type SortKey struct {
	Expr       expr.Expr
	Descending bool
	NullsFirst bool
}

// Sort collects its input and emits it at end of data ordered by keys (stable: rows with equal
// keys keep their arrival order), in batches of BatchRows. Fixed-width keys compare as
// normalized keys (sort_keys.go).
func Sort(ctx *expr.Context, keys []SortKey) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &sorter{env: env, ctx: instanceContext(ctx, env), keys: keys}, nil
	}
}

type sorter struct {
	env  flow.Env
	ctx  *expr.Context
	keys []SortKey
	recs []arrow.RecordBatch
}

func (s *sorter) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	rec.Retain()
	s.recs = append(s.recs, rec)
	return nil
}

func (s *sorter) EndOfData(ctx context.Context, out flow.Emitter) error {
	cols, err := concatColumns(s.env.Mem, s.env.OutSchema, s.recs)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	releaseRecords(s.recs)
	s.recs = nil
	if len(cols) == 0 || cols[0].Len() == 0 {
		return nil
	}
	user := array.NewRecordBatch(flow.UserSchema(s.env.OutSchema), cols, int64(cols[0].Len()))
	defer user.Release()
	es := make([]expr.Expr, len(s.keys))
	for i, k := range s.keys {
		es[i] = k.Expr
	}
	keyCols, err := evalUser(s.ctx, es, user)
	if err != nil {
		return err
	}
	defer releaseAll(keyCols)
	order := newSortOrder(s.keys, keyCols)
	// The normalized keys and the row index are Go memory: counted before they are made.
	mem := goMemory{env: s.env}
	defer mem.release()
	if err := mem.grow(order.normBytes(int(user.NumRows()), len(keyCols)) + 8*user.NumRows()); err != nil {
		return err
	}
	rk := order.encode(keyCols)
	idx := make([]int64, user.NumRows())
	for i := range idx {
		idx[i] = int64(i)
	}
	// Row numbers break ties, so the unstable sort gives the stable order.
	slices.SortFunc(idx, func(a, b int64) int {
		if r := order.compare(&rk, int(a), &rk, int(b)); r != 0 {
			return r
		}
		return cmp(a, b)
	})
	sorted, err := take(s.env.Mem, cols, idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(sorted)
	return emitInChunks(ctx, s.env, out, sorted, nil)
}

func (s *sorter) Close() { releaseRecords(s.recs); s.recs = nil }
