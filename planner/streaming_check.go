package planner

import (
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// CheckStreamingOperators applies Spark's UnsupportedOperationChecker rules for streaming
// deduplication and stream-stream joins to a streaming plan (the query calls it at start; the
// planner applies the same rules when it builds these operators):
//   - a stream-stream join needs an equality predicate;
//   - a stream-stream left/right/full outer or left semi join needs a watermarked event time
//     in the join keys, or a range condition bounding the state of its outer side by the other
//     side's watermark;
//   - dropDuplicatesWithinWatermark needs a watermark on its input;
//   - grouped and cogrouped Python maps (applyInPandas, cogroup) take no stream;
//   - window functions (OVER) take no stream (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING).
//
// Errors are AnalysisExceptions worded as Spark's, followed by the offending plan.
func CheckStreamingOperators(root logical.Node) error {
	if p, ok := root.(*logical.Project); ok {
		if w, ok := p.Input.(*logical.Window); ok && logical.IsStreaming(w) {
			return streamingWindow(w, windowColumnNames(p, w))
		}
	}
	for _, c := range root.Children() {
		if err := CheckStreamingOperators(c); err != nil {
			return err
		}
	}
	switch n := root.(type) {
	case *logical.Join:
		ls, rs := logical.IsStreaming(n.Left), logical.IsStreaming(n.Right)
		switch {
		case ls && rs:
			return checkStreamJoin(n)
		case ls || rs:
			return checkStreamStaticJoin(n, ls)
		}
	case *logical.Window:
		if logical.IsStreaming(n) {
			return streamingWindow(n, n.Names)
		}
	case *logical.GroupMapInPython:
		if logical.IsStreaming(n) {
			return unsupportedStreaming(n, "applyInPandas / applyInArrow (FlatMapGroupsInPandas) is not supported with streaming DataFrames/Datasets")
		}
	case *logical.AggregateInPython:
		if logical.IsStreaming(n) {
			return unsupportedStreaming(n, "Streaming aggregation doesn't support group aggregate pandas UDF")
		}
	case *logical.CoGroupMapInPython:
		if logical.IsStreaming(n) {
			return unsupportedStreaming(n, "CoGrouping with a streaming DataFrame/Dataset is not supported")
		}
	case *logical.Distinct:
		if n.WithinWatermark && logical.IsStreaming(n) {
			if _, _, ok := firstEventTime(eventTimeColumns(n.Input)); !ok {
				return dedupWithoutWatermark(n)
			}
		}
	}
	return nil
}

// joinTypeName is Spark's JoinType toString.
func joinTypeName(t plan.JoinType) string {
	return [...]string{"Inner", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "Cross"}[t]
}

// checkStreamStaticJoin is Spark's support matrix for a join of a stream (on the left when
// leftStreaming) with a static side: the static side may not be the preserved side of an outer
// join, since whether its rows match is never final.
func checkStreamStaticJoin(j *logical.Join, leftStreaming bool) error {
	switch {
	case j.Type == plan.FullOuterJoin && leftStreaming:
		return unsupportedStreaming(j, "FullOuter joins with streaming DataFrames/Datasets on the left and a static "+
			"DataFrame/Dataset on the right is not supported")
	case j.Type == plan.FullOuterJoin:
		return unsupportedStreaming(j, "FullOuter joins with streaming DataFrames/Datasets on the right and a static "+
			"DataFrame/Dataset on the left is not supported")
	case j.Type == plan.RightOuterJoin && leftStreaming:
		return unsupportedStreaming(j, "RightOuter join with a streaming DataFrame/Dataset on the left and a static "+
			"DataFrame/DataSet on the right not supported")
	case (j.Type == plan.LeftOuterJoin || j.Type == plan.LeftSemiJoin) && !leftStreaming:
		return unsupportedStreaming(j, joinTypeName(j.Type)+" join with a streaming DataFrame/Dataset on the right and "+
			"a static DataFrame/Dataset on the left is not supported")
	case j.Type == plan.LeftAntiJoin && !leftStreaming:
		return unsupportedStreaming(j, "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
	}
	return nil
}

// checkStreamJoin checks one join of two streams.
func checkStreamJoin(j *logical.Join) error {
	switch j.Type {
	case plan.LeftAntiJoin:
		return unsupportedStreaming(j, "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
	}
	if len(j.LeftKeys) == 0 {
		return unsupportedStreaming(j, "Stream-stream join without equality predicate is not supported")
	}
	if j.Type == plan.InnerJoin || j.Type == plan.CrossJoin {
		return nil
	}
	// The outer side's rows must be evictable: that is what emits them with NULLs.
	left, right := joinBounds(j)
	var ok bool
	switch j.Type {
	case plan.LeftOuterJoin, plan.LeftSemiJoin:
		ok = left.TimeCol >= 0
	case plan.RightOuterJoin:
		ok = right.TimeCol >= 0
	case plan.FullOuterJoin:
		ok = left.TimeCol >= 0 || right.TimeCol >= 0
	}
	if !ok {
		return unsupportedStreaming(j, "Stream-stream "+joinTypeName(j.Type)+" join between two streaming DataFrame/Datasets "+
			"is not supported without a watermark in the join keys, or a watermark on the nullable side and an "+
			"appropriate range condition")
	}
	return nil
}
