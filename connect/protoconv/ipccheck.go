package protoconv

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// checkIPCStream walks the framing and flatbuffer metadata of an Arrow IPC stream and rejects
// counts that cannot fit in the bytes that carry them. arrow-go's reader sizes slices from
// those counts before checking them (schema fields, field children, custom metadata, variadic
// buffer counts), so one corrupt length could make it allocate gigabytes; buffer contents and
// everything else are left to the reader.
func checkIPCStream(data []byte) error {
	for pos := 0; pos < len(data); {
		if len(data)-pos < 4 {
			return errors.New("truncated message length")
		}
		n := binary.LittleEndian.Uint32(data[pos:])
		pos += 4
		if n == 0xFFFFFFFF { // continuation token, then the length
			if len(data)-pos < 4 {
				return errors.New("truncated message length")
			}
			n = binary.LittleEndian.Uint32(data[pos:])
			pos += 4
		}
		if n == 0 { // end of stream
			return nil
		}
		if uint64(n) > uint64(len(data)-pos) {
			return fmt.Errorf("message metadata length %d exceeds the %d bytes left", n, len(data)-pos)
		}
		meta := flatBuf(data[pos : pos+int(n)])
		pos += int(n)
		body, err := meta.checkMessage()
		if err != nil {
			return err
		}
		if body < 0 || body > int64(len(data)-pos) {
			return fmt.Errorf("message body length %d exceeds the %d bytes left", body, len(data)-pos)
		}
		pos += int(body)
	}
	return nil
}

// flatBuf reads just enough of the flatbuffers encoding to check vector lengths.
type flatBuf []byte

var errFlatBuffer = errors.New("malformed flatbuffer metadata")

func (b flatBuf) u32(at int) (int, bool) {
	if at < 0 || at > len(b)-4 {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(b[at:])), true
}

// table returns the position of the table at at and its vtable.
func (b flatBuf) table(at int) (tbl, vt int, ok bool) {
	soff, ok := b.u32(at)
	if !ok {
		return 0, 0, false
	}
	vt = at - int(int32(soff))
	if vt < 0 || vt > len(b)-4 {
		return 0, 0, false
	}
	return at, vt, true
}

// field returns the absolute position of field i of a table, or -1 when absent. A field is
// present exactly when flatbuffers' Table.Offset finds it (its slot starts inside the vtable's
// stated size, even when an odd size cuts the slot short); a slot outside the buffer then counts
// as present at a position no vector fits, so the callers refuse it.
func (b flatBuf) field(tbl, vt, i int) int {
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	slot := 4 + 2*i
	if slot >= vtSize {
		return -1
	}
	if vt+slot+2 > len(b) {
		return len(b)
	}
	off := int(binary.LittleEndian.Uint16(b[vt+slot:]))
	if off == 0 {
		return -1
	}
	return tbl + off
}

// ref follows the offset stored at field i to the object it points at, or -1.
func (b flatBuf) ref(tbl, vt, i int) (int, error) {
	at := b.field(tbl, vt, i)
	if at < 0 {
		return -1, nil
	}
	off, ok := b.u32(at)
	if !ok || at+off >= len(b) {
		return 0, errFlatBuffer
	}
	return at + off, nil
}

// vector checks the vector at field i holds elements of elemSize bytes within the buffer and
// returns its element start and count (count 0 when absent).
func (b flatBuf) vector(tbl, vt, i, elemSize int) (start, n int, err error) {
	at, err := b.ref(tbl, vt, i)
	if err != nil || at < 0 {
		return 0, 0, err
	}
	n, ok := b.u32(at)
	if !ok || n > (len(b)-at-4)/elemSize {
		return 0, 0, errFlatBuffer
	}
	return at + 4, n, nil
}

// tables checks a vector of tables at field i, calling check on each.
func (b flatBuf) tables(tbl, vt, i int, check func(tbl, vt int) error) error {
	start, n, err := b.vector(tbl, vt, i, 4)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		at := start + 4*k
		off, _ := b.u32(at)
		t, v, ok := b.table(at + off)
		if !ok {
			return errFlatBuffer
		}
		if err := check(t, v); err != nil {
			return err
		}
	}
	return nil
}

func (b flatBuf) noCheck(int, int) error { return nil }

// checkMessage checks a Message table and returns its body length.
func (b flatBuf) checkMessage() (int64, error) {
	root, ok := b.u32(0)
	if !ok {
		return 0, errFlatBuffer
	}
	msg, vt, ok := b.table(root)
	if !ok {
		return 0, errFlatBuffer
	}
	// Message: version 0, header_type 1, header 2, bodyLength 3, custom_metadata 4.
	if err := b.tables(msg, vt, 4, b.noCheck); err != nil {
		return 0, err
	}
	var bodyLen int64
	if at := b.field(msg, vt, 3); at >= 0 {
		if at > len(b)-8 {
			return 0, errFlatBuffer
		}
		bodyLen = int64(binary.LittleEndian.Uint64(b[at:]))
	}
	headerType := 0
	if at := b.field(msg, vt, 1); at >= 0 {
		if at >= len(b) {
			return 0, errFlatBuffer
		}
		headerType = int(b[at])
	}
	header, err := b.ref(msg, vt, 2)
	if err != nil || header < 0 {
		return bodyLen, err
	}
	h, hvt, ok := b.table(header)
	if !ok {
		return 0, errFlatBuffer
	}
	switch headerType {
	case 1: // Schema: fields 1, custom_metadata 2.
		if err := b.tables(h, hvt, 2, b.noCheck); err != nil {
			return 0, err
		}
		return bodyLen, b.tables(h, hvt, 1, b.checkField(0))
	case 2: // DictionaryBatch: id 0, data 1 (RecordBatch).
		data, err := b.ref(h, hvt, 1)
		if err != nil || data < 0 {
			return bodyLen, err
		}
		d, dvt, ok := b.table(data)
		if !ok {
			return 0, errFlatBuffer
		}
		return bodyLen, b.checkRecordBatch(d, dvt)
	case 3:
		return bodyLen, b.checkRecordBatch(h, hvt)
	}
	return bodyLen, nil
}

// checkField checks a Field: name 0, dictionary 4, children 5, custom_metadata 6.
func (b flatBuf) checkField(depth int) func(tbl, vt int) error {
	return func(tbl, vt int) error {
		if depth > 64 {
			return errors.New("schema nested too deeply")
		}
		if _, _, err := b.vector(tbl, vt, 0, 1); err != nil {
			return err
		}
		if err := b.tables(tbl, vt, 6, b.noCheck); err != nil {
			return err
		}
		return b.tables(tbl, vt, 5, b.checkField(depth+1))
	}
}

// checkRecordBatch checks a RecordBatch: nodes 1 (16-byte structs), buffers 2 (16-byte
// structs), variadicBufferCounts 4 (int64s, each at most the number of buffers).
func (b flatBuf) checkRecordBatch(tbl, vt int) error {
	if _, _, err := b.vector(tbl, vt, 1, 16); err != nil {
		return err
	}
	_, nbufs, err := b.vector(tbl, vt, 2, 16)
	if err != nil {
		return err
	}
	start, n, err := b.vector(tbl, vt, 4, 8)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		c := int64(binary.LittleEndian.Uint64(b[start+8*k:]))
		if c < 0 || c > int64(nbufs) {
			return errFlatBuffer
		}
	}
	return nil
}
