package expr

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestCheckGroupState(t *testing.T) {
	ctx := &Context{Mem: memory.NewGoAllocator(), ANSI: true}
	x := &Column{Index: 0, Name: "x", T: sqltypes.LongType, Null: true}
	for _, c := range []struct {
		name string
		ok   bool
	}{{"count", true}, {"sum", true}, {"avg", true}, {"min", true}, {"max", true}, {"collect_list", true},
		{"approx_count_distinct", false}, {"percentile_approx", false}} {
		args := []Expr{x}
		if strings.HasPrefix(c.name, "percentile") {
			args = append(args, NewLiteral(0.5, sqltypes.DoubleType))
		}
		f, err := BindAggregate(c.name, args, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		err = CheckGroupState(ctx, f)
		if c.ok != (err == nil) {
			t.Errorf("%s: CheckGroupState = %v", c.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "spilling the streaming state of aggregate") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
