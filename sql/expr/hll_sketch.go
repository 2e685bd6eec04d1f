package expr

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// An Apache DataSketches HLL sketch of target type HLL_8, the one Spark's hll_sketch_agg,
// hll_union_agg and hll_union build, kept as DataSketches keeps it so that its serialized form
// (toUpdatableByteArray) is byte for byte Spark's.
//
// Each update hashes its value with MurmurHash3 x64 128 (seed 9001) into a coupon: the low 26
// bits of the first hash word address a slot, and 1 + the leading zeros of the second (at most
// 63) is the value. A sketch starts in List mode, an unordered array of up to 8 distinct
// coupons; when full it becomes a Set (lgK >= 8), an open-addressing hash table of coupons
// that doubles from 32 entries while over 3/4 full, up to 2^(lgK-3), or HLL (lgK < 8): 2^lgK
// one-byte registers with the HIP accumulator and the KxQ sums that DataSketches keeps for its
// estimators.

// The modes of a sketch, as the low two bits of the mode byte.
const (
	hllModeList = 0
	hllModeSet  = 1
	hllModeHLL  = 2
)

const (
	hllSeed         = 9001
	hllMinLgK       = 4
	hllMaxLgK       = 21
	hllDefaultLgK   = 12
	hllKeyBits      = 26
	hllKeyMask      = 1<<hllKeyBits - 1
	hllLgInitList   = 3
	hllLgInitSet    = 5
	hllTypeHLL8     = 2 // TgtHllType HLL_8 in the mode byte's bits 2-3
	hllPreList      = 2
	hllPreSet       = 3
	hllPreHLL       = 10
	hllFlagEmpty    = 4
	hllFlagCompact  = 8
	hllFlagOOO      = 16
	hllFlagRebuild  = 32
	hllListStart    = 8
	hllSetStart     = 12
	hllRegsStart    = 40
	hllFamily       = 7
	hllSerialFormat = 1
)

// errHLLBuffer reports bytes that are not a sketch Weir can read; callers turn it into
// HLL_INVALID_INPUT_SKETCH_BUFFER.
var errHLLBuffer = errors.New("invalid HLL sketch buffer")

type hllSketch struct {
	lgK  int
	mode int
	// List and Set modes.
	lgArr   int
	count   int
	coupons []uint32
	// HLL mode.
	regs                []byte
	ooo, rebuild        bool
	curMin, numAtCurMin int // the least register and how many hold it (curMin 0: the zeros)
	hip, kxq0, kxq1     float64
}

func newHLLSketch(lgK int) *hllSketch {
	return &hllSketch{lgK: lgK, mode: hllModeList, lgArr: hllLgInitList, coupons: make([]uint32, 1<<hllLgInitList)}
}

func newHLLArray(lgK int) *hllSketch {
	k := 1 << lgK
	return &hllSketch{lgK: lgK, mode: hllModeHLL, regs: make([]byte, k), numAtCurMin: k, kxq0: float64(k)}
}

func (s *hllSketch) isEmpty() bool { return s.mode != hllModeHLL && s.count == 0 }

// hllCoupon turns a hashed value into its coupon.
func hllCoupon(data []byte) uint32 {
	h1, h2 := murmur3X128(data, hllSeed)
	v := min(bits.LeadingZeros64(h2), 62) + 1
	return uint32(v)<<hllKeyBits | uint32(h1&hllKeyMask)
}

func (s *hllSketch) updateLong(v int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	s.update(hllCoupon(b[:]))
}

// updateBytes adds a STRING's or BINARY's bytes; empty ones are skipped, as DataSketches does.
func (s *hllSketch) updateBytes(b []byte) {
	if len(b) > 0 {
		s.update(hllCoupon(b))
	}
}

// update adds one coupon, changing mode when the List or Set is full.
func (s *hllSketch) update(c uint32) {
	if c>>hllKeyBits == 0 {
		return
	}
	switch s.mode {
	case hllModeList:
		for i, x := range s.coupons {
			if x == c {
				return
			}
			if x != 0 {
				continue
			}
			s.coupons[i] = c
			s.count++
			if s.count < len(s.coupons) {
				return
			}
			if s.lgK < 8 {
				s.promoteToHLL()
			} else {
				s.promoteToSet()
			}
			return
		}
	case hllModeSet:
		i, found := hllFind(s.coupons, s.lgArr, c)
		if found {
			return
		}
		s.coupons[i] = c
		s.count++
		if 4*s.count <= 3<<s.lgArr {
			return
		}
		if s.lgArr == s.lgK-3 {
			s.promoteToHLL()
			return
		}
		s.lgArr++
		s.coupons = hllGrowSet(s.coupons, s.lgArr)
	default:
		s.updateSlot(int(c&uint32(len(s.regs)-1)), int(c>>hllKeyBits))
	}
}

// updateSlot raises a register, keeping HIP and KxQ as DataSketches does (HIP first).
func (s *hllSketch) updateSlot(slot, v int) {
	old := int(s.regs[slot])
	if v <= old {
		return
	}
	s.regs[slot] = byte(v)
	s.hip += float64(len(s.regs)) / (s.kxq0 + s.kxq1)
	if old < 32 {
		s.kxq0 -= math.Ldexp(1, -old)
	} else {
		s.kxq1 -= math.Ldexp(1, -old)
	}
	if v < 32 {
		s.kxq0 += math.Ldexp(1, -v)
	} else {
		s.kxq1 += math.Ldexp(1, -v)
	}
	if old == 0 {
		s.numAtCurMin-- // curMin stays 0 while HLL_8 registers are only raised one by one
	}
}

// hllFind probes a Set's table for c: the slot holding c (found) or the empty slot to put it in.
func hllFind(arr []uint32, lgArr int, c uint32) (int, bool) {
	mask := uint32(len(arr) - 1)
	probe := c & mask
	start := probe
	for {
		switch arr[probe] {
		case 0:
			return int(probe), false
		case c:
			return int(probe), true
		}
		probe = (probe + ((c&hllKeyMask)>>lgArr | 1)) & mask
		if probe == start {
			return -1, false // a full table: never, Sets grow at 3/4
		}
	}
}

func hllGrowSet(arr []uint32, lgArr int) []uint32 {
	out := make([]uint32, 1<<lgArr)
	for _, c := range arr {
		if c != 0 {
			i, _ := hllFind(out, lgArr, c)
			out[i] = c
		}
	}
	return out
}

func (s *hllSketch) promoteToSet() {
	set := &hllSketch{lgK: s.lgK, mode: hllModeSet, lgArr: hllLgInitSet, coupons: make([]uint32, 1<<hllLgInitSet)}
	for _, c := range s.coupons[:s.count] {
		set.update(c)
	}
	*s = *set
}

// promoteToHLL moves a List's or Set's coupons into registers, in array order, and starts HIP
// at the coupon estimate.
func (s *hllSketch) promoteToHLL() {
	est := s.couponEstimate()
	h := newHLLArray(s.lgK)
	for _, c := range s.coupons {
		if c != 0 {
			h.update(c)
		}
	}
	h.hip = est
	*s = *h
}

// clone is DataSketches' copyAs(HLL_8): a deep copy, as every Weir sketch is HLL_8.
func (s *hllSketch) clone() *hllSketch {
	c := *s
	c.coupons = append([]uint32(nil), s.coupons...)
	c.regs = append([]byte(nil), s.regs...)
	return &c
}

// mergeCouponsInto adds a List's or Set's coupons to dst, in array order.
func (s *hllSketch) mergeCouponsInto(dst *hllSketch) {
	for _, c := range s.coupons {
		if c != 0 {
			dst.update(c)
		}
	}
}

// serialize is DataSketches' toUpdatableByteArray.
func (s *hllSketch) serialize() []byte {
	if s.mode == hllModeHLL {
		b := make([]byte, hllRegsStart+len(s.regs))
		b[0], b[1], b[2], b[3] = hllPreHLL, hllSerialFormat, hllFamily, byte(s.lgK)
		if s.ooo {
			b[5] |= hllFlagOOO
		}
		if s.rebuild {
			b[5] |= hllFlagRebuild
		}
		b[7] = hllTypeHLL8<<2 | hllModeHLL
		binary.LittleEndian.PutUint64(b[8:], math.Float64bits(s.hip))
		binary.LittleEndian.PutUint64(b[16:], math.Float64bits(s.kxq0))
		binary.LittleEndian.PutUint64(b[24:], math.Float64bits(s.kxq1))
		b[6] = byte(s.curMin)
		binary.LittleEndian.PutUint32(b[32:], uint32(s.numAtCurMin))
		copy(b[hllRegsStart:], s.regs)
		return b
	}
	start, pre := hllListStart, hllPreList
	if s.mode == hllModeSet {
		start, pre = hllSetStart, hllPreSet
	}
	b := make([]byte, start+4*len(s.coupons))
	b[0], b[1], b[2], b[3], b[4] = byte(pre), hllSerialFormat, hllFamily, byte(s.lgK), byte(s.lgArr)
	if s.count == 0 {
		b[5] = hllFlagEmpty
	}
	b[7] = hllTypeHLL8<<2 | byte(s.mode)
	if s.mode == hllModeList {
		b[6] = byte(s.count)
	} else {
		binary.LittleEndian.PutUint32(b[8:], uint32(s.count))
	}
	for i, c := range s.coupons {
		binary.LittleEndian.PutUint32(b[start+4*i:], c)
	}
	return b
}

// deserializeHLL reads a sketch in DataSketches' updatable or compact form (DataSketches'
// heapify). Registers of type HLL_4 or HLL_6 are not read: errHLLBuffer.
func deserializeHLL(b []byte) (*hllSketch, error) {
	if len(b) < 8 {
		return nil, errHLLBuffer
	}
	pre, mode, lgK := int(b[0]&0x3F), int(b[7]&3), int(b[3])
	wantPre := [...]int{hllPreList, hllPreSet, hllPreHLL, -1}[mode]
	if b[1] != hllSerialFormat || b[2] != hllFamily || pre != wantPre || len(b) < 4*pre ||
		lgK < hllMinLgK || lgK > hllMaxLgK {
		return nil, errHLLBuffer
	}
	compact := b[5]&hllFlagCompact != 0
	switch mode {
	case hllModeList:
		s := newHLLSketch(lgK)
		n := int(b[6])
		if n > len(s.coupons) || len(b) < hllListStart+4*n {
			return nil, errHLLBuffer
		}
		for i := range n {
			s.coupons[i] = binary.LittleEndian.Uint32(b[hllListStart+4*i:])
		}
		s.count = n
		return s, nil
	case hllModeSet:
		return deserializeHLLSet(b, lgK, compact)
	}
	if (b[7]>>2)&3 != hllTypeHLL8 || len(b) < hllRegsStart+1<<lgK {
		return nil, errHLLBuffer
	}
	s := newHLLArray(lgK)
	s.ooo, s.rebuild = b[5]&hllFlagOOO != 0, b[5]&hllFlagRebuild != 0
	s.hip = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	s.kxq0 = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	s.kxq1 = math.Float64frombits(binary.LittleEndian.Uint64(b[24:]))
	s.curMin, s.numAtCurMin = int(b[6]), int(binary.LittleEndian.Uint32(b[32:]))
	copy(s.regs, b[hllRegsStart:])
	for i, r := range s.regs {
		s.regs[i] = r & 0x3F
	}
	return s, nil
}

func deserializeHLLSet(b []byte, lgK int, compact bool) (*hllSketch, error) {
	if lgK < 8 {
		return nil, errHLLBuffer
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	s := &hllSketch{lgK: lgK, mode: hllModeSet, lgArr: hllLgInitSet, coupons: make([]uint32, 1<<hllLgInitSet)}
	if compact {
		if n < 0 || n > 1<<(lgK-3) || len(b) < hllSetStart+4*n {
			return nil, errHLLBuffer
		}
		for i := range n {
			s.update(binary.LittleEndian.Uint32(b[hllSetStart+4*i:]))
		}
		return s, nil
	}
	lgArr := int(b[4])
	if lgArr < hllLgInitSet {
		lgArr = hllLgInitSet
		for 4*n > 3<<lgArr {
			lgArr++
		}
	}
	if lgArr > lgK-3 || n > 1<<lgArr || len(b) < hllSetStart+4<<lgArr {
		return nil, errHLLBuffer
	}
	s.lgArr, s.count, s.coupons = lgArr, n, make([]uint32, 1<<lgArr)
	for i := range s.coupons {
		s.coupons[i] = binary.LittleEndian.Uint32(b[hllSetStart+4*i:])
	}
	return s, nil
}
