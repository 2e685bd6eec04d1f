package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
)

// ExpandWindows is the expansion of a sliding window(ts, size, slide, start) grouping key:
// each input row is repeated once per window containing its time, with that window appended as
// the last column (struct<start, end>). Rows with a NULL time belong to no window and are
// dropped, as Spark's filter after its Expand does. Retractions expand the same way.
func ExpandWindows(ctx *expr.Context, w *expr.TimeWindow, tz string) Factory {
	return func(env flow.Env) (flow.Operator, error) {
		return &expandWindows{env: env, ctx: instanceContext(ctx, env), w: w, tz: tz}, nil
	}
}

type expandWindows struct {
	env flow.Env
	ctx *expr.Context
	w   *expr.TimeWindow
	tz  string
}

func (e *expandWindows) Process(ctx context.Context, _ int, rec arrow.RecordBatch, out flow.Emitter) error {
	user := flow.UserColumns(rec)
	ts, err := e.w.TS.Eval(e.ctx, user)
	user.Release()
	if err != nil {
		return err
	}
	times := eventTimeValues(ts)
	ts.Release()
	var idx []int64
	var windows []any
	for i, t := range times {
		if t == noTime {
			continue
		}
		for _, s := range e.w.Starts(t) {
			idx = append(idx, int64(i))
			windows = append(windows, []any{s, s + e.w.Size})
		}
	}
	if len(idx) == 0 {
		return nil
	}
	cols, err := take(e.env.Mem, rec.Columns(), idx, nil)
	if err != nil {
		return err
	}
	defer releaseAll(cols)
	win := expr.BuildArray(e.env.Mem, e.w.T, e.tz, windows)
	defer win.Release()
	all := append(cols[:len(cols):len(cols)], win)
	for lo := 0; lo < len(idx); lo += BatchRows {
		hi := min(len(idx), lo+BatchRows)
		part := make([]arrow.Array, len(all))
		for c, a := range all {
			part[c] = array.NewSlice(a, int64(lo), int64(hi))
		}
		r := array.NewRecordBatch(e.env.OutSchema, part, int64(hi-lo))
		releaseAll(part)
		if err := out.Emit(ctx, r); err != nil {
			return err
		}
	}
	return nil
}
