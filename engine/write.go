package engine

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// write runs df.write…save(): the input is planned as a batch query whose rows flow, as one
// epoch, into the operators of the format's batch sink (connectors.NewBatchSink), which write them when
// the input ends; the sink's Finish then completes the write (_SUCCESS for files). Save modes
// are the sink's (file formats: errorifexists, the default, fails on an existing path, ignore
// skips the write, overwrite replaces the path, append adds files; kafka: append and
// errorifexists only). Tables (saveAsTable, insertInto) are written by writeTable
// (table_write.go).
func (s *Session) write(ctx context.Context, w *plan.Write) (*Result, error) {
	if w.Input == nil {
		return nil, sparkerr.IllegalArgument("Invalid plan: WriteOperation is missing its input relation")
	}
	node, err := s.analyzer().Resolve(ctx, w.Input)
	if err != nil {
		return nil, err
	}
	if logical.IsStreaming(node) {
		return nil, sparkerr.Analysis("CALL_ON_STREAMING_DATASET_UNSUPPORTED", "42KDE",
			"The method `write` can not be called on streaming Dataset/DataFrame.").WithParams("methodName", "`write`")
	}
	if err := checkWriteSpec(w); err != nil {
		return nil, err
	}
	if w.TableName != "" {
		return s.writeTable(ctx, w)
	}
	format := w.Format
	if format == "" {
		format = s.conf.GetOr(conf.SourcesDefaultKey, "parquet")
	}
	options, err := sinks.WithPath("save", w.Path, w.Options, strings.EqualFold(s.conf.GetOr(conf.LegacyPathOptionKey, "false"), "true"))
	if err != nil {
		return nil, err
	}
	mode := saveMode(w.Mode)
	if mode == sinks.SaveOverwrite && connectors.IsFileFormat(format) {
		if err := s.checkOverwrite(node, options); err != nil {
			return nil, err
		}
	}
	sink, err := connectors.NewBatchSink(ctx, format, sinks.Env{Mode: flow.OutputAppend, Schema: node.Schema(), TimeZone: s.timeZone(),
		Stdout: s.stdout, PartitionBy: w.PartitionBy, Files: s.files}, mode, options)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return s.empty() // ignore mode, the target exists
	}
	if err := s.runWrite(ctx, node, sink); err != nil {
		sink.Abort()
		return nil, err
	}
	if err := sink.Finish(ctx); err != nil {
		return nil, err
	}
	s.refreshPersistedReading(options)
	return s.empty()
}

// runWrite plans node with sink's operators on top and runs the job to its end.
func (s *Session) runWrite(ctx context.Context, node logical.Node, sink sinks.BatchSink) error {
	job, err := s.start(ctx, node, func(g *flow.Graph) {
		up := g.Output
		in := flow.Input{From: up, Exchange: flow.Forward}
		par := max(1, sink.Parallelism(up.Parallelism))
		if par != up.Parallelism {
			par, in.Exchange = 1, flow.Gather
		}
		g.Output = &flow.Node{Name: "Write " + sink.Description(), Parallelism: par, Schema: up.Schema,
			NewOperator: sink.NewOperator, Inputs: []flow.Input{in}}
	}, nil)
	if err != nil {
		return err
	}
	defer job.Close()
	for {
		rec, err := job.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rec.Release()
	}
}

// saveMode maps the writer's mode; unset is the default, error-if-exists.
func saveMode(m plan.SaveMode) sinks.SaveMode {
	switch m {
	case plan.SaveAppend:
		return sinks.SaveAppend
	case plan.SaveOverwrite:
		return sinks.SaveOverwrite
	case plan.SaveIgnore:
		return sinks.SaveIgnore
	}
	return sinks.SaveErrorIfExists
}

// checkWriteSpec refuses what a path or table write cannot do, with Spark's messages.
func checkWriteSpec(w *plan.Write) error {
	switch {
	case w.BucketBy != nil:
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1312", "",
			"'save' does not support bucketBy right now.").WithParams("operation", "save")
	case len(w.SortBy) > 0:
		return sparkerr.New(sparkerr.AnalysisException, "SORT_BY_WITHOUT_BUCKETING", "42601",
			"sortBy must be used together with bucketBy.")
	case len(w.ClusterBy) > 0:
		return sparkerr.Unsupported("DataFrameWriter.clusterBy is not supported by Weir's file writers")
	}
	return nil
}

// checkOverwrite refuses an overwrite the file-access policy does not allow (the filesystem
// root, the server's directories, a path outside the data roots, …) and one of a path the query
// reads (it would be deleted before it is read), as Spark does. Paths are compared resolved
// (links followed), so a link to the target counts as the target.
func (s *Session) checkOverwrite(node logical.Node, options map[string]string) error {
	target, ok := sources.NormalizeOptions(options)["path"]
	if !ok {
		return nil
	}
	out, err := s.files.CheckReplace(target)
	if err != nil {
		return err
	}
	var found error
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		if scan, ok := n.(*logical.SourceScan); ok && (connectors.IsFileFormat(scan.Format) || isIceberg(scan.Format)) {
			for _, p := range sources.ReadPaths(scan.Options, scan.Paths) {
				in, err := s.files.Resolve(p)
				if err == nil && (in == out || strings.HasPrefix(in, out+string(filepath.Separator))) {
					uri := fileaccess.HadoopPath(out)
					found = sparkerr.Analysis("UNSUPPORTED_OVERWRITE.PATH", "42902",
						"Can't overwrite the target that is also being read from. The target path is %s.", uri).
						WithParams("path", uri)
				}
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(node)
	return found
}
