package flow

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Names of the flow-event columns.
const (
	MarkerColumn    = "_marker"
	RetractedColumn = "_retracted"
	// UserOffset is the index of the first user column in a flow-event batch.
	UserOffset = 2
)

// MarkerKind is the kind of a control event.
type MarkerKind uint8

// Marker kinds.
const (
	MarkerBarrier MarkerKind = iota + 1
	MarkerWatermark
	MarkerEndOfData
)

// Marker is a control event travelling in-band.
type Marker struct {
	Kind MarkerKind
	// Epoch of a barrier.
	Epoch int64
	// Timestamp of a watermark, microseconds since the epoch.
	Timestamp int64
}

func (m Marker) String() string {
	switch m.Kind {
	case MarkerBarrier:
		return fmt.Sprintf("Barrier{%d}", m.Epoch)
	case MarkerWatermark:
		return fmt.Sprintf("Watermark{%d}", m.Timestamp)
	case MarkerEndOfData:
		return "EndOfData"
	}
	return fmt.Sprintf("Marker{%d}", m.Kind)
}

func (m Marker) encode() []byte {
	b := make([]byte, 1, 1+binary.MaxVarintLen64)
	b[0] = byte(m.Kind)
	switch m.Kind {
	case MarkerBarrier:
		b = binary.AppendVarint(b, m.Epoch)
	case MarkerWatermark:
		b = binary.AppendVarint(b, m.Timestamp)
	}
	return b
}

func decodeMarker(b []byte) (Marker, error) {
	if len(b) == 0 {
		return Marker{}, fmt.Errorf("flow: empty marker")
	}
	m := Marker{Kind: MarkerKind(b[0])}
	switch m.Kind {
	case MarkerBarrier, MarkerWatermark:
		v, n := binary.Varint(b[1:])
		if n <= 0 {
			return Marker{}, fmt.Errorf("flow: bad marker payload")
		}
		if m.Kind == MarkerBarrier {
			m.Epoch = v
		} else {
			m.Timestamp = v
		}
	case MarkerEndOfData:
	default:
		return Marker{}, fmt.Errorf("flow: unknown marker kind %d", b[0])
	}
	return m, nil
}

// EventSchema prepends the flow-event columns to a user schema.
func EventSchema(user *arrow.Schema) *arrow.Schema {
	fs := make([]arrow.Field, 0, user.NumFields()+UserOffset)
	fs = append(fs,
		arrow.Field{Name: MarkerColumn, Type: arrow.BinaryTypes.Binary, Nullable: true},
		arrow.Field{Name: RetractedColumn, Type: arrow.FixedWidthTypes.Boolean})
	fs = append(fs, user.Fields()...)
	return arrow.NewSchema(fs, nil)
}

// UserSchema strips the flow-event columns from an event schema, keeping its metadata (a
// batch's environment, see EnvSchema). Schemas are immutable: the result may be shared (it is
// memoized, see userSchemas).
func UserSchema(event *arrow.Schema) *arrow.Schema {
	return userSchemas.get(event)
}

// stripEventColumns is UserSchema without the memo.
func stripEventColumns(event *arrow.Schema) *arrow.Schema {
	md := event.Metadata()
	if md.Len() == 0 {
		return arrow.NewSchema(event.Fields()[UserOffset:], nil)
	}
	return arrow.NewSchema(event.Fields()[UserOffset:], &md)
}

// NewDataBatch builds a data batch of event schema from user columns; retracted may be nil
// (all inserts). The batch takes its own references: the caller still releases cols and
// retracted.
func NewDataBatch(mem memory.Allocator, schema *arrow.Schema, cols []arrow.Array, retracted arrow.Array) arrow.RecordBatch {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	} else if retracted != nil {
		n = retracted.Len()
	}
	return NewDataBatchRows(mem, schema, cols, retracted, n)
}

// NewDataBatchRows is NewDataBatch with an explicit row count, for batches without user columns
// (e.g. the single row of SELECT without FROM).
func NewDataBatchRows(mem memory.Allocator, schema *arrow.Schema, cols []arrow.Array, retracted arrow.Array, n int) arrow.RecordBatch {
	all := make([]arrow.Array, 0, len(cols)+UserOffset)
	marker := nullMarkers(mem, n)
	defer marker.Release()
	all = append(all, marker)
	if retracted == nil {
		f := falseArray(mem, n)
		defer f.Release()
		all = append(all, f)
	} else {
		all = append(all, retracted)
	}
	all = append(all, cols...)
	return array.NewRecordBatch(schema, all, int64(n))
}

// NewMarkerBatch builds the one-row batch of schema carrying m; user columns are null.
func NewMarkerBatch(mem memory.Allocator, schema *arrow.Schema, m Marker) arrow.RecordBatch {
	cols := make([]arrow.Array, schema.NumFields())
	mb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	mb.Append(m.encode())
	cols[0] = mb.NewArray()
	mb.Release()
	cols[1] = falseArray(mem, 1)
	for i := UserOffset; i < schema.NumFields(); i++ {
		// A builder, not MakeArrayOfNull, which panics on a NULL-typed child (struct<a: void>).
		b := array.NewBuilder(mem, schema.Field(i).Type)
		b.AppendNull()
		cols[i] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(schema, cols, 1)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// MarkerOf reports whether rec is a marker batch and decodes its marker.
func MarkerOf(rec arrow.RecordBatch) (Marker, bool, error) {
	col := rec.Column(0)
	if rec.NumRows() != 1 || col.NullN() == 1 {
		return Marker{}, false, nil
	}
	m, err := decodeMarker(col.(*array.Binary).Value(0))
	return m, err == nil, err
}

// UserColumns returns a record of rec's user columns (no copy); the caller releases it.
func UserColumns(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := rec.Columns()[UserOffset:]
	return array.NewRecordBatch(UserSchema(rec.Schema()), cols, rec.NumRows())
}

// Retracted returns rec's _retracted column.
func Retracted(rec arrow.RecordBatch) *array.Boolean {
	return rec.Column(1).(*array.Boolean)
}

// HasRetractions reports whether any row of a data batch is a retraction.
func HasRetractions(rec arrow.RecordBatch) bool {
	r := Retracted(rec)
	for i := 0; i < r.Len(); i++ {
		if r.Value(i) {
			return true
		}
	}
	return false
}
