package operators

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/plan"
)

// A LEFT SEMI / LEFT ANTI join built over its left side (JoinSpec.BuildLeft): the probe side
// (the join's right side) only marks the built rows it matches; the join's output, the built
// rows marked (semi) or not (anti), goes out at end of data.

// markSlice marks the built rows that the rows of one probe batch match (by key, and by the
// residual condition over built++probe columns when there is one).
func (j *hashJoin) markSlice(rec arrow.RecordBatch) error {
	probe := flow.UserColumns(rec)
	defer probe.Release()
	keys, err := evalUser(j.ctx, j.spec.LeftKeys, probe)
	if err != nil {
		return err
	}
	pi, bi, err := j.probeKeys(keys, false)
	releaseAll(keys)
	if err != nil {
		return err
	}
	if j.spec.Residual != nil && len(pi) > 0 {
		if pi, bi, err = j.checkBuiltResidual(probe, pi, bi); err != nil {
			return err
		}
	}
	for _, r := range bi {
		j.matched[r] = true
	}
	return nil
}

// checkBuiltResidual keeps the pairs (probe row pi[k], built row bi[k]) whose residual
// condition, over the built row's columns then the probe row's, is true.
func (j *hashJoin) checkBuiltResidual(probe arrow.RecordBatch, pi, bi []int64) ([]int64, []int64, error) {
	built, err := take(j.env.Mem, j.rightCols, bi, nil)
	if err != nil {
		return nil, nil, err
	}
	probed, err := take(j.env.Mem, probe.Columns(), pi, nil)
	if err != nil {
		releaseAll(built)
		return nil, nil, err
	}
	fields := append(append([]arrow.Field(nil), flow.UserSchema(j.spec.RightSchema).Fields()...), probe.Schema().Fields()...)
	return j.keepPairs(append(built, probed...), fields, pi, bi)
}

// emitMarked emits the built rows some probe row matched (semi) or none did (anti), in
// built order.
func (j *hashJoin) emitMarked(ctx context.Context, out flow.Emitter) error {
	semi := j.spec.Type == plan.LeftSemiJoin
	var keep []int64
	for r, m := range j.matched {
		if m == semi {
			keep = append(keep, int64(r))
		}
	}
	for lo := 0; lo < len(keep); lo += BatchRows {
		hi := min(len(keep), lo+BatchRows)
		cols, err := take(j.env.Mem, j.rightCols, keep[lo:hi], nil)
		if err != nil {
			return err
		}
		err = emitColumns(ctx, j.env, out, cols, nil)
		releaseAll(cols)
		if err != nil {
			return err
		}
	}
	return nil
}
