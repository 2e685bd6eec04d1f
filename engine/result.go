package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/operators"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Result is a stream of record batches (user columns only) with a known schema. The caller must
// call Close; Next returns io.EOF after the last batch.
type Result struct {
	Schema sqltypes.Schema
	next   func(ctx context.Context) (arrow.RecordBatch, error)
	close  func()
	// observed are the plan's df.observe nodes (ObservedMetrics).
	observed []*operators.ObservedMetrics
}

// NewResult builds a Result from a pull function and a close function (either may be nil).
func NewResult(schema sqltypes.Schema, next func(ctx context.Context) (arrow.RecordBatch, error), closeFn func()) *Result {
	if next == nil {
		next = func(context.Context) (arrow.RecordBatch, error) { return nil, io.EOF }
	}
	return &Result{Schema: schema, next: next, close: closeFn}
}

// Next returns the next batch, which the caller releases, or io.EOF.
func (r *Result) Next(ctx context.Context) (arrow.RecordBatch, error) { return r.next(ctx) }

// Close releases the result and stops what produces it.
func (r *Result) Close() {
	if r.close != nil {
		r.close()
		r.close = nil
	}
}
