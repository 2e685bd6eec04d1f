package expr

import "math"

// DataSketches' HLL Union (an HLL_8 "gadget" sketch of at most lgMaxK), followed step by step so
// that unions equal Spark's, and the estimators behind hll_sketch_estimate, written from first
// principles (their estimates are close to, not always equal to, Spark's).

type hllUnion struct {
	lgMaxK int
	gadget *hllSketch
}

func newHLLUnion(lgMaxK int) *hllUnion {
	return &hllUnion{lgMaxK: lgMaxK, gadget: newHLLSketch(lgMaxK)}
}

// update merges src into the union (src is not changed).
func (u *hllUnion) update(src *hllSketch) {
	g := u.gadget
	if src == nil || src.isEmpty() {
		return
	}
	if src.mode == hllModeList {
		src.mergeCouponsInto(g)
		return
	}
	if src.mode == hllModeSet {
		if g.isEmpty() && src.lgK == g.lgK {
			u.gadget = src.clone()
			return
		}
		src.mergeCouponsInto(g)
		return
	}
	gMode := g.mode
	if g.isEmpty() {
		gMode = 3
	}
	sw := gMode << 1
	if src.lgK < g.lgK {
		sw |= 8
	}
	if src.lgK > u.lgMaxK {
		sw |= 16
	}
	switch sw {
	case 0, 8, 2, 10: // gadget List or Set: copy src, merge the gadget's coupons into it
		c := src.clone()
		g.mergeCouponsInto(c)
		u.gadget = c
	case 16, 18: // the same with src downsampled to lgMaxK
		c := hllDownsample(src, u.lgMaxK)
		g.mergeCouponsInto(c)
		u.gadget = c
	case 4, 20: // gadget HLL, src at least as large: fold src into it
		hllMergeRegisters(src, g)
		g.setOutOfOrder()
	case 12: // gadget HLL larger than src: downsample the gadget, then merge
		d := hllDownsample(g, src.lgK)
		hllMergeRegisters(src, d)
		d.setOutOfOrder()
		u.gadget = d
	case 6, 14: // gadget empty
		u.gadget = src.clone()
	case 22:
		u.gadget = hllDownsample(src, u.lgMaxK)
	}
}

// result is the union's sketch (getResult(HLL_8) and toUpdatableByteArray both rebuild first).
func (u *hllUnion) result() *hllSketch {
	u.gadget.rebuildKxQ()
	return u.gadget.clone()
}

func (s *hllSketch) setOutOfOrder() {
	s.ooo, s.hip = true, 0
}

// hllMergeRegisters takes the register-wise max of src into dst, folding a larger src onto
// dst's slots; dst's KxQ sums are rebuilt later (the rebuild flag).
func hllMergeRegisters(src, dst *hllSketch) {
	mask := len(dst.regs) - 1
	for i, v := range src.regs {
		if v > dst.regs[i&mask] {
			dst.regs[i&mask] = v
		}
	}
	dst.rebuild = true
}

// hllDownsample re-adds a HLL sketch's registers to a new one of tgtLgK registers.
func hllDownsample(src *hllSketch, tgtLgK int) *hllSketch {
	d := newHLLArray(tgtLgK)
	for slot, v := range src.regs {
		if v != 0 {
			d.update(uint32(v)<<hllKeyBits | uint32(slot))
		}
	}
	d.hip = src.hip
	if src.ooo {
		d.setOutOfOrder()
	}
	return d
}

// rebuildKxQ recomputes the KxQ sums, the least register and its count after a register merge.
func (s *hllSketch) rebuildKxQ() {
	if !s.rebuild || s.mode != hllModeHLL {
		return
	}
	kxq0, kxq1 := float64(len(s.regs)), 0.0
	curMin, n := byte(64), 0
	for _, v := range s.regs {
		if v > 0 && v < 32 {
			kxq0 += math.Ldexp(1, -int(v)) - 1.0
		} else if v >= 32 {
			kxq1 += math.Ldexp(1, -int(v)) - 1.0
		}
		if v < curMin {
			curMin, n = v, 1
		} else if v == curMin {
			n++
		}
	}
	s.kxq0, s.kxq1, s.curMin, s.numAtCurMin, s.rebuild = kxq0, kxq1, int(curMin), n, false
}

// estimate is the sketch's distinct-count estimate, from first principles (no DataSketches
// tables): the coupon estimator in List and Set modes; in HLL mode the HIP accumulator while it
// is valid (registers raised in order by updates), else, once a union or a downsample made the
// sketch out of order, the classic HyperLogLog estimator.
func (s *hllSketch) estimate() float64 {
	if s.mode != hllModeHLL {
		return s.couponEstimate()
	}
	if s.ooo {
		return s.rawEstimate()
	}
	return s.hip
}

// hllCouponSpace is the effective number of distinct coupons. A coupon is a (slot, value) pair:
// the slot is uniform over 2^26, the value v = 1 + leading zeros of a uniform 64-bit word has
// P(v) = 2^-v, so two distinct items share a coupon with probability
// q = 2^-26 · Σ_v 4^-v = 2^-26 / 3. The estimator treats the coupons as M = 1/q = 3·2^26 equally
// likely cells, which gets the first collision term (n²q/2) exactly right.
const hllCouponSpace = 3 << hllKeyBits

// couponEstimate inverts the occupancy expectation: n distinct items thrown into M equally likely
// cells fill c ≈ M(1 - e^(-n/M)) of them, so n = M·ln(M/(M-c)) = -M·log1p(-c/M). It is at
// least c, and c plus about c²/(2M) (at most ~0.05% above c for the 196608 coupons of the
// largest Set).
func (s *hllSketch) couponEstimate() float64 {
	return -hllCouponSpace * math.Log1p(-float64(s.count)/hllCouponSpace)
}

// rawEstimate is the HyperLogLog estimator of Flajolet, Fusy, Gandouet and Meunier (2007) over
// the m = 2^lgK registers: E = α_m·m² / Σ_j 2^-M[j], with α_16 = 0.673, α_32 = 0.697,
// α_64 = 0.709 and α_m = 0.7213/(1 + 1.079/m) from m = 128; when E <= 5m/2 and V registers are
// still zero, linear counting m·ln(m/V) replaces it. The paper's large-range correction is for
// 32-bit hashes; a coupon's value comes from a 64-bit word, so none is needed.
func (s *hllSketch) rawEstimate() float64 {
	m := float64(len(s.regs))
	alpha := 0.7213 / (1.0 + 1.079/m)
	switch len(s.regs) {
	case 16:
		alpha = 0.673
	case 32:
		alpha = 0.697
	case 64:
		alpha = 0.709
	}
	sum, zeros := 0.0, 0
	for _, v := range s.regs {
		sum += math.Ldexp(1, -int(v))
		if v == 0 {
			zeros++
		}
	}
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		return m * math.Log(m/float64(zeros))
	}
	return e
}
