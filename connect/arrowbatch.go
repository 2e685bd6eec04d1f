package connect

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
)

// arrowBatcher turns record batches into arrow_batch responses: each a complete IPC stream
// (schema, one record batch, end of stream) of at most maxRows rows (0: no limit) and about
// maxBytes bytes, with contiguous start offsets. A result without rows still yields one
// zero-row batch that carries the schema. The batches' total size is held to budget.
type arrowBatcher struct {
	schema   *arrow.Schema
	maxRows  int64
	maxBytes int
	alloc    memory.Allocator
	emit     func(*pb.ExecutePlanResponse) error
	budget   *resultBudget // nil: unlimited

	offset int64
	sent   int
}

// add sends rec (which the caller still owns) as one or more responses.
func (b *arrowBatcher) add(rec arrow.RecordBatch) error {
	conformed, err := conformRecord(rec, b.schema)
	if err != nil {
		return err
	}
	defer conformed.Release()
	n := conformed.NumRows()
	if n == 0 {
		return nil
	}
	per := n
	if b.maxRows > 0 && per > b.maxRows {
		per = b.maxRows
	}
	if rowBytes := recordBytes(conformed) / n; rowBytes > 0 && b.maxBytes > 0 {
		if fit := int64(b.maxBytes) / rowBytes; fit < per {
			per = max(fit, 1)
		}
	}
	for start := int64(0); start < n; {
		rows := min(per, n-start)
		slice := conformed.NewSlice(start, start+rows)
		data, err := encodeIPC(b.schema, slice, b.alloc)
		slice.Release()
		if err != nil {
			return err
		}
		if b.maxBytes > 0 && len(data) > b.maxBytes && rows > 1 {
			per = max(rows/2, 1)
			continue
		}
		if err := b.send(data, rows); err != nil {
			return err
		}
		start += rows
	}
	return nil
}

// finish sends the schema-carrying empty batch if nothing was sent.
func (b *arrowBatcher) finish() error {
	if b.sent > 0 {
		return nil
	}
	cols := emptyColumns(b.schema, b.alloc)
	empty := array.NewRecordBatch(b.schema, cols, 0)
	for _, c := range cols {
		c.Release()
	}
	defer empty.Release()
	data, err := encodeIPC(b.schema, empty, b.alloc)
	if err != nil {
		return err
	}
	return b.send(data, 0)
}

func (b *arrowBatcher) send(data []byte, rows int64) error {
	if b.budget != nil {
		if err := b.budget.add(len(data)); err != nil {
			return err
		}
	}
	offset := b.offset
	b.offset += rows
	b.sent++
	return b.emit(&pb.ExecutePlanResponse{
		ResponseType: &pb.ExecutePlanResponse_ArrowBatch_{ArrowBatch: &pb.ExecutePlanResponse_ArrowBatch{
			RowCount:    rows,
			Data:        data,
			StartOffset: &offset,
		}},
	})
}

func emptyColumns(schema *arrow.Schema, alloc memory.Allocator) []arrow.Array {
	cols := make([]arrow.Array, schema.NumFields())
	for i, f := range schema.Fields() {
		cols[i] = array.MakeArrayOfNull(alloc, f.Type, 0)
	}
	return cols
}

// encodeIPC writes one record batch as a complete IPC stream.
func encodeIPC(schema *arrow.Schema, rec arrow.RecordBatch, alloc memory.Allocator) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(alloc))
	if err := w.Write(rec); err != nil {
		_ = w.Close()
		return nil, sparkerr.Internal("encoding Arrow batch: %v", err).Wrap(err)
	}
	if err := w.Close(); err != nil {
		return nil, sparkerr.Internal("encoding Arrow batch: %v", err).Wrap(err)
	}
	return buf.Bytes(), nil
}

// recordBytes estimates a batch's size from its buffers (whole buffers, so slices overcount).
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}

// conformRecord returns rec (retained) under schema: the engine's batches may differ from the
// session's Arrow schema in metadata such as field names or time zones, never in layout.
func conformRecord(rec arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	if rec.Schema().Equal(schema) {
		rec.Retain()
		return rec, nil
	}
	if int(rec.NumCols()) != schema.NumFields() {
		return nil, sparkerr.Internal("result batch has %d columns, schema has %d", rec.NumCols(), schema.NumFields())
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		col := rec.Column(i)
		if arrow.TypeEqual(col.DataType(), f.Type) {
			col.Retain()
			cols[i] = col
			continue
		}
		if col.DataType().ID() != f.Type.ID() {
			return nil, sparkerr.Internal("result column %q is %s, schema says %s", f.Name, col.DataType(), f.Type)
		}
		d := col.Data()
		nd := array.NewData(f.Type, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(nd)
		nd.Release()
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}
