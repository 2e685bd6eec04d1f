package expr

import (
	"encoding/binary"
	"math/bits"
)

// murmur3X64 is MurmurHash3_x64_128 with both halves of the state seeded by seed, as Apache
// DataSketches hashes items (its MurmurHash3.hash of long[], int[] and byte[] keys is this
// function over their little-endian bytes). It returns the first 64-bit half, the only one the
// theta and tuple sketches use; murmur3X128 returns both (the HLL sketch uses both).
func murmur3X64(data []byte, seed uint64) uint64 {
	h1, _ := murmur3X128(data, seed)
	return h1
}

// murmur3X128 is MurmurHash3_x64_128 with both halves seeded by seed: the two 64-bit halves.
func murmur3X128(data []byte, seed uint64) (uint64, uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 := seed, seed
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		h1 ^= murmur3MixK(k1, c1, c2, 31)
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= murmur3MixK(k2, c2, c1, 33)
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
	}
	tail := data[nblocks*16:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(tail[i]) << (8 * (i - 8))
	}
	if len(tail) > 8 {
		h2 ^= murmur3MixK(k2, c2, c1, 33)
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(tail[i]) << (8 * i)
	}
	if len(tail) > 0 {
		h1 ^= murmur3MixK(k1, c1, c2, 31)
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1, h2 = mix64(h1), mix64(h2) // mix64 is MurmurHash3's fmix64
	h1 += h2
	h2 += h1
	return h1, h2
}

func murmur3MixK(k, a, b uint64, r int) uint64 {
	return bits.RotateLeft64(k*a, r) * b
}
