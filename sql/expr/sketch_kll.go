package expr

import (
	"cmp"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// KLL quantile sketches as Apache DataSketches (Java 6.2, as Spark 4.2 ships) keeps them: a
// stack of levels over one items array filled from the top down; level 0 holds raw items and an
// item at level h stands for 2^h of them. A level of capacity max(m, k·(2/3)^depth) that fills
// is compacted: its items (sorted) are halved, keeping the odd or even ones at random, and the
// survivors merge into the level above; a full top level first grows the stack by one. Merging
// replays the other sketch's level 0 as updates and compacts the union of the higher levels.
// The halving's coin flips make a sketch of more than k items depend on chance (here as in
// DataSketches, whose Random is not seeded), so only sketches that never compacted are
// byte-identical to Spark's; n, min, max and every answer within the rank error are not chance.

type kllItem interface{ ~int64 | ~float32 | ~float64 }

const (
	kllDefaultK = 200
	kllMinK     = 8
	kllMaxK     = 65535
	kllM        = 8
)

// kllSketch is DataSketches' heap KLL sketch over items of type T.
type kllSketch[T kllItem] struct {
	k, m, minK      int
	n               int64
	numLevels       int
	levels          []int // numLevels+1 offsets into items; levels[numLevels] is the capacity
	items           []T
	min, max        T
	levelZeroSorted bool
}

func newKllSketch[T kllItem](k int) *kllSketch[T] {
	return &kllSketch[T]{k: k, m: kllM, minK: k, numLevels: 1, levels: []int{k, k}, items: make([]T, k)}
}

func (s *kllSketch[T]) empty() bool          { return s.n == 0 }
func (s *kllSketch[T]) estimationMode() bool { return s.numLevels > 1 }
func (s *kllSketch[T]) retained() int        { return s.levels[s.numLevels] - s.levels[0] }

// kllLevelCapacity is KllHelper.levelCapacity: max(m, round(k·(2/3)^depth)).
func kllLevelCapacity(k, numLevels, level, m int) int {
	depth := numLevels - level - 1
	return max(m, int(kllIntCapAux(int64(k), depth)))
}

func kllIntCapAux(k int64, depth int) int64 {
	if depth <= 30 {
		return kllIntCapAuxAux(k, depth)
	}
	half := depth / 2
	return kllIntCapAuxAux(kllIntCapAuxAux(k, half), depth-half)
}

func kllIntCapAuxAux(k int64, depth int) int64 {
	tmp := (k << 1 << depth) / int64(math.Pow(3, float64(depth)))
	return (tmp + 1) >> 1
}

func kllTotalCapacity(k, m, numLevels int) int {
	total := 0
	for l := 0; l < numLevels; l++ {
		total += kllLevelCapacity(k, numLevels, l, m)
	}
	return total
}

// update adds one item (callers skip NaN, as DataSketches does).
func (s *kllSketch[T]) update(item T) {
	if s.empty() {
		s.min, s.max = item, item
	} else {
		s.min, s.max = kllMin(s.min, item), kllMax(s.max, item)
	}
	if s.levels[0] == 0 {
		s.compressWhileUpdating()
	}
	s.n++
	s.levelZeroSorted = false
	s.levels[0]--
	s.items[s.levels[0]] = item
}

// kllMin and kllMax are Java's Math.min/max (-0.0 below 0.0).
func kllMin[T kllItem](a, b T) T {
	if b < a || b == a && math.Signbit(float64(b)) {
		return b
	}
	return a
}

func kllMax[T kllItem](a, b T) T {
	if b > a || b == a && !math.Signbit(float64(b)) {
		return b
	}
	return a
}

func (s *kllSketch[T]) findLevelToCompact() int {
	for level := 0; ; level++ {
		if s.levels[level+1]-s.levels[level] >= kllLevelCapacity(s.k, s.numLevels, level, s.m) {
			return level
		}
	}
}

// addEmptyTopLevel grows a completely full sketch by one level at the bottom of the array.
func (s *kllSketch[T]) addEmptyTopLevel() {
	curCap := s.levels[s.numLevels]
	delta := kllLevelCapacity(s.k, s.numLevels+1, 0, s.m)
	s.levels = append(s.levels, 0)
	s.numLevels++
	for l := 0; l < s.numLevels; l++ {
		s.levels[l] += delta
	}
	s.levels[s.numLevels] = curCap + delta
	items := make([]T, curCap+delta)
	copy(items[delta:], s.items)
	s.items = items
}

func (s *kllSketch[T]) compressWhileUpdating() {
	level := s.findLevelToCompact()
	if level == s.numLevels-1 {
		s.addEmptyTopLevel()
	}
	lv, buf := s.levels, s.items
	rawBeg, rawEnd := lv[level], lv[level+1]
	popAbove := lv[level+2] - rawEnd
	rawPop := rawEnd - rawBeg
	odd := rawPop%2 == 1
	adjBeg, adjPop := rawBeg, rawPop
	if odd {
		adjBeg, adjPop = rawBeg+1, rawPop-1
	}
	half := adjPop / 2
	kllCompactLevel(buf, adjBeg, adjPop, rawEnd, popAbove, level == 0)
	lv[level+1] -= half
	if odd {
		lv[level] = lv[level+1] - 1
		buf[lv[level]] = buf[rawBeg]
	} else {
		lv[level] = lv[level+1]
	}
	if level > 0 {
		copy(buf[lv[0]+half:], buf[lv[0]:rawBeg])
	}
	for l := 0; l < level; l++ {
		lv[l] += half
	}
}

// kllCompactLevel halves the even count n of items at buf[beg:] (sorting them first when
// unsorted): into the empty level above when popAbove is 0, else merged with the popAbove items
// of the level above at buf[above:], the result starting at beg+n/2.
func kllCompactLevel[T kllItem](buf []T, beg, n, above, popAbove int, sort bool) {
	if sort {
		slices.Sort(buf[beg : beg+n])
	}
	if popAbove == 0 {
		kllHalveUp(buf, beg, n)
		return
	}
	kllHalveDown(buf, beg, n)
	kllMergeSorted(buf[beg:beg+n/2], buf[above:above+popAbove], buf[beg+n/2:])
}

// kllHalveUp keeps every other item of buf[start:start+n] (odd or even at random) in its upper half.
func kllHalveUp[T kllItem](buf []T, start, n int) {
	j := start + n - 1 - rand.IntN(2)
	for i := start + n - 1; i >= start+n/2; i-- {
		buf[i] = buf[j]
		j -= 2
	}
}

// kllHalveDown keeps every other item of buf[start:start+n] in its lower half.
func kllHalveDown[T kllItem](buf []T, start, n int) {
	j := start + rand.IntN(2)
	for i := start; i < start+n/2; i++ {
		buf[i] = buf[j]
		j += 2
	}
}

// kllMergeSorted merges sorted a and b into out (out may overlap a's position ahead of it, as
// DataSketches' in-place merge: a ends where out's writes never overtake unread items).
func kllMergeSorted[T kllItem](a, b, out []T) {
	a, b = slices.Clone(a), slices.Clone(b)
	i, j := 0, 0
	for c := 0; c < len(a)+len(b); c++ {
		if j == len(b) || i < len(a) && a[i] < b[j] {
			out[c] = a[i]
			i++
		} else {
			out[c] = b[j]
			j++
		}
	}
}

// merge folds other into s (mergeLongsImpl and its float and double twins).
func (s *kllSketch[T]) merge(other *kllSketch[T]) {
	if other.empty() {
		return
	}
	myEmpty, myMin, myMax := s.empty(), s.min, s.max
	finalN := s.n + other.n
	for i := other.levels[0]; i < other.levels[1]; i++ {
		s.update(other.items[i])
	}
	if other.numLevels > 1 {
		s.mergeHigherLevels(other, finalN)
	}
	s.n = finalN
	if other.estimationMode() {
		s.minK = min(s.minK, other.minK)
	}
	if myEmpty {
		s.min, s.max = other.min, other.max
	} else {
		s.min, s.max = kllMin(myMin, other.min), kllMax(myMax, other.max)
	}
}

// mergeHigherLevels merges other's levels above 0 level by level into a work buffer and
// compacts it (generalLongsCompress).
func (s *kllSketch[T]) mergeHigherLevels(other *kllSketch[T], finalN int64) {
	provisional := max(s.numLevels, other.numLevels)
	ub := max(bits.Len64(uint64(finalN)), provisional) // ubOnNumLevels
	work := make([]T, 0, s.retained()+other.levels[other.numLevels]-other.levels[1])
	inLevels := make([]int, ub+2)
	work = append(work, s.items[s.levels[0]:s.levels[1]]...)
	inLevels[1] = len(work)
	size := func(sk *kllSketch[T], l int) []T {
		if l >= sk.numLevels {
			return nil
		}
		return sk.items[sk.levels[l]:sk.levels[l+1]]
	}
	for l := 1; l < provisional; l++ {
		a, b := size(s, l), size(other, l)
		merged := make([]T, len(a)+len(b))
		kllMergeSorted(a, b, merged)
		work = append(work, merged...)
		inLevels[l+1] = len(work)
	}
	outLevels := make([]int, ub+2)
	numLevels, target, count := kllGeneralCompress(s.k, s.m, provisional, work, inLevels, outLevels, s.levelZeroSorted)
	items := make([]T, target)
	free := target - count
	copy(items[free:], work[outLevels[0]:outLevels[0]+count])
	shift := free - outLevels[0]
	levels := make([]int, numLevels+1)
	for l := range levels {
		levels[l] = outLevels[l] + shift
	}
	s.numLevels, s.levels, s.items = numLevels, levels, items
}

// kllGeneralCompress compacts the levels of buf (in place; outLevels receives the new
// boundaries) until the items fit the capacity of the levels, adding levels as needed. It
// returns the number of levels, the capacity and the item count.
func kllGeneralCompress[T kllItem](k, m, numLevels int, buf []T, inLevels, outLevels []int, levelZeroSorted bool) (int, int, int) {
	count := inLevels[numLevels] - inLevels[0]
	target := kllTotalCapacity(k, m, numLevels)
	outLevels[0] = 0
	for cur := 0; ; cur++ {
		if cur == numLevels-1 {
			inLevels[cur+2] = inLevels[cur+1]
		}
		rawBeg, rawLim := inLevels[cur], inLevels[cur+1]
		rawPop := rawLim - rawBeg
		if count < target || rawPop < kllLevelCapacity(k, numLevels, cur, m) {
			copy(buf[outLevels[cur]:], buf[rawBeg:rawLim])
			outLevels[cur+1] = outLevels[cur] + rawPop
		} else {
			popAbove := inLevels[cur+2] - rawLim
			odd := rawPop%2 == 1
			adjBeg, adjPop := rawBeg, rawPop
			if odd {
				adjBeg, adjPop = rawBeg+1, rawPop-1
				buf[outLevels[cur]] = buf[rawBeg]
				outLevels[cur+1] = outLevels[cur] + 1
			} else {
				outLevels[cur+1] = outLevels[cur]
			}
			half := adjPop / 2
			kllCompactLevel(buf, adjBeg, adjPop, rawLim, popAbove, cur == 0 && !levelZeroSorted)
			count -= half
			inLevels[cur+1] -= half
			if cur == numLevels-1 {
				numLevels++
				target += kllLevelCapacity(k, numLevels, 0, m)
			}
		}
		if cur == numLevels-1 {
			return numLevels, target, count
		}
	}
}

var errKllEmpty = errors.New("The sketch must not be empty for this operation.")

// sortedView is the sketch's items in order with their cumulative weights (a non-empty sketch).
func (s *kllSketch[T]) sortedView() ([]T, []int64) {
	type entry struct {
		v T
		w int64
	}
	var all []entry
	for l := 0; l < s.numLevels; l++ {
		for _, v := range s.items[s.levels[l]:s.levels[l+1]] {
			all = append(all, entry{v, int64(1) << l})
		}
	}
	slices.SortStableFunc(all, func(a, b entry) int { return cmp.Compare(a.v, b.v) })
	vals, cum := make([]T, len(all)), make([]int64, len(all))
	var total int64
	for i, e := range all {
		total += e.w
		vals[i], cum[i] = e.v, total
	}
	return s.includeMinMax(vals, cum)
}

// includeMinMax is IncludeMinMax: the exact min and max stand at the ends of the sorted view
// (the min with weight 1, the max taking one unit from the item below it).
func (s *kllSketch[T]) includeMinMax(vals []T, cum []int64) ([]T, []int64) {
	n := len(vals)
	adjLow, adjHigh := vals[0] != s.min, vals[n-1] != s.max
	if !adjLow && !adjHigh {
		return vals, cum
	}
	if adjLow {
		vals, cum = append([]T{s.min}, vals...), append([]int64{1}, cum...)
	}
	if adjHigh {
		last := cum[len(cum)-1]
		vals, cum = append(vals, s.max), append(cum, last)
		cum[len(cum)-2] = last - 1
	}
	return vals, cum
}

// quantile is getQuantile(rank, INCLUSIVE): the first item whose cumulative weight reaches
// ceil(rank·n) (rank·n rounded to 7 decimals first when n <= 10^7).
func (s *kllSketch[T]) quantile(vals []T, cum []int64, rank float64) T {
	natural := rank * float64(s.n)
	if s.n <= 1e7 {
		natural = math.Floor(natural*1e7+0.5) / 1e7
	}
	target := float64(int64(math.Ceil(natural)))
	i, _ := slices.BinarySearchFunc(cum, target, func(c int64, t float64) int { return cmp.Compare(float64(c), t) })
	if i == len(cum) {
		return vals[len(vals)-1]
	}
	return vals[i]
}

// rank is getRank(q, INCLUSIVE): the weight of the items <= q over n.
func (s *kllSketch[T]) rank(vals []T, cum []int64, q T) float64 {
	i, found := slices.BinarySearch(vals, q)
	for found && i < len(vals) && vals[i] == q {
		i++
	}
	if i == 0 {
		return 0
	}
	return float64(cum[i-1]) / float64(s.n)
}
