package expr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// KLL sketches' binary layout (DataSketches' KllPreambleUtil), little-endian: byte 0 the
// preamble ints (2 or 5), 1 the serial version (1 compact, 2 compact single item, 3 updatable),
// 2 the family (15), 3 the flags (1 empty, 2 level 0 sorted, 4 single item), 4-5 k, 6 m. An
// empty sketch ends there; a single item follows at byte 8. The full compact form goes on with
// n (8 bytes), the dynamic min k (2), the number of levels (1), one unused byte, the level
// offsets but the last (4 each), min, max and the retained items. The updatable form (read
// only) keeps all offsets and the whole items array.

const (
	kllFamily         = 15
	kllFlagEmpty      = 1
	kllFlagL0Sorted   = 2
	kllFlagSingleItem = 4
)

var errKllCorrupt = errors.New("expr: not a valid KLL sketch")

// kllCodec reads and writes one item type.
type kllCodec[T kllItem] struct {
	size   int
	put    func(b []byte, v T) []byte
	get    func(b []byte) T
	format func(v T) string
	name   string // DataSketches' sketch type name
}

var (
	kllLongs = kllCodec[int64]{8,
		func(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) },
		func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) },
		func(v int64) string { return strconv.FormatInt(v, 10) }, "KllLongsSketch"}
	kllFloats = kllCodec[float32]{4,
		func(b []byte, v float32) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(v)) },
		func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) },
		formatFloat, "KllFloatsSketch"}
	kllDoubles = kllCodec[float64]{8,
		func(b []byte, v float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) },
		func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) },
		formatDouble, "KllDoublesSketch"}
)

// bytes is toByteArray: the compact form.
func (c kllCodec[T]) bytes(s *kllSketch[T]) []byte {
	preInts, serVer := byte(5), byte(1)
	if s.n <= 1 {
		preInts, serVer = 2, byte(1+s.n)
	}
	b := kllHeader(s, preInts, serVer)
	switch s.n {
	case 0:
		return b
	case 1:
		return c.put(b, s.items[s.levels[0]])
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(s.n))
	b = binary.LittleEndian.AppendUint16(b, uint16(s.minK))
	b = append(b, byte(s.numLevels), 0)
	for _, l := range s.levels[:s.numLevels] {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	b = c.put(c.put(b, s.min), s.max)
	for _, v := range s.items[s.levels[0]:s.levels[s.numLevels]] {
		b = c.put(b, v)
	}
	return b
}

// kllHeader is the first 8 bytes: preamble ints, serial version, family, flags, k, m.
func kllHeader[T kllItem](s *kllSketch[T], preInts, serVer byte) []byte {
	var flags byte
	if s.empty() {
		flags |= kllFlagEmpty
	}
	if s.levelZeroSorted {
		flags |= kllFlagL0Sorted
	}
	if s.n == 1 {
		flags |= kllFlagSingleItem
	}
	b := []byte{preInts, serVer, kllFamily, flags}
	b = binary.LittleEndian.AppendUint16(b, uint16(s.k))
	return append(b, byte(s.m), 0)
}

// read is heapify: a compact (empty, single item or full) or updatable sketch.
func (c kllCodec[T]) read(b []byte) (*kllSketch[T], error) {
	if len(b) < 8 || b[2] != kllFamily {
		return nil, errKllCorrupt
	}
	preInts, serVer, flags := b[0], b[1], b[3]
	k, m := int(binary.LittleEndian.Uint16(b[4:])), int(b[6])
	if m < 2 || m > 8 || m%2 == 1 || k < m {
		return nil, errKllCorrupt
	}
	empty := flags&kllFlagEmpty != 0
	s := &kllSketch[T]{k: k, m: m, minK: k, numLevels: 1, levelZeroSorted: flags&kllFlagL0Sorted != 0}
	switch {
	case preInts == 2 && serVer == 1:
		if !empty {
			return nil, errKllCorrupt
		}
		s.levels, s.items = []int{k, k}, make([]T, k)
		return s, nil
	case preInts == 2 && serVer == 2:
		if empty || len(b) < 8+c.size {
			return nil, errKllCorrupt
		}
		s.levels, s.items = []int{k - 1, k}, make([]T, k)
		v := c.get(b[8:])
		s.items[k-1], s.n, s.min, s.max = v, 1, v, v
		return s, nil
	case preInts == 5 && (serVer == 1 || serVer == 3):
		return c.readFull(b, s, serVer == 3, empty)
	}
	return nil, errKllCorrupt
}

func (c kllCodec[T]) readFull(b []byte, s *kllSketch[T], updatable, empty bool) (*kllSketch[T], error) {
	if len(b) < 20 || empty && !updatable {
		return nil, errKllCorrupt
	}
	s.n = int64(binary.LittleEndian.Uint64(b[8:]))
	s.minK = int(binary.LittleEndian.Uint16(b[16:]))
	s.numLevels = int(b[18])
	stored := s.numLevels
	if updatable {
		stored++
	}
	if s.numLevels < 1 || s.n < 0 || len(b) < 20+4*stored {
		return nil, errKllCorrupt
	}
	s.levels = make([]int, s.numLevels+1)
	for i := 0; i < stored; i++ {
		s.levels[i] = int(binary.LittleEndian.Uint32(b[20+4*i:]))
	}
	capacity := kllTotalCapacity(s.k, s.m, s.numLevels)
	if !updatable {
		s.levels[s.numLevels] = capacity
	} else {
		capacity = s.levels[s.numLevels]
	}
	var weight int64
	for i := 0; i < s.numLevels; i++ {
		if s.levels[i] < 0 || s.levels[i] > s.levels[i+1] || s.levels[i+1] > capacity {
			return nil, errKllCorrupt
		}
		weight += int64(s.levels[i+1]-s.levels[i]) << i
	}
	off := 20 + 4*stored
	first := s.levels[0]
	if updatable {
		first = 0
	}
	if weight != s.n || len(b) < off+c.size*(2+capacity-first) {
		return nil, errKllCorrupt
	}
	s.min, s.max = c.get(b[off:]), c.get(b[off+c.size:])
	off += 2 * c.size
	s.items = make([]T, capacity)
	for i := first; i < capacity; i++ {
		s.items[i] = c.get(b[off:])
		off += c.size
	}
	return s, nil
}

// serializedSize is currentSerializedSizeBytes.
func (c kllCodec[T]) serializedSize(s *kllSketch[T], updatable bool) int {
	if updatable {
		return 20 + 4*(s.numLevels+1) + c.size*(2+s.levels[s.numLevels])
	}
	switch s.n {
	case 0:
		return 8
	case 1:
		return 8 + c.size
	}
	return 20 + 4*s.numLevels + c.size*(2+s.retained())
}

// String is the sketch's toString(): DataSketches' summary of a heapified sketch.
func (c kllCodec[T]) String(s *kllSketch[T]) string {
	var b strings.Builder
	line := func(label string, v any) { fmt.Fprintf(&b, "   %-23s: %v\n", label, v) }
	eps := func(pmf bool) string {
		e := 2.296 / math.Pow(float64(s.minK), 0.9723)
		if pmf {
			e = 2.446 / math.Pow(float64(s.minK), 0.9433)
		}
		return strconv.FormatFloat(e*100, 'f', 3, 64) + "%"
	}
	minS, maxS := "NaN", "NaN"
	if !s.empty() {
		minS, maxS = c.format(s.min), c.format(s.max)
	}
	b.WriteString("\n### Kll" + c.name + " Summary:\n")
	line("K", s.k)
	line("Dynamic min K", s.minK)
	line("M", s.m)
	line("N", s.n)
	line("Epsilon", eps(false))
	line("Epsilon PMF", eps(true))
	line("Empty", s.empty())
	line("Estimation Mode", s.estimationMode())
	line("Levels", s.numLevels)
	line("Level 0 Sorted", s.levelZeroSorted)
	line("Capacity Items", s.levels[s.numLevels])
	line("Retained Items", s.retained())
	line("Free Space", s.levels[0])
	line("ReadOnly", false)
	line("Updatable Storage Bytes", c.serializedSize(s, true))
	line("Compact Storage Bytes", c.serializedSize(s, false))
	line("Min Item", minS)
	line("Max Item", maxS)
	b.WriteString("### End sketch summary\n")
	return b.String()
}
