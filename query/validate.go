package query

import (
	"fmt"
	"github.com/weirhq/weir/flow"
	"slices"
	"strings"

	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// validate is every check a streaming write gets before anything starts, in one place: the
// plan reads a stream, the writer's settings (checkWriter), the trigger (checkTrigger, which
// turns ProcessingTime(0) into the default trigger, as Spark runs it) and Spark's unsupported
// operations for the output mode and trigger (checkPlan). The sink's own checks (its output
// modes, options) come when the connector builds it.
func validate(spec *Spec) error {
	if spec.Plan == nil {
		return sparkerr.Internal("streaming query without a plan")
	}
	if !logical.IsStreaming(spec.Plan) {
		return sparkerr.Analysis("WRITE_STREAM_NOT_ALLOWED", "",
			"`writeStream` can be called only on streaming Dataset/DataFrame.")
	}
	if err := checkWriter(spec); err != nil {
		return err
	}
	if err := checkTrigger(&spec.Trigger); err != nil {
		return err
	}
	return checkPlan(spec.Plan, spec.OutputMode, spec.Trigger.Kind)
}

// checkWriter refuses the DataStreamWriter settings Weir has no support for.
func checkWriter(spec *Spec) error {
	switch {
	case spec.Foreach != nil && len(spec.PartitionBy) > 0:
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			"'foreach' does not support partitioning").WithParams("operation", "foreach")
	case spec.ForeachBatch != nil && len(spec.PartitionBy) > 0:
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			"'foreachBatch' does not support partitioning").WithParams("operation", "foreachBatch")
	case spec.ForeachBatch != nil && spec.Trigger.Kind == plan.TriggerContinuous:
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1292", "",
			"'foreachBatch' is not supported with continuous trigger").WithParams("source", "foreachBatch")
	case spec.TableName != "":
		return sparkerr.Unsupported("writeStream.toTable(%s) is not supported by Weir; use format memory "+
			"with a queryName to get a temp view", spec.TableName)
	case len(spec.ClusterBy) > 0:
		return sparkerr.Unsupported("writeStream.clusterBy is not supported by Weir's streaming sinks")
	}
	return nil
}

// checkTrigger refuses a continuous trigger without a positive interval and makes
// ProcessingTime(0) the default trigger (it runs batches as fast as possible).
func checkTrigger(t *Trigger) error {
	switch {
	case t.Kind == plan.TriggerProcessingTime && t.Interval <= 0:
		*t = Trigger{}
	case t.Kind == plan.TriggerContinuous && t.Interval <= 0:
		return sparkerr.IllegalArgument("The continuous trigger's checkpoint interval must be positive, got %s", t.Interval)
	}
	return nil
}

// checkPlan applies Spark's UnsupportedOperationChecker.checkForStreaming rules (and
// checkForContinuous for the continuous trigger) to what Weir's logical plans can express, plus
// Weir's own limits where Spark would run a plan Weir's operators cannot (said so in the
// message).
func checkPlan(root logical.Node, mode flow.OutputMode, trigger plan.TriggerKind) error {
	aggs := streamingAggregates(root)
	switch {
	case mode == flow.OutputAppend && len(aggs) > 0 && !eventTimeKeyed(aggs):
		return unsupportedOp(root, "%s output mode not supported when there are streaming aggregations on "+
			"streaming DataFrames/DataSets without watermark", modeName(mode))
	case mode == flow.OutputComplete && len(aggs) == 0:
		return unsupportedOp(root, "%s output mode not supported when there are no streaming aggregations on "+
			"streaming DataFrames/Datasets", modeName(mode))
	}
	if err := checkChainedAggregates(root, mode); err != nil {
		return err
	}
	if err := checkNodes(root, mode); err != nil {
		return err
	}
	if err := planner.CheckStreamingOperators(root); err != nil {
		return err
	}
	if trigger == plan.TriggerContinuous {
		return checkContinuous(root)
	}
	return nil
}

// modeName is the output mode as Spark prints it (InternalOutputModes' toString).
func modeName(m flow.OutputMode) string {
	switch m {
	case flow.OutputUpdate:
		return "Update"
	case flow.OutputComplete:
		return "Complete"
	}
	return "Append"
}

// unsupportedOp is Spark's throwError: an AnalysisException (legacy error class, so no class
// prefix) whose message is msg, ";", and the offending plan.
func unsupportedOp(at logical.Node, format string, args ...any) *sparkerr.Error {
	msg := fmt.Sprintf(format, args...)
	return sparkerr.Analysis("", "", "%s;\n%s", msg, strings.TrimRight(logical.TreeString(at), "\n"))
}

// streamingAggregates collects the aggregates over a streaming input.
func streamingAggregates(n logical.Node) []*logical.Aggregate {
	var out []*logical.Aggregate
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		if a, ok := n.(*logical.Aggregate); ok && logical.IsStreaming(a) {
			out = append(out, a)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

// checkChainedAggregates is Spark's global-watermark correctness check: a streaming aggregate
// below another stateful operator is rejected unless the output mode is append (which already
// failed above for Weir, having no watermarks).
func checkChainedAggregates(root logical.Node, mode flow.OutputMode) error {
	var err error
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		if err != nil {
			return
		}
		if isStateful(n) && mode != flow.OutputAppend {
			for _, c := range n.Children() {
				if len(streamingAggregates(c)) > 0 {
					err = unsupportedOp(root, "Detected pattern of possible 'correctness' issue due to global watermark. "+
						"The query contains stateful operation which can emit rows older than the current watermark plus "+
						"allowed late record delay, which are \"late rows\" in downstream stateful operations and these rows "+
						"can be discarded. Please refer the programming guide doc for more details. If you understand the "+
						"possible risk of correctness issue and still need to run the query, you can disable this check by "+
						"setting the config `spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.")
					return
				}
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(root)
	return err
}

func isStateful(n logical.Node) bool {
	switch n := n.(type) {
	case *logical.Aggregate:
		return logical.IsStreaming(n)
	case *logical.Join:
		return logical.IsStreaming(n.Left) && logical.IsStreaming(n.Right)
	}
	return false
}

// containsCompleteData: the subplan has no streaming source, or aggregates in complete mode.
func containsCompleteData(n logical.Node, mode flow.OutputMode) bool {
	return !logical.IsStreaming(n) || (len(streamingAggregates(n)) > 0 && mode == flow.OutputComplete)
}

// checkNodes walks the plan bottom-up like Spark's foreachUp.
func checkNodes(n logical.Node, mode flow.OutputMode) error {
	for _, c := range n.Children() {
		if err := checkNodes(c, mode); err != nil {
			return err
		}
	}
	switch n := n.(type) {
	case *logical.Aggregate:
		if !logical.IsStreaming(n.Input) {
			return nil
		}
		for _, ag := range n.Aggs {
			if ag.Distinct() {
				return unsupportedOp(n, "Distinct aggregations are not supported on streaming DataFrames/Datasets. "+
					"Consider using approx_count_distinct() instead.")
			}
		}
	case *logical.Join:
		return checkJoin(n, mode)
	case *logical.Union:
		streaming, batch := false, false
		for _, c := range n.Inputs {
			if logical.IsStreaming(c) {
				streaming = true
			} else {
				batch = true
			}
		}
		if streaming && batch {
			return unsupportedOp(n, "Union between streaming and batch DataFrames/Datasets is not supported")
		}
	case *logical.SetOp:
		if n.Type == plan.Except && logical.IsStreaming(n.Right) {
			return unsupportedOp(n, "Except on a streaming DataFrame/Dataset on the right is not supported")
		}
		if n.Type == plan.Intersect && (logical.IsStreaming(n.Left) || logical.IsStreaming(n.Right)) {
			return unsupportedOp(n, "Intersect of streaming DataFrames/Datasets is not supported")
		}
		if logical.IsStreaming(n.Left) {
			return unsupportedOp(n, "Except of a streaming DataFrame/Dataset is not supported by Weir")
		}
	case *logical.Limit:
		if !logical.IsStreaming(n.Input) {
			return nil
		}
		if n.Offset > 0 {
			return unsupportedOp(n, "Offset is not supported on streaming DataFrames/Datasets")
		}
		if mode == flow.OutputUpdate {
			return unsupportedOp(n, "Limits are not supported on streaming DataFrames/Datasets in Update output mode")
		}
		// Spark keeps a streaming limit's count in state across batches; Weir's limit ends its
		// input once satisfied, which would end the query.
		return unsupportedOp(n, "Limits are not supported on streaming DataFrames/Datasets by Weir")
	case *logical.Tail:
		if logical.IsStreaming(n.Input) {
			return unsupportedOp(n, "Cannot return immediate result on streaming DataFrames/Dataset. Queries "+
				"with streaming DataFrames/Datasets must be executed with writeStream.start().")
		}
	case *logical.Sort:
		if !containsCompleteData(n, mode) {
			return unsupportedOp(n, "Sorting is not supported on streaming DataFrames/Datasets, unless it is on "+
				"aggregated DataFrame/Dataset in Complete output mode")
		}
		if logical.IsStreaming(n) {
			// Weir's sort emits at end of data only, so its output would never reach the sink.
			return unsupportedOp(n, "Sorting an aggregated streaming DataFrame/Dataset in Complete output mode "+
				"is not supported by Weir")
		}
	case *logical.Sample:
		if logical.IsStreaming(n.Input) {
			return unsupportedOp(n, "Sampling is not supported on streaming DataFrames/Datasets")
		}
	}
	return nil
}

// checkJoin applies Spark's join rules, then Weir's: its hash join builds a table over the whole
// right input, so in a stream-static join the right side must be the static one (two streams
// use the symmetric hash join).
func checkJoin(j *logical.Join, mode flow.OutputMode) error {
	ls, rs := logical.IsStreaming(j.Left), logical.IsStreaming(j.Right)
	if ls && rs && mode != flow.OutputAppend {
		return unsupportedOp(j, "Join between two streaming DataFrames/Datasets is not supported in %s output mode, "+
			"only in Append output mode", modeName(mode))
	}
	switch j.Type {
	case plan.InnerJoin, plan.CrossJoin:
	case plan.FullOuterJoin:
		if ls && !rs {
			return unsupportedOp(j, "FullOuter joins with streaming DataFrames/Datasets on the left "+
				"and a static DataFrame/Dataset on the right is not supported")
		}
		if !ls && rs {
			return unsupportedOp(j, "FullOuter joins with streaming DataFrames/Datasets on the right "+
				"and a static DataFrame/Dataset on the left is not supported")
		}
	case plan.LeftAntiJoin:
		if rs {
			return unsupportedOp(j, "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
		}
	case plan.LeftOuterJoin, plan.LeftSemiJoin:
		if !ls && rs {
			name := "LeftOuter"
			if j.Type == plan.LeftSemiJoin {
				name = "LeftSemi"
			}
			return unsupportedOp(j, "%s join with a streaming DataFrame/Dataset on the right and a static "+
				"DataFrame/Dataset on the left is not supported", name)
		}
	case plan.RightOuterJoin:
		if ls && !rs {
			return unsupportedOp(j, "RightOuter join with a streaming DataFrame/Dataset on the left and "+
				"a static DataFrame/DataSet on the right not supported")
		}
	}
	if rs && !ls {
		return sparkerr.Unsupported("joins whose right side is a streaming DataFrame/Dataset are not supported by Weir; " +
			"put the stream on the left of a stream-static join")
	}
	return nil
}

// checkContinuous is Spark's checkForContinuous: map-like operations only.
func checkContinuous(root logical.Node) error {
	var err error
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		for _, c := range n.Children() {
			walk(c)
		}
		if err != nil {
			return
		}
		switch n := n.(type) {
		case *logical.Project:
			if slices.ContainsFunc(n.Exprs, expr.ReadsCurrentTime) {
				err = unsupportedOp(n, "Continuous processing does not support current time operations.")
			}
		case *logical.Filter:
			if expr.ReadsCurrentTime(n.Cond) {
				err = unsupportedOp(n, "Continuous processing does not support current time operations.")
			}
		case *logical.SourceScan:
		default:
			err = unsupportedOp(n, "Continuous processing does not support %s operations.", nodeName(n))
		}
	}
	walk(root)
	return err
}

// nodeName is Spark's nodeName for Weir's node kinds.
func nodeName(n logical.Node) string {
	switch n := n.(type) {
	case *logical.Limit:
		return "GlobalLimit"
	case *logical.Distinct:
		return "Deduplicate"
	case *logical.SetOp:
		return strings.SplitN(n.Describe(), " ", 2)[0]
	case *logical.LocalData:
		return "LocalRelation"
	}
	name := fmt.Sprintf("%T", n)
	return name[strings.LastIndex(name, ".")+1:]
}
