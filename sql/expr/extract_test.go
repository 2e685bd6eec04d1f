package expr

import (
	"fmt"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// TestArrayIndexANSI checks array[i] (0-based): INVALID_ARRAY_INDEX past either end under ANSI,
// NULL otherwise.
func TestArrayIndexANSI(t *testing.T) {
	arr, err := Bind("array", []Expr{NewLiteral(int32(1), intType), NewLiteral(int32(2), intType)}, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		idx   int32
		ansi  bool
		want  any
		class string
	}{
		{1, true, int32(2), ""},
		{0, true, int32(1), ""},
		{5, true, nil, "INVALID_ARRAY_INDEX"},
		{2, true, nil, "INVALID_ARRAY_INDEX"},
		{-1, true, nil, "INVALID_ARRAY_INDEX"},
		{5, false, nil, ""},
		{-1, false, nil, ""},
	} {
		env := newEnv(t, c.ansi)
		e, err := BindExtractValue(arr, NewLiteral(c.idx, intType))
		if err != nil {
			t.Fatal(err)
		}
		b := env.emptyBatch(1)
		vals, err := env.eval(e, b)
		b.Release()
		switch {
		case c.class != "":
			if errClass(err) != c.class {
				t.Errorf("[%d] ansi=%v: got %v, want %s", c.idx, c.ansi, err, c.class)
			}
			if se, ok := sparkerr.As(err); ok && (se.Params["indexValue"] != fmt.Sprint(c.idx) || se.Params["arraySize"] != "2") {
				t.Errorf("[%d]: parameters %v", c.idx, se.Params)
			}
		case err != nil || vals[0] != c.want:
			t.Errorf("[%d] ansi=%v: got %v, %v; want %v", c.idx, c.ansi, vals, err, c.want)
		}
		env.close()
	}
}
