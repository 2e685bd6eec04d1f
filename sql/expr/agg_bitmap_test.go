package expr

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// bitmapOf is a 4096-byte bitmap filled with fill, with the given bytes set.
func bitmapOf(fill byte, set map[int]byte) []byte {
	b := bytes.Repeat([]byte{fill}, bitmapBytes)
	for i, v := range set {
		b[i] = v
	}
	return b
}

// TestBitmapAggregates checks the bitmap aggregates against Apache Spark 4.2's answers for the
// same rows (SELECT bitmap_..._agg(x) FROM VALUES ... t(x), one group per query there).
func TestBitmapAggregates(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	longs := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	bins := []sqltypes.Field{{Name: "x", Type: sqltypes.BinaryType, Nullable: true}}
	a5000 := bytes.Repeat([]byte("a"), 5000)
	cases := []struct {
		name   string
		fields []sqltypes.Field
		xs     []any
		groups []uint32
		want   [][]byte
	}{
		// (1), (3), (5) | (32767), (8) | NULL | no rows.
		{"bitmap_construct_agg", longs, []any{int64(1), int64(3), int64(5), int64(32767), int64(8), nil},
			[]uint32{0, 0, 0, 1, 1, 2},
			[][]byte{bitmapOf(0, map[int]byte{0: 0x2A}), bitmapOf(0, map[int]byte{1: 0x01, 4095: 0x80}), bitmapOf(0, nil), bitmapOf(0, nil)}},
		// (X'10'), (X'20') | NULL | 5000 bytes of 'a' | no rows.
		{"bitmap_or_agg", bins, []any{[]byte{0x10}, []byte{0x20}, nil, a5000}, []uint32{0, 0, 1, 2},
			[][]byte{bitmapOf(0, map[int]byte{0: 0x30}), bitmapOf(0, nil), bitmapOf('a', nil), bitmapOf(0, nil)}},
		// (X'30'), (X'20') | (X'30') | NULL | 5000 bytes of 'a'.
		{"bitmap_and_agg", bins, []any{[]byte{0x30}, []byte{0x20}, []byte{0x30}, nil, a5000}, []uint32{0, 0, 1, 2, 3},
			[][]byte{bitmapOf(0, map[int]byte{0: 0x20}), bitmapOf(0, map[int]byte{0: 0x30}), bitmapOf(0xFF, nil), bitmapOf('a', nil)}},
	}
	for _, c := range cases {
		f, got := runAgg(t, env, c.name, false, c.fields, c.groups, len(c.want), nil, c.xs)
		if f.String() != c.name+"(x)" || f.Type().Kind != sqltypes.Binary || f.Nullable() {
			t.Errorf("%s: %s of type %s (nullable %v)", c.name, f.String(), f.Type().SQL(), f.Nullable())
		}
		for g, w := range c.want {
			if b, _ := got[g].([]byte); !bytes.Equal(b, w) {
				t.Errorf("%s group %d = %x…(%d bytes), want %x…", c.name, g, b[:min(len(b), 4)], len(b), w[:4])
			}
		}
	}
	for _, p := range []int64{32768, -1} {
		f, err := BindAggregate("bitmap_construct_agg", []Expr{col(0, "x", sqltypes.LongType)}, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		acc := f.NewAccumulator(env.ctx)
		acc.Grow(1)
		b := env.batch(longs, []any{p})
		arrs, err := evalAll(env.ctx, f.Args(), b)
		if err != nil {
			t.Fatal(err)
		}
		err = acc.Update([]uint32{0}, arrs)
		want := fmt.Sprintf("The 0-indexed bitmap position %d is out of bounds. The bitmap has 32768 bits (4096 bytes).", p)
		if se, ok := sparkerr.As(err); !ok || se.Class != "INVALID_BITMAP_POSITION" || se.Message != want {
			t.Errorf("position %d: %v", p, err)
		}
		releaseAll(arrs)
		b.Release()
	}
	for _, name := range []string{"bitmap_or_agg", "bitmap_and_agg"} {
		if _, err := BindAggregate(name, []Expr{col(0, "x", sqltypes.StringType)}, false, Options{ANSI: true}); errClass(err) != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" {
			t.Errorf("%s of a STRING: %v", name, err)
		}
	}
}
