package expr

import (
	"fmt"
	"sync"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestXPathConcurrentRows evaluates one bound xpath_int from several goroutines at once (as
// partitions of one query do): each row's answer is its own document's sum.
func TestXPathConcurrentRows(t *testing.T) {
	e, err := Bind("xpath_int", []Expr{NewLiteral("<a/>", sqltypes.StringType), NewLiteral("sum(a/b)", sqltypes.StringType)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := e.(*rowFunc)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := g*1000 + i
				doc := fmt.Sprintf("<a><b>%d</b><b>%d</b></a>", n, n)
				v, err := f.fn(nil, []any{doc, "sum(a/b)"})
				if err != nil || v != int32(2*n) {
					errs <- fmt.Errorf("doc %s: got %v, %v", doc, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
