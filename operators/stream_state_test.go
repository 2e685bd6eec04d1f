package operators

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A keyedRows capture writes the live rows as they were at the capture, whatever happens to
// the live state before the write: rows removed, matched or added later are not in it, and
// a removed row's batch stays readable.
func TestKeyedRowsCaptureIsImmutable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := newKeyedRows(mem)
	defer s.release()
	add := func(keys ...int64) {
		b := array.NewInt64Builder(mem)
		b.AppendValues(keys, nil)
		a := b.NewArray()
		b.Release()
		defer a.Release()
		cols := []arrow.Array{a}
		hs := make([]uint64, len(keys))
		hashColumns(cols, 0, hs)
		times := make([]int64, len(keys))
		idx := make([]int64, len(keys))
		for i := range keys {
			times[i] = 100 * keys[i]
			idx[i] = int64(i)
		}
		if err := s.add(cols, cols, hs, times, idx, nil); err != nil {
			t.Fatal(err)
		}
	}
	add(1, 2, 3)
	add(4)
	s.remove(rowRef{0, 1}) // key 2
	c := s.capture()
	// After the capture: key 4's batch goes entirely, key 1 is matched, key 5 arrives.
	s.remove(rowRef{1, 0})
	s.batches[0].matched[0] = true
	add(5)
	var buf bytes.Buffer
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}
	err := c.write(&buf, fields)
	c.release()
	if err != nil {
		t.Fatal(err)
	}
	cols, times, matched, err := readSnapshot(mem, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(cols)
	keys := cols[0].(*array.Int64).Int64Values()
	want := []int64{1, 3, 4}
	if len(keys) != len(want) {
		t.Fatalf("captured keys %v, want %v", keys, want)
	}
	for i, k := range want {
		if keys[i] != k || times[i] != 100*k || matched[i] {
			t.Fatalf("row %d: key %d time %d matched %v, want key %d time %d unmatched", i, keys[i], times[i], matched[i], k, 100*k)
		}
	}
}
