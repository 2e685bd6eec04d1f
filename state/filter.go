package state

// HashFilter is a Bloom filter over 64-bit key hashes: MayContain is false for a hash never
// added, and true for one added (and, about 1% of the time at its capacity, for others). It
// lets an owner skip the spill store's lookup for most keys that are not there. It cannot
// forget a hash: an owner whose keys leave rebuilds it (NewHashFilter, then Add the live ones).
type HashFilter struct {
	bits []uint64
	mask uint64
	// capacity is the number of hashes it was sized for.
	capacity int64
}

// hashProbes is the number of bits a hash sets: about 1% false positives at 10 bits a hash.
const hashProbes = 7

// NewHashFilter makes a filter for about capacity hashes (10 bits each, at least 4096 bits).
func NewHashFilter(capacity int64) *HashFilter {
	n := uint64(4096)
	for n < uint64(capacity)*10 {
		n <<= 1
	}
	return &HashFilter{bits: make([]uint64, n/64), mask: n - 1, capacity: capacity}
}

// Capacity is the number of hashes the filter was sized for.
func (f *HashFilter) Capacity() int64 { return f.capacity }

// Bytes is the filter's memory size.
func (f *HashFilter) Bytes() int64 { return int64(len(f.bits)) * 8 }

// Add adds a hash.
func (f *HashFilter) Add(h uint64) {
	a, b := h, (h>>32|h<<32)|1
	for range hashProbes {
		bit := a & f.mask
		f.bits[bit/64] |= 1 << (bit % 64)
		a += b
	}
}

// MayContain reports whether h may have been added.
func (f *HashFilter) MayContain(h uint64) bool {
	a, b := h, (h>>32|h<<32)|1
	for range hashProbes {
		bit := a & f.mask
		if f.bits[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
		a += b
	}
	return true
}
