package expr

import (
	"math"
	"unicode/utf16"
)

// freqItems is Apache DataSketches' frequencies ItemsSketch (datasketches-java 6.2, which Spark
// 4.2's approx_top_k uses), followed step by step so that its counts, and the order of equal
// counts, are Spark's: a ReversePurgeItemHashMap of items (linear probing from DataSketches'
// 64-bit mix of the item's Java hashCode) that starts at 8 slots and doubles while more than
// 3/4 full, up to maxMapSize; past that a purge subtracts the median of the first 1024 counts
// (QuickSelect) from every count, drops those left at or below zero, and adds the median to the
// error offset.
type freqItems struct {
	lgMaxMapSize int
	m            freqMap
	offset       int64
	// stream is the stream weight: the sum of the counts given to update.
	stream int64
}

// freqMap is ReversePurgeItemHashMap: keys are comparable Go values (floats by their Java
// bits, see freqKey), items the values reported; states hold each slot's probe distance + 1.
type freqMap struct {
	keys, items []any
	hashes      []int32
	values      []int64
	states      []int16
	numActive   int
}

const freqLgMinMapSize = 3

func newFreqItems(maxMapSize int) *freqItems {
	f := &freqItems{lgMaxMapSize: max(freqLgMinMapSize, bitsLen(maxMapSize)-1)}
	f.m.init(1 << freqLgMinMapSize)
	return f
}

func bitsLen(n int) int {
	l := 0
	for n > 0 {
		n >>= 1
		l++
	}
	return l
}

func (m *freqMap) init(size int) {
	m.keys, m.items, m.hashes = make([]any, size), make([]any, size), make([]int32, size)
	m.values, m.states, m.numActive = make([]int64, size), make([]int16, size), 0
}

func (m *freqMap) capacity() int { return int(float64(len(m.keys)) * 0.75) }

// update counts n occurrences of item (a non-NULL value).
func (f *freqItems) update(item any, n int64) {
	f.stream += n
	f.m.adjust(freqKey(item), item, javaHashCode(item), n)
	if f.m.numActive <= f.m.capacity() {
		return
	}
	if bitsLen(len(f.m.keys))-1 < f.lgMaxMapSize {
		f.m.resize(2 * len(f.m.keys))
		return
	}
	f.offset += f.m.purge(1024)
}

func (m *freqMap) adjust(key, item any, hash int32, by int64) {
	mask := len(m.keys) - 1
	probe := int(int32(freqMix(int64(hash)))) & mask
	drift := int16(1)
	for m.states[probe] != 0 && m.keys[probe] != key {
		probe = (probe + 1) & mask
		drift++
	}
	if m.states[probe] == 0 {
		m.keys[probe], m.items[probe], m.hashes[probe] = key, item, hash
		m.values[probe], m.states[probe] = by, drift
		m.numActive++
		return
	}
	m.values[probe] += by
}

func (m *freqMap) resize(size int) {
	old := *m
	m.init(size)
	for i, s := range old.states {
		if s > 0 {
			m.adjust(old.keys[i], old.items[i], old.hashes[i], old.values[i])
		}
	}
}

// purge is ReversePurgeItemHashMap.purge; it returns the median subtracted.
func (m *freqMap) purge(sampleSize int) int64 {
	limit := min(sampleSize, m.numActive)
	samples := make([]int64, 0, limit)
	for i := 0; len(samples) < limit; i++ {
		if m.states[i] > 0 {
			samples = append(samples, m.values[i])
		}
	}
	v := quickSelect(samples, 0, len(samples)-1, limit/2)
	for i := range m.values {
		m.values[i] -= v
	}
	m.keepPositive()
	return v
}

// keepPositive deletes the slots whose count is at most zero, starting below the first
// empty-terminated cluster from the top, as DataSketches does (deletions move entries).
func (m *freqMap) keepPositive() {
	first := len(m.states) - 1
	for m.states[first] > 0 {
		first--
	}
	for p := first - 1; p >= 0; p-- {
		if m.states[p] > 0 && m.values[p] <= 0 {
			m.delete(p)
			m.numActive--
		}
	}
	for p := len(m.states) - 1; p >= first; p-- {
		if m.states[p] > 0 && m.values[p] <= 0 {
			m.delete(p)
			m.numActive--
		}
	}
}

func (m *freqMap) delete(at int) {
	m.states[at] = 0
	drift := int16(1)
	mask := len(m.keys) - 1
	for p := (at + 1) & mask; m.states[p] != 0; p = (p + 1) & mask {
		if m.states[p] > drift {
			m.keys[at], m.items[at], m.hashes[at], m.values[at] = m.keys[p], m.items[p], m.hashes[p], m.values[p]
			m.states[at] = m.states[p] - drift
			m.states[p] = 0
			drift = 0
			at = p
		}
		drift++
	}
}

// quickSelect is DataSketches' QuickSelect.select: the pivot-th smallest of arr[lo..hi],
// partially reordering arr.
func quickSelect(arr []int64, lo, hi, pivot int) int64 {
	for hi > lo {
		j := quickPartition(arr, lo, hi)
		if j == pivot {
			return arr[pivot]
		}
		if j > pivot {
			hi = j - 1
		} else {
			lo = j + 1
		}
	}
	return arr[pivot]
}

func quickPartition(arr []int64, lo, hi int) int {
	i, j := lo, hi+1
	v := arr[lo]
	for {
		for i++; arr[i] < v && i != hi; i++ {
		}
		for j--; v < arr[j] && j != lo; j-- {
		}
		if i >= j {
			break
		}
		arr[i], arr[j] = arr[j], arr[i]
	}
	arr[lo], arr[j] = arr[j], arr[lo]
	return j
}

// freqRow is a frequent item and its estimated count.
type freqRow struct {
	item  any
	count int64
}

// each visits the active slots in DataSketches' iterator order: a golden-ratio stride.
func (m *freqMap) each(fn func(i int)) {
	stride := int(float64(len(m.keys))*((math.Sqrt(5)-1)/2)) | 1
	mask := len(m.keys) - 1
	for i, n := -stride, 0; n < m.numActive; {
		i = (i + stride) & mask
		if m.states[i] > 0 {
			n++
			fn(i)
		}
	}
}

// frequent is getFrequentItems(NO_FALSE_POSITIVES): the items whose count is at least the error
// offset, in iterator order, then stably sorted by estimate (count + offset) descending.
func (f *freqItems) frequent() []freqRow {
	var rows []freqRow
	f.m.each(func(i int) {
		if f.m.values[i] >= f.offset {
			rows = append(rows, freqRow{f.m.items[i], f.m.values[i] + f.offset})
		}
	})
	sortStableDesc(rows)
	return rows
}

// merge adds other's items in its iterator order, then its error offset and stream weight
// (ItemsSketch.merge).
func (f *freqItems) merge(other *freqItems) {
	stream := f.stream + other.stream
	other.m.each(func(i int) { f.update(other.m.items[i], other.m.values[i]) })
	f.offset += other.offset
	f.stream = stream
}

func sortStableDesc(rows []freqRow) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].count > rows[j-1].count; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// freqMix is DataSketches' frequencies Util.hash (MurmurHash3's 64-bit finalizer).
func freqMix(k int64) int64 {
	u := uint64(k)
	u ^= u >> 33
	u *= 0xff51afd7ed558ccd
	u ^= u >> 33
	u *= 0xc4ceb9fe1a85ec53
	u ^= u >> 33
	return int64(u)
}

// freqKey is the map key of an item: floats by their Java bits (NaNs as one, -0.0 apart from
// 0.0, as Float/Double.equals).
func freqKey(v any) any {
	switch x := v.(type) {
	case float32:
		return javaFloatBits(x)
	case float64:
		return javaDoubleBits(x)
	}
	return v
}

func javaFloatBits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

func javaDoubleBits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// javaHashCode is the hashCode of the boxed Java value Spark gives the sketch.
func javaHashCode(v any) int32 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1231
		}
		return 1237
	case int8:
		return int32(x)
	case int16:
		return int32(x)
	case int32:
		return x
	case int64:
		return int32(x ^ int64(uint64(x)>>32))
	case float32:
		return int32(javaFloatBits(x))
	case float64:
		b := javaDoubleBits(x)
		return int32(b ^ b>>32)
	case string:
		var h int32
		for _, c := range utf16.Encode([]rune(x)) {
			h = 31*h + int32(c)
		}
		return h
	}
	return 0
}
