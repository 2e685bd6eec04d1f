package query

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
)

// epochSink is a test sink recording, per epoch, one value per row (read from the batch's
// user columns by its format's row function); an epoch that runs again replaces its record,
// as an idempotent sink does. The sinks of a format are shared by their "id" option, so a
// restarted query writes to the one its first run wrote to.
type epochSink[T any] struct {
	row    func(rec arrow.RecordBatch, i int) (T, error)
	mu     sync.Mutex
	epochs map[int64][]T
}

// epochSinks are the sinks of one test format, by id.
type epochSinks[T any] struct {
	mu   sync.Mutex
	byID map[string]*epochSink[T]
}

// registerEpochSink registers format as an append-mode epochSink whose rows row reads.
func registerEpochSink[T any](format string, row func(rec arrow.RecordBatch, i int) (T, error)) *epochSinks[T] {
	all := &epochSinks[T]{byID: map[string]*epochSink[T]{}}
	connectors.Register(connectors.Format{Name: format, Sink: func(env sinks.Env, options map[string]string) (sinks.Sink, error) {
		all.mu.Lock()
		defer all.mu.Unlock()
		s, ok := all.byID[options["id"]]
		if !ok {
			s = &epochSink[T]{row: row, epochs: map[int64][]T{}}
			all.byID[options["id"]] = s
		}
		return s, nil
	}, OutputModes: []flow.OutputMode{flow.OutputAppend}})
	return all
}

// get is the sink of id (nil before a query opened it).
func (all *epochSinks[T]) get(id string) *epochSink[T] {
	all.mu.Lock()
	defer all.mu.Unlock()
	return all.byID[id]
}

func (s *epochSink[T]) Description() string { return "EpochSink" }
func (s *epochSink[T]) Parallelism(int) int { return 1 }
func (s *epochSink[T]) OutputRows() int64   { return 0 }
func (s *epochSink[T]) NewOperator(flow.Env) (flow.Operator, error) {
	return &epochSinkOp[T]{s: s}, nil
}

type epochSinkOp[T any] struct {
	s   *epochSink[T]
	cur []T
}

func (o *epochSinkOp[T]) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	for i := 0; i < int(rec.NumRows()); i++ {
		v, err := o.s.row(rec, i)
		if err != nil {
			return err
		}
		o.cur = append(o.cur, v)
	}
	return nil
}

func (o *epochSinkOp[T]) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.epochs[epoch] = o.cur
	o.cur = nil
	return nil
}

// epoch is what epoch e wrote.
func (s *epochSink[T]) epoch(e int64) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epochs[e]
}

// all is everything written, in epoch order.
func (s *epochSink[T]) all() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	for e := int64(0); e <= s.lastEpochLocked(); e++ {
		out = append(out, s.epochs[e]...)
	}
	return out
}

// lastEpoch is the last epoch the sink got (-1: none).
func (s *epochSink[T]) lastEpoch() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastEpochLocked()
}

func (s *epochSink[T]) lastEpochLocked() int64 {
	last := int64(-1)
	for e := range s.epochs {
		last = max(last, e)
	}
	return last
}
