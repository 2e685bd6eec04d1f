package memory

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	"github.com/weirhq/weir/sql/showstring"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// consoleSink prints each epoch to the server's stdout as Spark's ConsoleWrite does: a
// "Batch: N" banner, then Dataset.show(numRows, truncate) of the epoch's output.
type consoleSink struct {
	env      sinks.Env
	numRows  int
	truncate int // show()'s truncate width: 20, or 0 for truncate=false
	loc      *time.Location
	casts    []expr.Expr
	commits  commitLog
	written  sinks.RowCounter
}

// newConsole reads the options numRows (default 20) and truncate (default true).
func newConsole(env sinks.Env, options map[string]string) (sinks.Sink, error) {
	opts := sinks.NewOptions(options)
	numRows, err := opts.IntOr("numRows", 20)
	if err != nil {
		return nil, err
	}
	truncate, err := opts.BoolOr("truncate", true)
	if err != nil {
		return nil, err
	}
	loc, err := sessionLocation(env.TimeZone)
	if err != nil {
		return nil, err
	}
	s := &consoleSink{env: env, numRows: numRows, loc: loc}
	if truncate {
		s.truncate = 20
	}
	eopts := expr.Options{TimeZone: env.TimeZone}
	for i, f := range env.Schema {
		col := &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
		c, err := expr.NewCast(col, sqltypes.StringType, plan.CastTry, eopts)
		if err != nil {
			return nil, err
		}
		s.casts = append(s.casts, c)
	}
	return s, nil
}

// sessionLocation loads the session time zone ("" is UTC).
func sessionLocation(tz string) (*time.Location, error) {
	if tz == "" {
		return time.UTC, nil
	}
	loc, err := expr.LoadZone(tz)
	if err != nil {
		return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_CONF_VALUE.TIME_ZONE", "22022",
			"The value '%s' in the config \"spark.sql.session.timeZone\" is invalid. Cannot resolve the given timezone.", tz).
			WithParams("confValue", tz, "confName", "spark.sql.session.timeZone")
	}
	return loc, nil
}

// Description implements Sink (Spark reports the ConsoleTable singleton's toString).
func (s *consoleSink) Description() string {
	return "org.apache.spark.sql.execution.streaming.ConsoleTable$" + objectID
}

// Parallelism implements Sink: one partition prints each epoch whole.
func (s *consoleSink) Parallelism(int) int { return 1 }

// OutputRows implements Sink.
func (s *consoleSink) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *consoleSink) NewOperator(env flow.Env) (flow.Operator, error) {
	ectx := &expr.Context{Mem: env.Mem, Location: s.loc}
	return &epochOperator{
		log:     sinks.NewChangelog(s.env.Mode, env.Mem),
		commits: &s.commits,
		written: &s.written,
		write: func(_ context.Context, epoch int64, recs []arrow.RecordBatch) error {
			text, err := s.render(ectx, epoch, recs)
			if err != nil {
				return err
			}
			if s.env.Stdout == nil {
				return nil
			}
			if _, err := s.env.Stdout.Write([]byte(text)); err != nil {
				return sparkerr.Internal("console sink: %v", err).Wrap(err)
			}
			return nil
		},
	}, nil
}

// consoleBanner is the line ConsoleWrite prints around the batch label.
const consoleBanner = "-------------------------------------------\n"

// render is what ConsoleWrite prints for an epoch: the banner, "Batch: N", the banner, then
// show()'s output followed by println's newline.
func (s *consoleSink) render(ectx *expr.Context, epoch int64, recs []arrow.RecordBatch) (string, error) {
	rows, err := s.stringRows(ectx, recs, max(s.numRows, 0)+1)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(consoleBanner)
	b.WriteString("Batch: ")
	b.WriteString(strconv.FormatInt(epoch, 10))
	b.WriteString("\n")
	b.WriteString(consoleBanner)
	b.WriteString(showstring.Format(s.env.Schema.Names(), rows, s.numRows, s.truncate, false))
	b.WriteString("\n")
	return b.String(), nil
}

// stringRows casts up to limit rows of recs to strings with Spark's cast rules (NULL for null).
func (s *consoleSink) stringRows(ectx *expr.Context, recs []arrow.RecordBatch, limit int) ([][]string, error) {
	var rows [][]string
	for _, rec := range recs {
		if len(rows) >= limit {
			break
		}
		if int(rec.NumCols()) != len(s.casts) {
			return nil, sparkerr.Internal("console sink: batch has %d columns, the query's schema %d", rec.NumCols(), len(s.casts))
		}
		part := rec.NewSlice(0, int64(min(int(rec.NumRows()), limit-len(rows))))
		cells, err := s.castRows(ectx, part)
		part.Release()
		if err != nil {
			return nil, err
		}
		rows = append(rows, cells...)
	}
	return rows, nil
}

// castRows renders every row of rec.
func (s *consoleSink) castRows(ectx *expr.Context, rec arrow.RecordBatch) ([][]string, error) {
	cols := make([]*array.String, 0, len(s.casts))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, c := range s.casts {
		a, err := c.Eval(ectx, rec)
		if err != nil {
			return nil, err
		}
		sa, ok := a.(*array.String)
		if !ok {
			a.Release()
			return nil, sparkerr.Internal("console sink: cast to string gave %s", a.DataType())
		}
		cols = append(cols, sa)
	}
	rows := make([][]string, rec.NumRows())
	for r := range rows {
		row := make([]string, len(cols))
		for c, a := range cols {
			if a.IsNull(r) {
				row[c] = "NULL"
			} else {
				row[c] = a.Value(r)
			}
		}
		rows[r] = row
	}
	return rows, nil
}
