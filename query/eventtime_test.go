package query

import (
	"sync/atomic"
	"testing"

	"github.com/weirhq/weir/barrier"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestEventTimeProgressBeforeAnyWatermark(t *testing.T) {
	if got, _, _ := eventTimeProgress(&planner.Observers{}, barrier.PolicyMin); len(got) != 0 {
		t.Fatalf("without withWatermark: %v", got)
	}
}

func TestDroppedSinceIsPerEpoch(t *testing.T) {
	c := new(atomic.Int64)
	q := &Query{observers: planner.Observers{Aggregates: []*atomic.Int64{nil, c}}}
	c.Add(3)
	if got := q.droppedSince(); got[0] != 0 || got[1] != 3 {
		t.Fatalf("first epoch: %v", got)
	}
	c.Add(2)
	if got := q.droppedSince(); got[1] != 2 {
		t.Fatalf("second epoch: %v", got)
	}
}

func TestEventTimeKeyedAggregates(t *testing.T) {
	scan := &logical.SourceScan{Format: "rate", Streaming: true,
		Out: sqltypes.Schema{{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true}, {Name: "value", Type: sqltypes.LongType}}}
	ts := &expr.Column{Index: 0, Name: "timestamp", T: sqltypes.TimestampType, Null: true}
	value := &expr.Column{Index: 1, Name: "value", T: sqltypes.LongType}
	wm := &logical.Watermark{Input: scan, Column: 0, Delay: 1e6, DelayText: "1 second"}
	byTime := &logical.Aggregate{Input: wm, Groups: []expr.Expr{ts}}
	byValue := &logical.Aggregate{Input: wm, Groups: []expr.Expr{value}}
	noWatermark := &logical.Aggregate{Input: scan, Groups: []expr.Expr{ts}}
	if !eventTimeKeyed([]*logical.Aggregate{byTime}) {
		t.Error("grouping on the watermarked column")
	}
	if eventTimeKeyed([]*logical.Aggregate{byTime, byValue}) || eventTimeKeyed([]*logical.Aggregate{noWatermark}) {
		t.Error("aggregates without an event-time key")
	}
}
