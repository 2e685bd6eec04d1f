package pyworker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// AnalyzeUDTFModule is the planner worker that runs a Python UDTF's static analyze method
// (UserDefinedPythonTableFunctionAnalyzeRunner's workerModule); a Pool whose Module it is serves
// AnalyzeUDTF.
const AnalyzeUDTFModule = "pyspark.sql.worker.analyze_udtf"

// UDTFAnalyzeArg is one argument of a UDTF call as analyze receives it (an AnalyzeArgument).
type UDTFAnalyzeArg struct {
	// TypeJSON is the argument's Spark type as JSON (a struct of the table's columns for a
	// TABLE argument).
	TypeJSON string
	// Value is the pickled value (EvaluatePython.toJava) of a constant argument; nil otherwise.
	Value []byte
	// Constant says the argument is a constant expression (Value holds it).
	Constant bool
	// Table says the argument is a TABLE argument.
	Table bool
	// Name is a named argument's keyword; "" for a positional one.
	Name string
}

// UDTFAnalyzeRequest is one call of a UDTF's analyze method.
type UDTFAnalyzeRequest struct {
	// Name is the function's name, quoted in analyze_udtf.py's error messages.
	Name string
	// Command is the cloudpickled handler class.
	Command []byte
	// PythonVersion is the client's Python version (major.minor), checked by the worker.
	PythonVersion string
	Args          []UDTFAnalyzeArg
	// FaultHandler is the session's FaultHandlerConf: whether a crash quotes the traceback.
	FaultHandler bool
}

// UDTFOrdering is one OrderingColumn of an AnalyzeResult.
type UDTFOrdering struct {
	// Expr is the column's SQL expression text.
	Expr      string
	Ascending bool
	// NullsFirst is 0 for the direction's default, 1 for NULLS FIRST, 2 for NULLS LAST.
	NullsFirst int
}

// UDTFSelected is one SelectedColumn of an AnalyzeResult.
type UDTFSelected struct {
	// Expr is the SQL expression text; Alias its name ("" when none).
	Expr, Alias string
}

// UDTFAnalysis is what analyze returned (PythonUDTFAnalyzeResult).
type UDTFAnalysis struct {
	// SchemaJSON is the output schema as Spark's JSON (a struct).
	SchemaJSON string
	// Pickled is the pickled AnalyzeResult, which eval's __init__ receives.
	Pickled             []byte
	WithSinglePartition bool
	// PartitionBy are the partitioning columns' SQL expression texts.
	PartitionBy []string
	OrderBy     []UDTFOrdering
	Select      []UDTFSelected
}

// AnalyzeUDTF runs a UDTF's static analyze method on a worker of the pool, whose Module must be
// AnalyzeUDTFModule. The exchange is PythonPlannerRunner's (pyspark.sql.worker.utils.worker_run):
//
//	UTF python version; UTF spark files dir, int 0 includes; bool false + int 0 broadcasts;
//	the runner conf (int 0); then analyze_udtf.py's input: UTF name, the length-prefixed
//	command, int number of arguments, per argument UTF type JSON, bool constant (+ the pickled
//	value), bool table, bool named (+ UTF name); END_OF_STREAM.
//
// The worker answers the schema JSON (or PYTHON_EXCEPTION_THROWN and the traceback), the pickled
// AnalyzeResult, int withSinglePartition, int n + n UTF partitionBy names, int n + n orderBy
// (UTF name, int ascending, int nulls: 0 default, 1 first, 2 last), int n + n select (UTF name,
// UTF alias), then its accumulator updates and END_OF_STREAM when it may be reused. An exception
// in analyze (or in the checks around it) is Spark's
// TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON with the exception's message.
func (p *Pool) AnalyzeUDTF(ctx context.Context, req UDTFAnalyzeRequest) (*UDTFAnalysis, error) {
	if p.cfg.Module != AnalyzeUDTFModule {
		return nil, workerFailure("the Python worker pool of %q does not run %s", p.cfg.Module, AnalyzeUDTFModule)
	}
	if err := p.reserve(ctx, 1); err != nil {
		return nil, err
	}
	defer p.unreserve(1)
	w, filesDir, err := p.worker(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { w.conn.Close() })
	res, reusable, err := analyzeOn(w.bw, w.br, req, filesDir)
	if !stop() {
		reusable = false
		err = fmt.Errorf("pyworker: Python worker %d: %w", w.pid, ctx.Err())
	} else if err != nil {
		var se *sparkerr.Error
		if !errors.As(err, &se) {
			err = p.plannerFailure(w.pid, req.FaultHandler, err)
		}
	}
	p.release(w, reusable && err == nil)
	return res, err
}

// plannerFailure is the error of a planner worker whose socket failed.
func (p *Pool) plannerFailure(pid int, faultHandler bool, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return crashFailure("Python worker", faultHandler, p.faultLog(pid), nil)
	}
	return workerFailure("Python worker %d: %v", pid, err).Wrap(err)
}

// analyzeOn exchanges one analyze request on a worker's buffered socket; it reports whether the
// worker may be reused.
func analyzeOn(bw *bufio.Writer, br *bufio.Reader, req UDTFAnalyzeRequest, filesDir string) (*UDTFAnalysis, bool, error) {
	if err := writeAnalyzeRequest(bw, req, filesDir); err != nil {
		return nil, false, err
	}
	if err := bw.Flush(); err != nil {
		return nil, false, err
	}
	n, err := readInt(br)
	if err != nil {
		return nil, false, err
	}
	if n == PythonExceptionThrown {
		tb, err := readFrame(br)
		if err != nil {
			return nil, false, err
		}
		return nil, false, analyzeFailed(string(tb))
	}
	schema, err := readFrameOf(br, n)
	if err != nil {
		return nil, false, err
	}
	res := &UDTFAnalysis{SchemaJSON: string(schema)}
	if res.Pickled, err = readFrame(br); err != nil {
		return nil, false, err
	}
	single, err := readInt(br)
	if err != nil {
		return nil, false, err
	}
	res.WithSinglePartition = single == 1
	if res.PartitionBy, err = readUTFs(br); err != nil {
		return nil, false, err
	}
	count, err := readCount(br)
	if err != nil {
		return nil, false, err
	}
	for i := 0; i < count; i++ {
		var o UDTFOrdering
		name, err := readFrame(br)
		if err != nil {
			return nil, false, err
		}
		asc, err := readInt(br)
		if err != nil {
			return nil, false, err
		}
		nulls, err := readInt(br)
		if err != nil {
			return nil, false, err
		}
		o.Expr, o.Ascending, o.NullsFirst = string(name), asc == 1, int(nulls)
		res.OrderBy = append(res.OrderBy, o)
	}
	if count, err = readCount(br); err != nil {
		return nil, false, err
	}
	for i := 0; i < count; i++ {
		name, err := readFrame(br)
		if err != nil {
			return nil, false, err
		}
		alias, err := readFrame(br)
		if err != nil {
			return nil, false, err
		}
		res.Select = append(res.Select, UDTFSelected{Expr: string(name), Alias: string(alias)})
	}
	// Accumulator updates (none Weir uses), then END_OF_STREAM when the worker may be reused.
	if count, err = readCount(br); err != nil {
		return nil, false, err
	}
	for i := 0; i < count; i++ {
		if _, err := readFrame(br); err != nil {
			return nil, false, err
		}
	}
	end, err := readInt(br)
	if err != nil {
		return nil, false, err
	}
	return res, end == EndOfStream, nil
}

func writeAnalyzeRequest(w io.Writer, req UDTFAnalyzeRequest, filesDir string) error {
	steps := []func() error{
		func() error { return writeBytes(w, []byte(req.PythonVersion)) },
		func() error { return writeBytes(w, []byte(filesDir)) },
		func() error { return writeInt(w, 0) },                    // no python includes
		func() error { _, err := w.Write([]byte{0}); return err }, // no broadcast decryption server
		func() error { return writeInt(w, 0) },                    // no broadcast variables
		func() error { return writeConf(w, nil) },                 // the runner conf
		func() error { return writeBytes(w, []byte(req.Name)) },
		func() error { return writeBytes(w, req.Command) },
		func() error { return writeInt(w, int32(len(req.Args))) },
	}
	for _, a := range req.Args {
		steps = append(steps,
			func() error { return writeBytes(w, []byte(a.TypeJSON)) },
			func() error {
				if !a.Constant {
					return writeBool(w, false)
				}
				if err := writeBool(w, true); err != nil {
					return err
				}
				return writeBytes(w, a.Value)
			},
			func() error { return writeBool(w, a.Table) },
			func() error {
				if a.Name == "" {
					return writeBool(w, false)
				}
				if err := writeBool(w, true); err != nil {
					return err
				}
				return writeBytes(w, []byte(a.Name))
			})
	}
	steps = append(steps, func() error { return writeInt(w, EndOfStream) })
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// analyzeFailed is Spark's error for an exception raised by analyze: its traceback's message
// after the last "PySparkValueError:" (the checks analyze_udtf.py raises), as
// UserDefinedPythonTableFunctionAnalyzeRunner keeps it.
func analyzeFailed(traceback string) *sparkerr.Error {
	msg := traceback
	if i := strings.LastIndex(msg, "PySparkValueError:"); i >= 0 {
		msg = msg[i+len("PySparkValueError:"):]
	}
	msg = strings.TrimSpace(msg)
	return sparkerr.Analysis("TABLE_VALUED_FUNCTION_FAILED_TO_ANALYZE_IN_PYTHON", "38000",
		"Failed to analyze the Python user defined table function: %s", msg).WithParams("msg", msg)
}

func writeBool(w io.Writer, b bool) error {
	v := byte(0)
	if b {
		v = 1
	}
	_, err := w.Write([]byte{v})
	return err
}

// readFrameOf reads a frame of n bytes whose length was read already.
func readFrameOf(r io.Reader, n int32) ([]byte, error) {
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("protocol error: frame length %d", n)
	}
	p := make([]byte, n)
	_, err := io.ReadFull(r, p)
	return p, err
}

// readCount reads a non-negative count.
func readCount(r io.Reader) (int, error) {
	n, err := readInt(r)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > 1<<20 {
		return 0, fmt.Errorf("protocol error: count %d", n)
	}
	return int(n), nil
}

// readUTFs reads a count then that many UTF strings.
func readUTFs(r io.Reader) ([]string, error) {
	n, err := readCount(r)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < n; i++ {
		s, err := readFrame(r)
		if err != nil {
			return nil, err
		}
		out = append(out, string(s))
	}
	return out, nil
}
