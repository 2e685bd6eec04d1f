package engine

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/pyworker"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// Python conf keys: the bound on a session's concurrently running Python workers, and the
// pandas conversion settings Spark's ArrowPythonRunner passes to every worker.
const (
	PythonMaxWorkersConf       = planner.PythonMaxWorkersConf
	arrowSafeConversionConf    = "spark.sql.execution.pandas.convertToArrowArraySafely"
	assignColumnsByNameConf    = "spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName"
	defaultMaxRecordsPerBatch  = 10000
	defaultAssignColumnsByName = "true"
)

// pythonState is a session's Python side: the interpreter its workers run, the runner that
// starts them, and the functions registered with spark.udf.register and spark.udtf.register.
type pythonState struct {
	path   string
	runner operators.PythonRunner
	mu     sync.Mutex
	funcs  map[string]*plan.PythonUDF
	// tableFuncs are the Python UDTFs registered with spark.udtf.register.
	tableFuncs map[string]*plan.PythonUDTF
	// pool is the session's worker pool, made at the first use when path is set and no runner
	// was given; Close closes it. poolSize is its MaxWorkers.
	pool     *pyworker.Pool
	poolSize int
	// analyzePool runs UDTF analyze methods (python_udtf_analyze.go), made at the first use.
	analyzePool *pyworker.Pool
	// logs are the records the pools' workers logged (python_worker_logs.go).
	logs pythonWorkerLogs
}

// defaultPythonWorkers is spark.weir.python.maxWorkers' default: room for several Python
// operators per partition (each holds a worker, ≈ 60 MB with pandas, while its partition runs;
// Spark runs one per task and Python node with no bound), so a select with a dozen pandas UDFs
// runs on a small box.
func defaultPythonWorkers() int { return max(32, 8*flow.DefaultParallelism()) }

// poolRunner runs one plan's Python functions on the session's pyworker.Pool, on the plan's
// reservation of workers (the planner sets its need).
type poolRunner struct{ res *pyworker.Reservation }

// Open implements operators.PythonRunner.
func (r poolRunner) Open(ctx context.Context, t pyworker.Task) (operators.PythonStream, error) {
	st, err := r.res.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// SetNeed implements operators.PythonWorkerReserver.
func (r poolRunner) SetNeed(n int) { r.res.SetNeed(n) }

// pythonRunner is the runner of one plan of the session and how many workers the session runs
// at once for plans that fit (0: no bound): the one given, else a new reservation on the
// session's pool (started lazily; its size is spark.weir.python.maxWorkers when it starts),
// else nil.
func (s *Session) pythonRunner() (operators.PythonRunner, int) {
	if s.python.runner != nil {
		return s.python.runner, 0
	}
	if s.python.path == "" {
		return nil, 0
	}
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	if s.python.pool == nil {
		s.python.poolSize = int(s.conf.Int(PythonMaxWorkersConf, int64(defaultPythonWorkers())))
		s.python.pool = pyworker.NewPool(s.loggingPool(pyworker.PoolConfig{Python: s.python.path, MaxWorkers: s.python.poolSize}))
	}
	return poolRunner{s.python.pool.NewReservation()}, s.python.poolSize
}

// closePython kills the session's Python workers (the session ends); a later plan starts a
// new pool.
func (s *Session) closePython() {
	s.python.mu.Lock()
	pool, analyze := s.python.pool, s.python.analyzePool
	s.python.pool, s.python.analyzePool = nil, nil
	s.python.mu.Unlock()
	if pool != nil {
		_ = pool.Close()
	}
	if analyze != nil {
		_ = analyze.Close()
	}
}

// WithPython sets the Python interpreter (with PySpark) the session's workers run (--python).
func WithPython(path string) SessionOption { return func(s *Session) { s.python.path = path } }

// WithPythonRunner sets what runs the session's Python functions: the worker pool, or a fake
// in tests. Without one, plans calling Python functions fail.
func WithPythonRunner(r operators.PythonRunner) SessionOption {
	return func(s *Session) { s.python.runner = r }
}

// registerPython is spark.udf.register of a Python function: SQL text of the session may call
// it by name (case-insensitively), shadowing a builtin of that name.
func (s *Session) registerPython(c plan.RegisterPythonFunction) (*Result, error) {
	if c.Func == nil || c.Func.Name == "" {
		return nil, sparkerr.IllegalArgument("spark.udf.register needs a function name")
	}
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	if s.python.funcs == nil {
		s.python.funcs = map[string]*plan.PythonUDF{}
	}
	f := *c.Func
	f.Args, f.ArgNames = nil, nil
	s.python.funcs[strings.ToLower(f.Name)] = &f
	return s.empty()
}

// registerPythonTable is spark.udtf.register of a Python UDTF: SQL text of the session may call
// it by name (case-insensitively) in FROM, shadowing a builtin table function of that name.
func (s *Session) registerPythonTable(c plan.RegisterPythonTableFunction) (*Result, error) {
	if c.Func == nil || c.Func.Name == "" {
		return nil, sparkerr.IllegalArgument("spark.udtf.register needs a function name")
	}
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	if s.python.tableFuncs == nil {
		s.python.tableFuncs = map[string]*plan.PythonUDTF{}
	}
	f := *c.Func
	f.Args, f.ArgNames = nil, nil
	s.python.tableFuncs[strings.ToLower(f.Name)] = &f
	return s.empty()
}

// pythonTableFunction looks a registered Python UDTF up by lower-cased name.
func (s *Session) pythonTableFunction(name string) (*plan.PythonUDTF, bool) {
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	f, ok := s.python.tableFuncs[name]
	return f, ok
}

// pythonFunction looks a registered Python function up by lower-cased name.
func (s *Session) pythonFunction(name string) (*plan.PythonUDF, bool) {
	s.python.mu.Lock()
	defer s.python.mu.Unlock()
	f, ok := s.python.funcs[name]
	return f, ok
}

// pythonSpec is what one plan's Python operators run with (call it once per plan: its runner
// holds the plan's reservation), or nil without a runner: the runner and the runner conf Spark's ArrowPythonRunner sends (session time zone, batch size,
// the pandas conversion settings).
// faultHandler is Spark's SQLConf.pythonUDFWorkerFaulthandlerEnabled: the SQL conf, falling back
// to spark.python.worker.faulthandler.enabled (default false).
func (s *Session) faultHandler() bool {
	return s.conf.Bool(pyworker.FaultHandlerConf, s.conf.Bool(pyworker.WorkerFaultHandlerConf, false))
}

func (s *Session) pythonSpec() *operators.PythonSpec {
	runner, maxWorkers := s.pythonRunner()
	if runner == nil {
		return nil
	}
	maxRecords := int(s.conf.Int(conf.MaxRecordsPerBatchKey, defaultMaxRecordsPerBatch))
	return &operators.PythonSpec{
		Runner: runner,
		Conf: map[string]string{
			conf.TimeZoneKey:           s.timeZone(),
			conf.MaxRecordsPerBatchKey: strconv.Itoa(maxRecords),
			arrowSafeConversionConf:    s.conf.GetOr(arrowSafeConversionConf, "false"),
			assignColumnsByNameConf:    s.conf.GetOr(assignColumnsByNameConf, defaultAssignColumnsByName),
			pyworker.FaultHandlerConf:  strconv.FormatBool(s.faultHandler()),
		},
		MaxRecordsPerBatch: maxRecords,
		MaxWorkers:         maxWorkers,
	}
}
