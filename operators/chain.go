package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
)

// Stage is one stateless operator of a Chain with its output schema (flow-event form).
type Stage struct {
	Factory Factory
	Schema  *arrow.Schema
}

// Chain fuses stateless operators (Project, Filter, Sample, Pass: Process only, no handlers)
// into one: each stage's output feeds the next stage's Process directly, with no channel or
// goroutine between them. The last stage's schema is the node's.
func Chain(stages ...Stage) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		c := &chain{}
		for _, s := range stages {
			senv := env
			senv.OutSchema = s.Schema
			op, err := s.Factory(senv)
			if err != nil {
				return nil, err
			}
			c.ops = append(c.ops, op)
		}
		return c, nil
	}
}

type chain struct{ ops []flow.Operator }

func (c *chain) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	return c.ops[0].Process(ctx, in, rec, &link{c: c, next: 1, out: out})
}

// link passes one stage's output to the next stage, or out after the last.
type link struct {
	c    *chain
	next int
	out  flow.Emitter
}

func (l *link) Emit(ctx context.Context, rec arrow.RecordBatch) error {
	if l.next == len(l.c.ops) {
		return l.out.Emit(ctx, rec)
	}
	defer rec.Release()
	return l.c.ops[l.next].Process(ctx, 0, rec, &link{c: l.c, next: l.next + 1, out: l.out})
}
