package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// bitmap_construct_agg(position), bitmap_or_agg(bitmap), bitmap_and_agg(bitmap): a group's
// bitmap of bitmapBytes bytes (funcs_bitmap.go), never NULL. construct sets the bit of each
// position (a BIGINT, implicitly cast; outside [0, 32768) is INVALID_BITMAP_POSITION); or ORs
// and and ANDs each BINARY's first 4096 bytes into it, a shorter one counting as padded with
// zeros. NULL inputs are skipped: an empty group is all zeros (all ones for and), as Spark.
// The state is one bitmap per group, so rows cannot be retracted.

func init() {
	registerAggregate(1, 1, bindBitmapAgg, "bitmap_construct_agg", "bitmap_or_agg", "bitmap_and_agg")
}

func bindBitmapAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	x := args[0]
	if name == "bitmap_construct_agg" {
		c, err := bitmapLongArg(name, args, opts)
		if err != nil {
			return nil, err
		}
		x = c
	} else if x.Type().Kind != sqltypes.Binary {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"BINARY"`, x)
	}
	return &aggFunc{name: name, args: []Expr{x}, display: args, distinct: distinct, t: sqltypes.BinaryType,
		noRetract: true,
		newAcc:    func(*Context) GroupedAccumulator { return &bitmapAcc{name: name} }}, nil
}

// bitmapAcc keeps one bitmap per group, allocated on the group's first input.
type bitmapAcc struct {
	name   string
	groups [][]byte
}

func (a *bitmapAcc) Grow(n int)       { a.groups = growTo(a.groups, n) }
func (a *bitmapAcc) SizeBytes() int64 { return int64(len(a.groups)) * (24 + bitmapBytes) }

// bitmap returns group g's bitmap, creating it empty (all ones for and).
func (a *bitmapAcc) bitmap(g uint32) []byte {
	b := a.groups[g]
	if b == nil {
		b = make([]byte, bitmapBytes)
		if a.name == "bitmap_and_agg" {
			for i := range b {
				b[i] = 0xFF
			}
		}
		a.groups[g] = b
	}
	return b
}

func (a *bitmapAcc) Update(groups []uint32, args []arrow.Array) error {
	if a.name == "bitmap_construct_agg" {
		for i, g := range groups {
			if args[0].IsNull(i) {
				continue
			}
			p := ValueAt(args[0], i, sqltypes.LongType).(int64)
			if p < 0 || p >= bitmapBits {
				return invalidBitmapPosition(p)
			}
			a.bitmap(g)[p/8] |= 1 << (p % 8)
		}
		return nil
	}
	for i, g := range groups {
		if args[0].IsNull(i) {
			continue
		}
		v := ValueAt(args[0], i, sqltypes.BinaryType).([]byte)
		b := a.bitmap(g)
		if a.name == "bitmap_or_agg" {
			for j := 0; j < len(v) && j < bitmapBytes; j++ {
				b[j] |= v[j]
			}
			continue
		}
		for j := range b {
			if j < len(v) {
				b[j] &= v[j]
			} else {
				b[j] = 0
			}
		}
	}
	return nil
}

func invalidBitmapPosition(p int64) *sparkerr.Error {
	s := strconv.FormatInt(p, 10)
	return sparkerr.Newf(sparkArrayIndexOutOfBounds, "INVALID_BITMAP_POSITION", "22003",
		"The 0-indexed bitmap position %s is out of bounds. The bitmap has %d bits (%d bytes).", s, bitmapBits, bitmapBytes).
		WithParams("bitPosition", s, "bitmapNumBytes", strconv.Itoa(bitmapBytes), "bitmapNumBits", strconv.Itoa(bitmapBits))
}

func (a *bitmapAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *bitmapAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		b := a.groups[g]
		if b == nil {
			b = a.bitmap(g)
			a.groups[g] = nil // an empty group keeps no state
		}
		out[i] = append([]byte(nil), b...)
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}
