package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// Generate runs a generator (explode, inline, stack, json_tuple…) over each batch: every
// generated row is its input row's columns followed by the generated columns, in input order,
// emitted in batches of at most BatchRows rows. It is stateless, so it works unchanged on
// streams: a generated row carries its input row's retraction flag, so a retracted input row
// retracts every row it generated.
func Generate(ctx *expr.Context, g expr.Generator) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &generate{env: env, ctx: instanceContext(ctx, env), gen: g}, nil
	}
}

type generate struct {
	env flow.Env
	ctx *expr.Context
	gen expr.Generator
}

func (g *generate) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	user := flow.UserColumns(rec)
	rows, genCols, err := g.gen.Generate(g.ctx, user)
	user.Release()
	if err != nil {
		return err
	}
	defer releaseAll(genCols)
	if len(rows) == 0 {
		return nil
	}
	idx := make([]int64, len(rows))
	for i, r := range rows {
		idx[i] = int64(r)
	}
	// The retraction column and the user columns, repeated per generated row.
	taken, err := take(g.env.Mem, rec.Columns()[flow.UserOffset-1:], idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(taken)
	cols := append(append([]arrow.Array(nil), taken[1:]...), genCols...)
	env := g.env
	env.OutSchema = flow.EnvSchema(env.OutSchema, rec) // the input rows' batch environment
	return emitInChunks(ctx, env, out, cols, taken[0])
}
