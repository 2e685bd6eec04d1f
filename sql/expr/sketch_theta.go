package expr

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
)

// Theta sketches in Apache DataSketches' (Java 6.2, as Spark 4.2 ships) binary layouts, so that
// the sketches Spark writes read here and the ones written here read in Spark. Items hash with
// MurmurHash3 (seed 9001) to 63-bit values; a sketch keeps the hashes below theta. The update
// sketch is DataSketches' QuickSelect sketch: a table of nominal size k = 2^lgNomEntries that
// starts small, grows by 8x up to 2k slots and, when its count passes 15/16 of 2k, lowers theta
// to the (k+1)-th smallest hash and drops the hashes not below it. Which hashes a sketch keeps
// depends only on the order of updates and those thresholds (not on the table's layout), so the
// sketch here holds the same hashes and theta as DataSketches' for the same updates, and its
// compact form is byte-identical. Compact sketches are written as toByteArrayCompressed does:
// serial version 4 (deltas of the ordered hashes bit-packed) unless empty or one exact item
// (serial version 3, 8 or 16 bytes) or no entries below a theta < 1 (version 3, 24 bytes).

const (
	thetaMax          = uint64(math.MaxInt64) // theta 1.0, as DataSketches' Long.MAX_VALUE
	thetaSeed         = 9001
	thetaFamilyCmp    = 3 // DataSketches' Family.COMPACT
	thetaFlagReadOnly = 0x02
	thetaFlagEmpty    = 0x04
	thetaFlagCompact  = 0x08
	thetaFlagOrdered  = 0x10
	thetaFlagSingle   = 0x20
	thetaMinLgNom     = 4
	thetaMaxLgNom     = 26
	thetaDefaultLgNom = 12
)

// thetaSeedHash is ThetaUtil.computeSeedHash(9001): the low 16 bits of the seed hashed with seed 0.
var thetaSeedHash = func() uint16 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], thetaSeed)
	return uint16(murmur3X64(b[:], 0))
}()

var errThetaCorrupt = errors.New("expr: not a valid theta sketch")

// thetaHash is the hash a theta sketch keeps for an item's bytes: MurmurHash3's first half
// shifted right by one (a non-negative Java long).
func thetaHash(item []byte) uint64 { return murmur3X64(item, thetaSeed) >> 1 }

// thetaHashLong hashes a BIGINT (and an INT promoted to it) as DataSketches' update(long).
func thetaHashLong(v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return thetaHash(b[:])
}

// thetaHashDouble hashes a DOUBLE as update(double): -0.0 as 0.0, every NaN as the canonical NaN.
func thetaHashDouble(d float64) uint64 {
	if d == 0 {
		d = 0
	}
	bitsOf := math.Float64bits(d)
	if math.IsNaN(d) {
		bitsOf = 0x7ff8000000000000
	}
	return thetaHashLong(int64(bitsOf))
}

// thetaUpdate is DataSketches' HeapQuickSelectSketch: the hashes below theta in a set whose
// growth and rebuilds follow the QuickSelect sketch's table sizes and thresholds.
type thetaUpdate struct {
	lgNom, lgArr int
	threshold    int
	theta        uint64
	empty        bool
	hashes       map[uint64]struct{}
}

func newThetaUpdate(lgNom int) *thetaUpdate {
	s := &thetaUpdate{lgNom: lgNom, theta: thetaMax, empty: true, hashes: map[uint64]struct{}{}}
	// ThetaUtil.startingSubMultiple(lgNom+1, lg(X8)=3, MIN_LG_ARR_LONGS=5)
	s.lgArr = 5
	if lgNom+1 > 5 {
		s.lgArr = (lgNom+1-5)%3 + 5
	}
	s.setThreshold()
	return s
}

func (s *thetaUpdate) setThreshold() {
	if s.lgArr <= s.lgNom {
		s.threshold = int(0.5 * float64(int(1)<<s.lgArr))
	} else {
		s.threshold = int(15.0 / 16.0 * float64(int(1)<<s.lgArr))
	}
}

// update offers one hash (hashUpdate): hashes of 0 or not below theta and duplicates are
// rejected; an insert past the threshold grows the table or lowers theta.
func (s *thetaUpdate) update(h uint64) {
	s.empty = false
	if h == 0 || h >= s.theta {
		return
	}
	if _, dup := s.hashes[h]; dup {
		return
	}
	s.hashes[h] = struct{}{}
	if len(s.hashes) <= s.threshold {
		return
	}
	if s.lgArr <= s.lgNom {
		s.lgArr += max(min(3, s.lgNom+1-s.lgArr), 1)
		s.setThreshold()
		return
	}
	s.lowerTheta(1<<s.lgNom + 1)
}

// lowerTheta sets theta to the pivot-th smallest hash and drops the hashes not below it
// (quickSelectAndRebuild).
func (s *thetaUpdate) lowerTheta(pivot int) {
	s.theta = kthSmallest(s.hashes, pivot)
	for h := range s.hashes {
		if h >= s.theta {
			delete(s.hashes, h)
		}
	}
}

func kthSmallest(set map[uint64]struct{}, k int) uint64 {
	all := make([]uint64, 0, len(set))
	for h := range set {
		all = append(all, h)
	}
	slices.Sort(all)
	return all[k-1]
}

// thetaTheta is getThetaLong: 1.0 while empty.
func (s *thetaUpdate) thetaTheta() uint64 {
	if s.empty {
		return thetaMax
	}
	return s.theta
}

// compact is rebuild().compact(): at most k hashes, ordered.
func (s *thetaUpdate) compact() *thetaCompact {
	if len(s.hashes) > 1<<s.lgNom {
		s.lowerTheta(1<<s.lgNom + 1)
	}
	return newThetaCompact(sortedHashes(s.hashes, thetaMax), s.thetaTheta(), s.empty)
}

func sortedHashes(set map[uint64]struct{}, below uint64) []uint64 {
	out := make([]uint64, 0, len(set))
	for h := range set {
		if h < below {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// thetaCompact is a compact sketch: ordered hashes below theta.
type thetaCompact struct {
	hashes   []uint64
	theta    uint64
	empty    bool
	seedHash uint16
}

// newThetaCompact is componentsToCompact: no hashes and theta 1.0 is the empty sketch.
func newThetaCompact(hashes []uint64, theta uint64, empty bool) *thetaCompact {
	empty = empty || len(hashes) == 0 && theta == thetaMax
	if empty {
		return &thetaCompact{theta: thetaMax, empty: true, seedHash: thetaSeedHash}
	}
	return &thetaCompact{hashes: hashes, theta: theta, seedHash: thetaSeedHash}
}

func (c *thetaCompact) estimationMode() bool { return c.theta < thetaMax && !c.empty }

// single is DataSketches' SingleItemSketch: one hash, theta 1.0.
func (c *thetaCompact) single() bool { return len(c.hashes) == 1 && c.theta == thetaMax }

// estimate is getEstimate: the count scaled by 1/theta.
func (c *thetaCompact) estimate() float64 {
	return float64(len(c.hashes)) * (float64(thetaMax) / float64(c.theta))
}

// bytes is toByteArrayCompressed.
func (c *thetaCompact) bytes() []byte {
	switch {
	case c.empty:
		return []byte{1, 3, thetaFamilyCmp, 0, 0, thetaFlagReadOnly | thetaFlagEmpty | thetaFlagCompact | thetaFlagOrdered, 0, 0}
	case c.single():
		b := []byte{1, 3, thetaFamilyCmp, 0, 0, thetaFlagReadOnly | thetaFlagCompact | thetaFlagOrdered | thetaFlagSingle, 0, 0}
		b = binary.LittleEndian.AppendUint16(b[:6], c.seedHash)
		return binary.LittleEndian.AppendUint64(b, c.hashes[0])
	case len(c.hashes) == 0:
		b := []byte{3, 3, thetaFamilyCmp, 0, 0, thetaFlagReadOnly | thetaFlagCompact | thetaFlagOrdered}
		b = binary.LittleEndian.AppendUint16(b, c.seedHash)
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(1))
		return binary.LittleEndian.AppendUint64(b, c.theta)
	}
	return c.bytesV4()
}

// bytesV4 is serial version 4: the preamble (with theta in estimation mode), the entry count in
// as few bytes as hold it, then each hash's delta from the previous one in entryBits bits,
// most significant bit first.
func (c *thetaCompact) bytesV4() []byte {
	var ored, prev uint64
	for _, h := range c.hashes {
		ored |= h - prev
		prev = h
	}
	entryBits := 64 - bits.LeadingZeros64(ored)
	n := len(c.hashes)
	numEntriesBytes := (32 - bits.LeadingZeros32(uint32(n)) + 7) / 8
	preLongs := byte(1)
	if c.estimationMode() {
		preLongs = 2
	}
	b := []byte{preLongs, 4, thetaFamilyCmp, byte(entryBits), byte(numEntriesBytes), thetaFlagReadOnly | thetaFlagCompact | thetaFlagOrdered}
	b = binary.LittleEndian.AppendUint16(b, c.seedHash)
	if preLongs == 2 {
		b = binary.LittleEndian.AppendUint64(b, c.theta)
	}
	for i, v := 0, uint32(n); i < numEntriesBytes; i, v = i+1, v>>8 {
		b = append(b, byte(v))
	}
	w := bitWriter{buf: b}
	prev = 0
	for _, h := range c.hashes {
		w.write(h-prev, entryBits)
		prev = h
	}
	return w.buf
}

// bitWriter appends values most significant bit first.
type bitWriter struct {
	buf  []byte
	used int // bits used in the last byte (0: start a new byte)
}

func (w *bitWriter) write(v uint64, n int) {
	for n > 0 {
		if w.used == 0 {
			w.buf = append(w.buf, 0)
		}
		free := 8 - w.used
		take := min(free, n)
		chunk := byte(v>>(n-take)) & byte(1<<take-1)
		w.buf[len(w.buf)-1] |= chunk << (free - take)
		w.used = (w.used + take) % 8
		n -= take
	}
}

// readThetaCompact parses a compact sketch of serial version 3 or 4 (CompactSketch.wrap).
func readThetaCompact(b []byte) (*thetaCompact, error) {
	if len(b) < 8 || b[2] != thetaFamilyCmp {
		return nil, errThetaCorrupt
	}
	preLongs, serVer, flags := int(b[0]&0x3f), b[1], b[5]
	seedHash := binary.LittleEndian.Uint16(b[6:])
	switch serVer {
	case 3:
		return readThetaV3(b, preLongs, flags, seedHash)
	case 4:
		return readThetaV4(b, preLongs, flags, seedHash)
	}
	return nil, errThetaCorrupt
}

func readThetaV3(b []byte, preLongs int, flags byte, seedHash uint16) (*thetaCompact, error) {
	if flags&thetaFlagEmpty != 0 {
		return newThetaCompact(nil, thetaMax, true), nil
	}
	if preLongs == 1 && (flags&0x1f == 0x1a || flags&thetaFlagSingle != 0) {
		if len(b) < 16 {
			return nil, errThetaCorrupt
		}
		return &thetaCompact{hashes: []uint64{binary.LittleEndian.Uint64(b[8:])}, theta: thetaMax, seedHash: seedHash}, nil
	}
	if flags&thetaFlagCompact == 0 || flags&thetaFlagReadOnly == 0 || preLongs < 2 || preLongs > 3 || len(b) < preLongs*8 {
		return nil, errThetaCorrupt
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	theta := thetaMax
	if preLongs == 3 {
		theta = binary.LittleEndian.Uint64(b[16:])
	}
	if n < 0 || len(b) < preLongs*8+8*n {
		return nil, errThetaCorrupt
	}
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint64(b[preLongs*8+8*i:])
	}
	slices.Sort(hashes)
	return &thetaCompact{hashes: hashes, theta: theta, empty: n == 0 && theta == thetaMax, seedHash: seedHash}, nil
}

func readThetaV4(b []byte, preLongs int, flags byte, seedHash uint16) (*thetaCompact, error) {
	entryBits, numEntriesBytes := int(b[3]), int(b[4])
	off := 8
	theta := thetaMax
	if preLongs > 1 {
		if len(b) < 16 {
			return nil, errThetaCorrupt
		}
		theta = binary.LittleEndian.Uint64(b[8:])
		off = 16
	}
	if entryBits < 1 || entryBits > 64 || numEntriesBytes > 4 || len(b) < off+numEntriesBytes {
		return nil, errThetaCorrupt
	}
	n := 0
	for i := 0; i < numEntriesBytes; i++ {
		n |= int(b[off+i]) << (8 * i)
	}
	off += numEntriesBytes
	if len(b) < off+(n*entryBits+7)/8 {
		return nil, errThetaCorrupt
	}
	hashes := make([]uint64, n)
	bitPos := off * 8
	var prev uint64
	for i := range hashes {
		var v uint64
		for j := 0; j < entryBits; j++ {
			bit := b[bitPos>>3] >> (7 - bitPos&7) & 1
			v = v<<1 | uint64(bit)
			bitPos++
		}
		prev += v
		hashes[i] = prev
	}
	return &thetaCompact{hashes: hashes, theta: theta, empty: flags&thetaFlagEmpty != 0, seedHash: seedHash}, nil
}

// thetaUnion is DataSketches' UnionImpl over a QuickSelect gadget of lgNom.
type thetaUnion struct {
	gadget     *thetaUpdate
	unionTheta uint64
	unionEmpty bool
}

func newThetaUnion(lgNom int) *thetaUnion {
	return &thetaUnion{gadget: newThetaUpdate(lgNom), unionTheta: thetaMax, unionEmpty: true}
}

// add is union(sketch): a single item goes straight to the gadget; otherwise theta drops to the
// sketch's and the sketch's hashes below it are offered in order.
func (u *thetaUnion) add(c *thetaCompact) error {
	if c.empty {
		return nil
	}
	if c.seedHash != thetaSeedHash {
		return errThetaCorrupt
	}
	if c.single() {
		u.gadget.update(c.hashes[0])
		return nil
	}
	u.unionTheta = min(u.unionTheta, c.theta, u.gadget.thetaTheta())
	u.unionEmpty = false
	for _, h := range c.hashes {
		if h >= u.unionTheta {
			break
		}
		u.gadget.update(h)
	}
	u.unionTheta = min(u.unionTheta, u.gadget.thetaTheta())
	return nil
}

// result is getResult: at most k hashes below the smallest theta.
func (u *thetaUnion) result() *thetaCompact {
	g := u.gadget
	gTheta := g.thetaTheta()
	adj := gTheta
	if k := 1 << g.lgNom; len(g.hashes) > k {
		adj = kthSmallest(g.hashes, k+1)
	}
	minTheta := min(gTheta, adj, u.unionTheta)
	return newThetaCompact(sortedHashes(g.hashes, minTheta), minTheta, g.empty && u.unionEmpty)
}

// thetaIntersection is DataSketches' IntersectionImpl. count < 0 is the universal set (no input
// yet), which has no result.
type thetaIntersection struct {
	count  int
	theta  uint64
	empty  bool
	hashes map[uint64]struct{}
}

func newThetaIntersection() *thetaIntersection {
	return &thetaIntersection{count: -1, theta: thetaMax}
}

func (x *thetaIntersection) add(c *thetaCompact) error {
	if x.empty || c.empty {
		x.count, x.theta, x.empty, x.hashes = 0, thetaMax, true, nil
		return nil
	}
	if c.seedHash != thetaSeedHash {
		return errThetaCorrupt
	}
	x.theta = min(x.theta, c.theta)
	switch {
	case x.count == 0 || len(c.hashes) == 0:
		x.count, x.hashes = 0, nil
	case x.count < 0:
		x.hashes = make(map[uint64]struct{}, len(c.hashes))
		for _, h := range c.hashes {
			if h < x.theta {
				x.hashes[h] = struct{}{}
			}
		}
		x.count = len(x.hashes)
	default:
		matches := map[uint64]struct{}{}
		for _, h := range c.hashes {
			if h >= x.theta {
				break
			}
			if _, ok := x.hashes[h]; ok {
				matches[h] = struct{}{}
			}
		}
		x.hashes, x.count = matches, len(matches)
		if x.count == 0 && x.theta == thetaMax {
			x.empty = true
		}
	}
	return nil
}

var errThetaUniversal = errors.New("Calling getResult() with no intervening intersections would represent the infinite set, which is not a legal result.")

func (x *thetaIntersection) result() (*thetaCompact, error) {
	if x.count < 0 {
		return nil, errThetaUniversal
	}
	return newThetaCompact(sortedHashes(x.hashes, x.theta), x.theta, x.empty), nil
}

// thetaANotB is AnotB.aNotB(a, b): a's hashes below both thetas that b does not hold.
func thetaANotB(a, b *thetaCompact) (*thetaCompact, error) {
	if a.empty {
		return a, nil
	}
	if a.seedHash != thetaSeedHash {
		return nil, errThetaCorrupt
	}
	if b.empty {
		return a, nil
	}
	if b.seedHash != thetaSeedHash {
		return nil, errThetaCorrupt
	}
	minTheta := min(a.theta, b.theta)
	inB := make(map[uint64]struct{}, len(b.hashes))
	for _, h := range b.hashes {
		if h < minTheta {
			inB[h] = struct{}{}
		}
	}
	var out []uint64
	for _, h := range a.hashes {
		if _, ok := inB[h]; !ok && h < minTheta {
			out = append(out, h)
		}
	}
	return newThetaCompact(out, minTheta, len(out) == 0 && minTheta == thetaMax), nil
}
