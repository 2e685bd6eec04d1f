package operators

import (
	"bytes"
	"context"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// A Window operator's spill. While the buffered input fits WindowSpec.Budget, the operator keeps
// it in memory and computes everything at end of data. Once it outgrows the budget, the buffered
// rows (and every row after them) move to a scratch store (state.Spill) under
//
//	encoded partition key (rowCodec: equal keys encode alike, self-delimiting) + seq (8 bytes)
//	→ the row's user columns (rowCodec)
//
// so a window partition's rows are one contiguous run of the store in arrival order. At end of
// data the store is scanned once, and each partition is decoded, sorted and computed on its own:
// memory holds one window partition at a time (a single partition larger than the budget is
// still held whole, as Spark's WindowExec buffers one partition).

// windowSpill is the spilled input of a Window operator.
type windowSpill struct {
	store *state.Spill
	keys  *rowCodec // the partition keys
	rows  *rowCodec // the user columns
	seq   uint64
	kbuf  []byte
	vbuf  []byte
}

// spillBuffered moves the buffered records to the store (opening it on first use).
func (w *windowOp) spillBuffered() error {
	if w.spill == nil {
		sp, err := w.openSpill()
		if err != nil {
			return err
		}
		w.spill = sp
	}
	for _, rec := range w.recs {
		if err := w.spillRecord(rec); err != nil {
			return err
		}
	}
	releaseRecords(w.recs)
	w.recs, w.bytes = nil, 0
	return nil
}

func (w *windowOp) openSpill() (*windowSpill, error) {
	in := flow.UserSchema(w.inSchema()).Fields()
	keyFields := make([]arrow.Field, len(w.spec.PartitionBy))
	for i, p := range w.spec.PartitionBy {
		keyFields[i] = arrow.Field{Name: p.String(), Type: w.arrowType(p), Nullable: true}
	}
	keys, err := newRowCodec(keyFields)
	if err != nil {
		return nil, err
	}
	rows, err := newRowCodec(in)
	if err != nil {
		return nil, sparkerr.Unsupported("spilling a window function's input with these column types: %v", err).Wrap(err)
	}
	store, err := state.OpenSpill(w.spec.Budget.Dir)
	if err != nil {
		return nil, err
	}
	return &windowSpill{store: store, keys: keys, rows: rows}, nil
}

// arrowType is the Arrow type of e's values (the time zone does not matter: the partition
// keys are only encoded, never decoded).
func (w *windowOp) arrowType(e expr.Expr) arrow.DataType { return sqltypes.ToArrow(e.Type(), "UTC") }

// spillRecord writes one input batch's rows to the store.
func (w *windowOp) spillRecord(rec arrow.RecordBatch) error {
	sp := w.spill
	user := flow.UserColumns(rec)
	defer user.Release()
	keys, err := evalUser(w.ctx, w.spec.PartitionBy, user)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	cols := user.Columns()
	b := sp.store.NewBatch()
	for i := 0; i < int(user.NumRows()); i++ {
		sp.kbuf = sp.keys.encode(sp.kbuf[:0], keys, i)
		sp.kbuf = binary.BigEndian.AppendUint64(sp.kbuf, sp.seq)
		sp.seq++
		sp.vbuf = sp.rows.encode(sp.vbuf[:0], cols, i)
		if err := b.Put(sp.kbuf, sp.vbuf); err != nil {
			b.Close()
			return err
		}
	}
	return b.Commit()
}

// drainSpill computes the spilled input partition by partition, in store order.
func (w *windowOp) drainSpill(ctx context.Context, out flow.Emitter) error {
	sp := w.spill
	cur, err := sp.store.Cursor()
	if err != nil {
		return err
	}
	defer cur.Close()
	var part []byte
	var rows [][]byte
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		cols, err := sp.rows.decode(w.env.Mem, rows)
		if err != nil {
			return err
		}
		defer releaseAll(cols)
		rows = rows[:0]
		return w.computeAndEmit(ctx, cols, out)
	}
	err = cur.Scan(nil, nil, func(k, v []byte) error {
		key := k[:len(k)-8]
		if part != nil && !bytes.Equal(part, key) {
			if err := flush(); err != nil {
				return err
			}
		}
		part = append(part[:0], key...)
		rows = append(rows, append([]byte(nil), v...))
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// closeSpill removes the store.
func (w *windowOp) closeSpill() {
	if w.spill != nil {
		_ = w.spill.store.Close()
		w.spill = nil
	}
}

// recordBytes is the memory of a batch's columns.
func recordBytes(rec arrow.RecordBatch) int64 {
	n := int64(0)
	for _, c := range rec.Columns() {
		n += int64(c.Data().SizeInBytes())
	}
	return n
}
