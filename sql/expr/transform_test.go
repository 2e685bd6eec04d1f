package expr

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestRebuildCoversEveryType reads this package's sources: every type with a Children method
// (or embedding one that has it) must be a case of rebuild's type switch, so that a new
// expression type without rewriting support fails here rather than in the optimizer.
func TestRebuildCoversEveryType(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	withChildren := map[string]bool{} // types declaring Children
	embeds := map[string][]string{}   // struct type -> embedded type names
	cases := map[string]bool{}
	for _, f := range pkgs["expr"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "Children" {
					withChildren[recvName(d.Recv.List[0].Type)] = true
				}
				if d.Recv == nil && d.Name.Name == "rebuild" {
					ast.Inspect(d.Body, func(n ast.Node) bool {
						if cc, ok := n.(*ast.CaseClause); ok {
							for _, e := range cc.List {
								cases[recvName(e)] = true
							}
						}
						return true
					})
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fd := range st.Fields.List {
						if len(fd.Names) == 0 {
							embeds[ts.Name.Name] = append(embeds[ts.Name.Name], recvName(fd.Type))
						}
					}
				}
			}
		}
	}
	for typ, emb := range embeds {
		for _, e := range emb {
			if withChildren[e] || e == "Expr" {
				withChildren[typ] = true
			}
		}
	}
	var missing []string
	for typ := range withChildren {
		switch typ {
		case "Column", "Literal", "LambdaVariable", "generator": // leaves; generators via GeneratorWithArgs
			continue
		}
		if !cases[typ] {
			missing = append(missing, typ)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("rebuild (transform.go) has no case for %v", missing)
	}
	if len(cases) < 20 {
		t.Fatalf("found only %d cases in rebuild: the source scan is broken", len(cases))
	}
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	}
	return ""
}

// TestRemapColumnsEvaluatesAlike binds every registered scalar function over column arguments
// of a few type signatures and checks that, moved one column to the right over a batch with an
// extra leading column, it evaluates to the same values (and renders the same).
func TestRemapColumnsEvaluatesAlike(t *testing.T) {
	env := newEnv(t, false)
	defer env.close()
	fields := []sqltypes.Field{
		{Name: "i", Type: sqltypes.IntegerType, Nullable: true},
		{Name: "s", Type: sqltypes.StringType, Nullable: true},
		{Name: "d", Type: sqltypes.DoubleType, Nullable: true},
		{Name: "ai", Type: sqltypes.ArrayType(sqltypes.IntegerType, true), Nullable: true},
		{Name: "b", Type: sqltypes.BooleanType, Nullable: true},
	}
	vals := [][]any{{int32(3), nil, int32(-7)}, {"a,b", "x", nil}, {1.5, nil, -2.25},
		{[]any{int32(1), int32(2)}, nil, []any{}}, {true, false, nil}}
	b := env.batch(fields, vals...)
	defer b.Release()
	shifted := env.batch(append([]sqltypes.Field{{Name: "pad", Type: sqltypes.LongType, Nullable: true}}, fields...),
		append([][]any{{int64(0), int64(1), int64(2)}}, vals...)...)
	defer shifted.Release()
	c := func(i int) Expr { return &Column{Index: i, Name: fields[i].Name, T: fields[i].Type, Null: true} }
	sigs := [][]Expr{{c(0)}, {c(1)}, {c(2)}, {c(3)}, {c(4)}, {c(0), c(0)}, {c(1), c(1)}, {c(2), c(2)},
		{c(1), c(0)}, {c(3), c(0)}, {c(4), c(0), c(0)}, {c(1), c(0), c(0)}, {c(1), c(1), c(1)}}
	checked := 0
	for _, name := range FunctionNames() {
		if IsAggregate(name) {
			continue
		}
		for _, args := range sigs {
			e, err := Bind(name, args, Options{})
			if err != nil || len(e.Children()) == 0 || !IsDeterministic(e) {
				continue
			}
			if !Rewritable(e) {
				t.Fatalf("%s(%v): %T is not rewritable", name, args, e)
			}
			moved := ShiftColumns(e, 1)
			if moved.String() != e.String() {
				t.Fatalf("%s: rendering changed: %s -> %s", name, e, moved)
			}
			want, err1 := env.eval(e, b)
			got, err2 := env.eval(moved, shifted)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("%s: errors differ: %v vs %v", e, err1, err2)
			}
			if err1 == nil && fmt.Sprint(want) != fmt.Sprint(got) && !reflect.DeepEqual(want, got) && !strings.Contains(name, "uuid") {
				t.Fatalf("%s: %v, moved %v", e, want, got)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Fatalf("only %d bindings checked", checked)
	}
	t.Logf("%d bindings checked", checked)
}

// TestRemapHigherOrder checks a lambda's outer column reference moves and the rebuilt call has
// its own parameters.
func TestRemapHigherOrder(t *testing.T) {
	env := newEnv(t, false)
	defer env.close()
	x := &LambdaVariable{Name: "x", T: sqltypes.IntegerType, Null: true}
	outer := &Column{Index: 1, Name: "i", T: sqltypes.IntegerType, Null: true}
	arr := &Column{Index: 0, Name: "ai", T: sqltypes.ArrayType(sqltypes.IntegerType, true), Null: true}
	body := mustBind(t, "+", Options{}, x, outer)
	h, err := BindHigherOrder("transform", []Expr{arr}, []Lambda{{Params: []*LambdaVariable{x}, Body: body}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	moved := RemapColumns(h, func(i int) int { return 1 - i })
	if got := moved.(*hof).lambdas[0].Params[0]; got == x {
		t.Fatal("rebuilt lambda shares its parameter")
	}
	fields := []sqltypes.Field{{Name: "i", Type: sqltypes.IntegerType, Nullable: true},
		{Name: "ai", Type: sqltypes.ArrayType(sqltypes.IntegerType, true), Nullable: true}}
	bt := env.batch(fields, []any{int32(10)}, []any{[]any{int32(1), int32(2)}})
	defer bt.Release()
	got, err := env.eval(moved, bt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []any{[]any{int32(11), int32(12)}}) {
		t.Fatalf("got %v", got)
	}
}

func TestIsDeterministic(t *testing.T) {
	r := mustBind(t, "rand", Options{})
	if IsDeterministic(r) || IsDeterministic(mustBind(t, "+", Options{}, r, lit(1.0, sqltypes.DoubleType))) {
		t.Fatal("rand is deterministic")
	}
	if !IsDeterministic(mustBind(t, "abs", Options{}, col(0, "i", sqltypes.IntegerType))) {
		t.Fatal("abs is not deterministic")
	}
}
