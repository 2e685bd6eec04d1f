package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
)

// BatchRows is how many rows blocking operators put in one output batch.
const BatchRows = 8192

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func releaseRecords(rs []arrow.RecordBatch) {
	for _, r := range rs {
		if r != nil {
			r.Release()
		}
	}
}

// evalAll evaluates es over the user columns of an event batch.
func evalAll(ctx *expr.Context, es []expr.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	user := flow.UserColumns(rec)
	defer user.Release()
	return evalUser(ctx, es, user)
}

// evalUser evaluates es over a record of user columns.
func evalUser(ctx *expr.Context, es []expr.Expr, user arrow.RecordBatch) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(es))
	for _, e := range es {
		a, err := e.Eval(ctx, user)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// indexArray builds an int64 index array; valid may be nil (all valid), else false entries
// are NULL indices (a take yields NULL there).
func indexArray(mem memory.Allocator, idx []int64, valid []bool) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(idx, valid)
	return b.NewArray()
}

// take gathers rows idx of every array (NULL where valid is false).
func take(mem memory.Allocator, cols []arrow.Array, idx []int64, valid []bool) ([]arrow.Array, error) {
	var ix arrow.Array // built for the first column compute.Take handles
	defer func() {
		if ix != nil {
			ix.Release()
		}
	}()
	ctx := exec.WithAllocator(context.Background(), mem)
	out := make([]arrow.Array, 0, len(cols))
	var highest uint64
	if valid == nil {
		highest = maxIndex(idx)
	}
	for _, c := range cols {
		if valid == nil {
			if t := takeFixed(mem, c, idx, highest); t != nil {
				out = append(out, t)
				continue
			}
		}
		if c.Len() == 0 && len(idx) > 0 {
			// Only NULL indices can address an empty array.
			out = append(out, array.MakeArrayOfNull(mem, c.DataType(), len(idx)))
			continue
		}
		if ix == nil {
			ix = indexArray(mem, idx, valid)
		}
		t, err := compute.TakeArray(ctx, c, ix)
		if err != nil {
			releaseAll(out)
			return nil, sparkerr.Internal("take: %v", err).Wrap(err)
		}
		out = append(out, t)
	}
	return out, nil
}

// takeRecord gathers rows idx of an event batch into a new event batch of the same schema.
func takeRecord(mem memory.Allocator, rec arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	cols, err := take(mem, rec.Columns(), idx, nil)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// concatColumns concatenates the user columns of event batches (all of one schema), or
// returns empty arrays of schema's user columns when there are none.
func concatColumns(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) ([]arrow.Array, error) {
	n := schema.NumFields() - flow.UserOffset
	out := make([]arrow.Array, n)
	for c := 0; c < n; c++ {
		if len(recs) == 0 {
			out[c] = array.MakeArrayOfNull(mem, schema.Field(c+flow.UserOffset).Type, 0)
			continue
		}
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c + flow.UserOffset)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			releaseAll(out)
			return nil, sparkerr.Internal("concatenate: %v", err).Wrap(err)
		}
		out[c] = a
	}
	return out, nil
}

// boolArray builds a non-null boolean array.
func boolArray(mem memory.Allocator, vs []bool) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// emitColumns emits user columns (plus an optional _retracted array) as a data batch of the
// node's output schema. It does not release cols.
func emitColumns(ctx context.Context, env flow.Env, out flow.Emitter, cols []arrow.Array, retracted arrow.Array) error {
	if len(cols) > 0 && cols[0].Len() == 0 {
		return nil
	}
	if len(cols) == 0 && (retracted == nil || retracted.Len() == 0) {
		return nil
	}
	return out.Emit(ctx, flow.NewDataBatch(env.Mem, env.OutSchema, cols, retracted))
}

// relabel re-wraps an event batch's columns under the node's output schema (same types).
func relabel(env flow.Env, rec arrow.RecordBatch) arrow.RecordBatch {
	return array.NewRecordBatch(env.OutSchema, rec.Columns(), rec.NumRows())
}

// relabelWithEnv is relabel keeping rec's batch environment (flow.EnvSchema): for operators
// that pass on rows of one batch as they are (filter, union).
func relabelWithEnv(env flow.Env, rec arrow.RecordBatch) arrow.RecordBatch {
	return array.NewRecordBatch(flow.EnvSchema(env.OutSchema, rec), rec.Columns(), rec.NumRows())
}

// emitInChunks emits user columns in batches of at most BatchRows rows.
func emitInChunks(ctx context.Context, env flow.Env, out flow.Emitter, cols []arrow.Array, retracted arrow.Array) error {
	if len(cols) == 0 {
		return nil
	}
	n := cols[0].Len()
	for lo := 0; lo < n; lo += BatchRows {
		hi := min(n, lo+BatchRows)
		part := make([]arrow.Array, len(cols))
		for c, a := range cols {
			part[c] = array.NewSlice(a, int64(lo), int64(hi))
		}
		var r arrow.Array
		if retracted != nil {
			r = array.NewSlice(retracted, int64(lo), int64(hi))
		}
		err := emitColumns(ctx, env, out, part, r)
		releaseAll(part)
		if r != nil {
			r.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
