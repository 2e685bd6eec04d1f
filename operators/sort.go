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
// keys keep their arrival order), in batches of BatchRows.
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
	idx := make([]int64, user.NumRows())
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(a, b int64) int {
		for k, key := range s.keys {
			c := keyCols[k]
			an, bn := c.IsNull(int(a)), c.IsNull(int(b))
			if an || bn {
				if an && bn {
					continue
				}
				if an == key.NullsFirst {
					return -1
				}
				return 1
			}
			r := compareAt(c, int(a), c, int(b))
			if key.Descending {
				r = -r
			}
			if r != 0 {
				return r
			}
		}
		return 0
	})
	sorted, err := take(s.env.Mem, cols, idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(sorted)
	return emitInChunks(ctx, s.env, out, sorted, nil)
}

func (s *sorter) Close() { releaseRecords(s.recs); s.recs = nil }
