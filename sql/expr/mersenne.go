package expr

import "sync"

// mersenneTwister is MT19937 as Apache Commons Math 3's MersenneTwister (which Spark's shuffle
// draws from): seeded from a long as init_by_array of its high and low 32 bits, nextInt(n) as
// BitsStreamGenerator.nextInt. Callers hold mu while drawing.
type mersenneTwister struct {
	mu  sync.Mutex
	mt  [624]uint32
	mti int
}

const (
	mtN         = 624
	mtM         = 397
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

func newMersenneTwister(seed int64) *mersenneTwister {
	m := &mersenneTwister{}
	m.initArray([]uint32{uint32(uint64(seed) >> 32), uint32(seed)})
	return m
}

func (m *mersenneTwister) initGenrand(s uint32) {
	m.mt[0] = s
	for i := 1; i < mtN; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	m.mti = mtN
}

func (m *mersenneTwister) initArray(key []uint32) {
	m.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		m.mt[i] = (m.mt[i] ^ ((m.mt[i-1] ^ (m.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			m.mt[0] = m.mt[mtN-1]
			i = 1
		}
	}
	m.mt[0] = 0x80000000
}

// next returns the top bits of the next tempered 32-bit output.
func (m *mersenneTwister) next(bits uint) uint32 {
	if m.mti >= mtN {
		mag := [2]uint32{0, 0x9908b0df}
		var kk int
		for ; kk < mtN-mtM; kk++ {
			y := (m.mt[kk] & mtUpperMask) | (m.mt[kk+1] & mtLowerMask)
			m.mt[kk] = m.mt[kk+mtM] ^ (y >> 1) ^ mag[y&1]
		}
		for ; kk < mtN-1; kk++ {
			y := (m.mt[kk] & mtUpperMask) | (m.mt[kk+1] & mtLowerMask)
			m.mt[kk] = m.mt[kk+(mtM-mtN)] ^ (y >> 1) ^ mag[y&1]
		}
		y := (m.mt[mtN-1] & mtUpperMask) | (m.mt[0] & mtLowerMask)
		m.mt[mtN-1] = m.mt[mtM-1] ^ (y >> 1) ^ mag[y&1]
		m.mti = 0
	}
	y := m.mt[m.mti]
	m.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y >> (32 - bits)
}

// nextInt is a uniform int in [0, n), n > 0.
func (m *mersenneTwister) nextInt(n int32) int32 {
	if n&-n == n {
		return int32((int64(n) * int64(m.next(31))) >> 31)
	}
	for {
		bits := int32(m.next(31))
		val := bits % n
		if bits-val+(n-1) >= 0 {
			return val
		}
	}
}
