package expr

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// StateEncoder writes checkpointed operator and accumulator state in a compact binary form:
// fixed-width little-endian numbers, length-prefixed slices. Large state (millions of groups)
// encodes at memory speed, which a checkpoint's synchronous part needs.
type StateEncoder struct{ buf []byte }

// Grow makes room for n more bytes (callers that know the encoded size avoid re-copying large
// buffers as they grow).
func (e *StateEncoder) Grow(n int) { e.buf = slices.Grow(e.buf, n) }

// Bytes returns the encoded state.
func (e *StateEncoder) Bytes() []byte { return e.buf }

// Int writes one integer.
func (e *StateEncoder) Int(v int64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(v)) }

// Ints writes a slice of integers.
func (e *StateEncoder) Ints(xs []int64) {
	e.buf = slices.Grow(e.buf, 8+8*len(xs))
	e.Int(int64(len(xs)))
	for _, x := range xs {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(x))
	}
}

// Floats writes a slice of floats.
func (e *StateEncoder) Floats(xs []float64) {
	e.buf = slices.Grow(e.buf, 8+8*len(xs))
	e.Int(int64(len(xs)))
	for _, x := range xs {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(x))
	}
}

// Bools writes a slice of booleans.
func (e *StateEncoder) Bools(xs []bool) {
	e.buf = slices.Grow(e.buf, 8+len(xs))
	e.Int(int64(len(xs)))
	for _, x := range xs {
		b := byte(0)
		if x {
			b = 1
		}
		e.buf = append(e.buf, b)
	}
}

// Blob writes a byte string.
func (e *StateEncoder) Blob(b []byte) {
	e.buf = slices.Grow(e.buf, 8+len(b))
	e.Int(int64(len(b)))
	e.buf = append(e.buf, b...)
}

// Blobs writes a slice of byte strings.
func (e *StateEncoder) Blobs(bs [][]byte) {
	n := 8
	for _, b := range bs {
		n += 8 + len(b)
	}
	e.buf = slices.Grow(e.buf, n)
	e.Int(int64(len(bs)))
	for _, b := range bs {
		e.Blob(b)
	}
}

// StateDecoder reads what a StateEncoder wrote, in the same order. The first malformed read
// sets Err; later reads return zero values.
type StateDecoder struct {
	buf []byte
	Err error
}

// NewStateDecoder reads data.
func NewStateDecoder(data []byte) *StateDecoder { return &StateDecoder{buf: data} }

func (d *StateDecoder) take(n int64) []byte {
	if d.Err != nil {
		return nil
	}
	if n < 0 || n > int64(len(d.buf)) {
		d.Err = fmt.Errorf("expr: decoding state: truncated (need %d bytes, have %d)", n, len(d.buf))
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

// Int reads one integer.
func (d *StateDecoder) Int() int64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// Ints reads a slice of integers.
func (d *StateDecoder) Ints() []int64 {
	n := d.Int()
	b := d.take(n * 8)
	if b == nil {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// Floats reads a slice of floats.
func (d *StateDecoder) Floats() []float64 {
	n := d.Int()
	b := d.take(n * 8)
	if b == nil {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// Bools reads a slice of booleans.
func (d *StateDecoder) Bools() []bool {
	n := d.Int()
	b := d.take(n)
	if b == nil {
		return nil
	}
	out := make([]bool, n)
	for i, x := range b {
		out[i] = x != 0
	}
	return out
}

// Blob reads a byte string (aliasing the decoded data).
func (d *StateDecoder) Blob() []byte { return d.take(d.Int()) }

// Blobs reads a slice of byte strings.
func (d *StateDecoder) Blobs() [][]byte {
	n := d.Int()
	if d.Err != nil || n < 0 || n > int64(len(d.buf)) {
		if d.Err == nil {
			d.Err = fmt.Errorf("expr: decoding state: bad count %d", n)
		}
		return nil
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = d.Blob()
	}
	return out
}
