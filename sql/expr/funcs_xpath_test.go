package expr

import (
	"fmt"
	"strings"
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

// lolDocument declares l0 = "lol" and each l(i) as ten l(i-1), and uses l(levels).
func lolDocument(levels int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE a [<!ENTITY l0 "lol">`)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<!ENTITY l%d "%s">`, i, strings.Repeat(fmt.Sprintf("&l%d;", i-1), 10))
	}
	fmt.Fprintf(&b, "]><a>&l%d;</a>", levels)
	return b.String()
}

// TestXPathEntityExpansionBound: internal entities expand (3 levels: 3000 characters, as Spark
// gives), and a document whose entities would expand to 300 MB is refused as Spark refuses it
// (java.lang.RuntimeException "Error loading expression 'a'") without expanding it.
func TestXPathEntityExpansionBound(t *testing.T) {
	e, err := Bind("xpath_string", []Expr{NewLiteral("<a/>", sqltypes.StringType), NewLiteral("a", sqltypes.StringType)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := e.(*rowFunc)
	v, err := f.fn(nil, []any{lolDocument(3), "a"})
	if err != nil || len(v.(string)) != 3000 {
		t.Fatalf("3 levels: got %d characters, %v", len(fmt.Sprint(v)), err)
	}
	_, err = f.fn(nil, []any{lolDocument(8), "a"})
	if err == nil || errMessage(err) != "Error loading expression 'a'" || errClass(err) != "java.lang.RuntimeException" {
		t.Fatalf("8 levels: got %v", err)
	}
}
