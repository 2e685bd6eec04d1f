package sources

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"

	"github.com/weirhq/weir/sparkerr"
)

// OffsetComparer is implemented by stream sources whose offsets need their own order; the
// EpochSource's continuous mode compares offsets with it when the source provides it, and with
// CompareOffsets otherwise.
type OffsetComparer interface {
	// CompareOffsets returns -1, 0 or 1 as a is before, at or after b, or an error when they
	// are not ordered.
	CompareOffsets(a, b Offset) (int, error)
}

// CompareOffsets orders two JSON offsets: numbers by value; objects and arrays component-wise
// (a missing key or element is before any value), where a is before b only if no component of
// a is after b's; equal strings, booleans and nulls are equal. Offsets whose components move in
// both directions are not ordered (an error).
func CompareOffsets(a, b Offset) (int, error) {
	if bytes.Equal(a, b) {
		return 0, nil
	}
	va, err := decodeOffset(a)
	if err != nil {
		return 0, err
	}
	vb, err := decodeOffset(b)
	if err != nil {
		return 0, err
	}
	c, ok := compareJSON(va, vb)
	if !ok {
		return 0, sparkerr.Internal("the offsets %s and %s are not ordered", string(a), string(b))
	}
	return c, nil
}

func decodeOffset(o Offset) (any, error) {
	d := json.NewDecoder(bytes.NewReader(o))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, sparkerr.Internal("the offset %q is not JSON", string(o)).Wrap(err)
	}
	return v, nil
}

// compareJSON compares decoded JSON values; ok is false when they are not ordered.
func compareJSON(a, b any) (int, bool) {
	switch x := a.(type) {
	case json.Number:
		y, isNum := b.(json.Number)
		if !isNum {
			return 0, false
		}
		fx, okx := new(big.Float).SetString(string(x))
		fy, oky := new(big.Float).SetString(string(y))
		if !okx || !oky {
			return 0, false
		}
		return fx.Cmp(fy), true
	case map[string]any:
		y, isMap := b.(map[string]any)
		if !isMap {
			return 0, false
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		cs := make([]int, 0, len(keys))
		for _, k := range keys {
			ex, inX := x[k]
			ey, inY := y[k]
			c, ok := compareComponent(ex, inX, ey, inY)
			if !ok {
				return 0, false
			}
			cs = append(cs, c)
		}
		return combine(cs)
	case []any:
		y, isArr := b.([]any)
		if !isArr {
			return 0, false
		}
		cs := make([]int, 0, max(len(x), len(y)))
		for i := 0; i < max(len(x), len(y)); i++ {
			var ex, ey any
			if i < len(x) {
				ex = x[i]
			}
			if i < len(y) {
				ey = y[i]
			}
			c, ok := compareComponent(ex, i < len(x), ey, i < len(y))
			if !ok {
				return 0, false
			}
			cs = append(cs, c)
		}
		return combine(cs)
	default:
		// strings, booleans, null: ordered only when equal.
		if a == b {
			return 0, true
		}
		return 0, false
	}
}

func compareComponent(a any, inA bool, b any, inB bool) (int, bool) {
	switch {
	case inA && inB:
		return compareJSON(a, b)
	case inA:
		return 1, true
	case inB:
		return -1, true
	}
	return 0, true
}

// combine folds component comparisons: all ≤ 0 is before (or equal), all ≥ 0 after.
func combine(cs []int) (int, bool) {
	res := 0
	for _, c := range cs {
		if c == 0 {
			continue
		}
		if res != 0 && c != res {
			return 0, false
		}
		res = c
	}
	return res, true
}
