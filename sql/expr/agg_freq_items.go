package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func init() {
	registerAggregate(2, 2, bindFreqItems, "collect_frequent_items")
}

// bindFreqItems binds collect_frequent_items(x, size), the aggregate behind df.stat.freqItems
// (Spark's CollectFrequentItems, not one of Spark's SQL functions): the items of x that the
// frequent-element algorithm of Karp, Schenker and Papadimitriou keeps with at most size
// counters, as an array (NULL is an item like any other). Every item more frequent than
// 1/size of the rows is in it; others may be (false positives).
func bindFreqItems(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	size, ok := args[1].(*Literal)
	if !ok || size.Value == nil || !size.Type().IsIntegral() {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 1, `"INT"`, args[1])
	}
	n := int(toInt64(size.Value))
	if n < 1 {
		n = 1
	}
	in := args[0].Type()
	return &aggFunc{name: name, args: args[:1], display: args, t: sqltypes.ArrayType(in, true),
		noRetract: true,
		newAcc:    func(*Context) GroupedAccumulator { return &freqItemsAcc{t: in, size: n} }}, nil
}

// freqItemsAcc keeps per group at most size counters, in the order items first got one.
type freqItemsAcc struct {
	t      sqltypes.DataType
	size   int
	groups []*freqCounter
	bytes  int64
}

// freqCounter is one group's counters: item keys (valueKey) in insertion order.
type freqCounter struct {
	keys   []any
	items  map[any]any
	counts map[any]int64
}

func (a *freqItemsAcc) Grow(n int)       { a.groups = growTo(a.groups, n) }
func (a *freqItemsAcc) SizeBytes() int64 { return a.bytes + int64(len(a.groups))*8 }

func (a *freqItemsAcc) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	for i, g := range groups {
		c := a.groups[g]
		if c == nil {
			c = &freqCounter{items: map[any]any{}, counts: map[any]int64{}}
			a.groups[g] = c
		}
		v := ValueAt(arr, i, a.t)
		a.add(c, valueKey(v, a.t), v, 1)
	}
	return nil
}

// add counts n more of item v (key k): a known item's counter grows; a new one gets a counter
// while fewer than size are in use; otherwise every counter drops by n and those that reach
// zero are freed (the new item is not kept), as Spark's FreqItemCounter.add.
func (a *freqItemsAcc) add(c *freqCounter, k, v any, n int64) {
	if _, ok := c.counts[k]; ok {
		c.counts[k] += n
		return
	}
	if len(c.keys) < a.size {
		c.keys = append(c.keys, k)
		c.items[k], c.counts[k] = v, n
		a.bytes += 48
		return
	}
	kept := c.keys[:0]
	for _, key := range c.keys {
		if left := c.counts[key] - n; left > 0 {
			c.counts[key] = left
			kept = append(kept, key)
			continue
		}
		delete(c.counts, key)
		delete(c.items, key)
		a.bytes -= 48
	}
	clear(c.keys[len(kept):])
	c.keys = kept
}

func (a *freqItemsAcc) Retract([]uint32, []arrow.Array) error {
	return errInsertOnly
}

func (a *freqItemsAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		list := []any{}
		if c := a.groups[g]; c != nil {
			for _, k := range c.keys {
				list = append(list, c.items[k])
			}
		}
		out[i] = list
	}
	return BuildArray(ctx.mem(), sqltypes.ArrayType(a.t, true), ctx.tz(), out), nil
}
