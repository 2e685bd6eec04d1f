package expr

import (
	"math"
	"math/bits"
	"sync"
)

// xorShiftRandom is Spark's XORShiftRandom (seeded through MurmurHash3 of the seed's bytes),
// so rand(seed)/randn(seed) produce Spark's sequence for partition 0.
type xorShiftRandom struct {
	mu        sync.Mutex
	seed      uint64
	nextGauss float64
	haveGauss bool
}

func scalaMix(h, k uint32) uint32 {
	k *= 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	k *= 0x1b873593
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

// scalaBytesHash is scala.util.hashing.MurmurHash3.bytesHash for 8 bytes.
func scalaBytesHash(b [8]byte, seed uint32) uint32 {
	h := seed
	for i := 0; i < 8; i += 4 {
		k := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
		h = scalaMix(h, k)
	}
	return m3Fmix(h, 8)
}

func newXORShiftRandom(seed int64) *xorShiftRandom {
	var b [8]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(uint64(seed) >> (56 - 8*i))
	}
	lo := scalaBytesHash(b, 0x3c074a61)
	hi := scalaBytesHash(b, lo)
	return &xorShiftRandom{seed: uint64(hi)<<32 | uint64(lo)}
}

func (r *xorShiftRandom) next(nbits uint) int32 {
	s := r.seed ^ (r.seed << 21)
	s ^= s >> 35
	s ^= s << 4
	r.seed = s
	return int32(s & (1<<nbits - 1))
}

// Float64 is java.util.Random.nextDouble over next().
func (r *xorShiftRandom) Float64() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

// NormFloat64 is java.util.Random.nextGaussian.
func (r *xorShiftRandom) NormFloat64() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.haveGauss {
		r.haveGauss = false
		return r.nextGauss
	}
	for {
		v1 := 2*(float64(int64(r.next(26))<<27+int64(r.next(27)))*(1.0/(1<<53))) - 1
		v2 := 2*(float64(int64(r.next(26))<<27+int64(r.next(27)))*(1.0/(1<<53))) - 1
		s := v1*v1 + v2*v2
		if s < 1 && s != 0 {
			m := math.Sqrt(-2 * math.Log(s) / s)
			r.nextGauss, r.haveGauss = v2*m, true
			return v1 * m
		}
	}
}

// Int64 is java.util.Random.nextLong over next().
func (r *xorShiftRandom) Int64() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(r.next(32))<<32 + int64(r.next(32))
}
