package expr

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// randomText is a short string over a small alphabet with multi-byte characters and (rarely)
// an invalid UTF-8 byte, so that equal prefixes, empty strings and non-ASCII rows are common.
func randomText(r *rand.Rand) string {
	alphabet := []string{"a", "b", "c", "é", "ab", "\u00ff", "Z", " "}
	if r.IntN(30) == 0 {
		alphabet = append(alphabet, "\xff")
	}
	var b strings.Builder
	for k := r.IntN(6); k > 0; k-- {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestStringKernelsMatchRowWise compares the string comparison kernels (column-column and
// column-constant) and the substring and length kernels with their row-wise paths over random
// sliced columns with NULLs; the seed is printed.
func TestStringKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 22))
	str := sqltypes.StringType
	for iter := 0; iter < 1500; iter++ {
		env := newEnv(t, true)
		n := 1 + r.IntN(50)
		xs, ys, ps, ls := make([]any, n+3), make([]any, n+3), make([]any, n+3), make([]any, n+3)
		for i := range xs {
			if r.IntN(6) > 0 {
				xs[i] = randomText(r)
			}
			if r.IntN(6) > 0 {
				ys[i] = randomText(r)
			}
			if r.IntN(8) > 0 {
				ps[i] = int32(r.IntN(13) - 6)
			}
			if r.IntN(8) > 0 {
				ls[i] = int32(r.IntN(10) - 2)
			}
		}
		fields := []sqltypes.Field{{Name: "x", Type: str, Nullable: true}, {Name: "y", Type: str, Nullable: true},
			{Name: "p", Type: sqltypes.IntegerType, Nullable: true}, {Name: "l", Type: sqltypes.IntegerType, Nullable: true}}
		full := env.batch(fields, xs, ys, ps, ls)
		b := full.NewSlice(2, int64(n+2))
		full.Release()
		var x Expr = col(0, "x", str)
		var got, want []any
		var gerr, werr error
		var e Expr
		switch r.IntN(3) {
		case 0:
			op := []string{"==", "<", "<=", ">", ">="}[r.IntN(5)]
			var y Expr = col(1, "y", str)
			switch r.IntN(3) {
			case 0:
				var k any
				if r.IntN(8) > 0 {
					k = randomText(r)
				}
				y = NewLiteral(k, str)
			case 1:
				x, y = y, x
			}
			if r.IntN(2) == 0 {
				x, y = y, x
			}
			e = mustBind(t, op, Options{ANSI: true}, x, y)
			if _, ok := e.(*comparison); !ok {
				t.Fatalf("%s bound to %T", e, e)
			}
			got, gerr = env.eval(e, b)
			want, werr = rowWise(t, env, e, b)
		default:
			args := []Expr{x, col(2, "p", sqltypes.IntegerType)}
			name := "length"
			if r.IntN(2) == 0 {
				name = "substring"
				if r.IntN(2) == 0 {
					args = append(args, col(3, "l", sqltypes.IntegerType))
				}
			} else {
				args = args[:1]
			}
			e = mustBind(t, name, Options{ANSI: true}, args...)
			f := e.(*rowFunc)
			if f.vec == nil {
				t.Fatalf("%s has no kernel", e)
			}
			got, gerr = env.eval(f, b)
			oracle := *f
			oracle.vec = nil
			want, werr = env.eval(&oracle, b)
		}
		if gerr != nil || werr != nil {
			t.Fatalf("seed %d iter %d %s: kernel err %v, row-wise err %v", seed, iter, e, gerr, werr)
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s row %d (x=%q y=%q p=%v l=%v): kernel %v, row-wise %v",
					seed, iter, e, i, xs[i+2], ys[i+2], ps[i+2], ls[i+2], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}

// TestLikeSegmentsMatchRegex compares the LIKE patterns reduced to prefix / suffix / substrings
// in order with the regex LIKE compiles to, over random patterns and strings; the seed is
// printed.
func TestLikeSegmentsMatchRegex(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 23))
	parts := []string{"%", "%", "a", "b", "ab", "é", "ba", "%%"}
	for iter := 0; iter < 3000; iter++ {
		var pb strings.Builder
		for k := r.IntN(6); k > 0; k-- {
			pb.WriteString(parts[r.IntN(len(parts))])
		}
		pat := pb.String()
		fast, err := likePredicate(pat, '\\', false)
		if err != nil {
			t.Fatal(err)
		}
		re, err := compileJavaRegex(likeToRegex(pat, '\\', false))
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 20; k++ {
			s := randomText(r)
			if fast(s) != re.MatchString(s) {
				t.Fatalf("seed %d: %q LIKE %q: segments %v, regex %v", seed, s, pat, fast(s), re.MatchString(s))
			}
		}
	}
}

// TestStringCastKernelsMatchRowWise compares the STRING to integer, FLOAT, DOUBLE and DATE
// cast kernels with the row-wise cast over random sliced columns of well-formed, malformed,
// padded and out-of-range strings, ANSI and legacy; the seed is printed.
func TestStringCastKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 26))
	pool := []string{" 12 ", "-0", "1.5", "-1.99", "1e3", "abc", "", " ", "127", "128", "-128", "-129", "32768",
		"2147483647", "2147483648", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"NaN", "Infinity", "-Infinity", "+5", "0x10", "1d", "1.0f", "1.", ".5", "2020-01-31", "2020-02-30", "2020-1-5",
		" 2020-01-01 ", "2020-01-01T10:00", "2020", "2020-07", "+2020-01-01", "-0001-01-01", "10000-01-01", "é"}
	targets := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DateType}
	for iter := 0; iter < 1500; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		to := targets[r.IntN(len(targets))]
		n := 1 + r.IntN(20)
		good := r.IntN(2) == 0
		xs := make([]any, n+2)
		for i := range xs {
			switch {
			case r.IntN(8) == 0:
			case good && to.Kind == sqltypes.Date:
				xs[i] = fmt.Sprintf("%04d-%02d-%02d", 1+r.IntN(3000), 1+r.IntN(12), 1+r.IntN(28))
			case good:
				xs[i] = fmt.Sprint(r.IntN(200) - 100)
			default:
				xs[i] = pool[r.IntN(len(pool))]
			}
		}
		full := env.batch([]sqltypes.Field{{Name: "s", Type: sqltypes.StringType, Nullable: true}}, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		e, err := NewCast(col(0, "s", sqltypes.StringType), to, 0, Options{ANSI: ansi})
		if err != nil {
			t.Fatal(err)
		}
		fast, ferr := env.eval(e, b)
		var slow []any
		sa, serr := e.(*castExpr).castRows(env.ctx, b.Column(0), sqltypes.StringType)
		if serr == nil {
			slow = valuesOf(sa, to)
			sa.Release()
		}
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("seed %d iter %d %s ansi=%v: kernel err %v, row-wise err %v", seed, iter, e, ansi, ferr, serr)
		}
		for i := range fast {
			if ferr == nil && exactKey(fast[i]) != exactKey(slow[i]) {
				t.Fatalf("seed %d iter %d %s ansi=%v row %d (s=%q): kernel %v, row-wise %v", seed, iter, e, ansi, i, xs[i+1], fast[i], slow[i])
			}
		}
		b.Release()
		env.close()
	}
}

// TestUpperLowerASCIIMatchesRowWise compares upper/lower over batches of ASCII strings (mapped
// byte by byte) with the per-string functions, over random sliced columns, some with
// non-ASCII values; the seed is printed.
func TestUpperLowerASCIIMatchesRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 29))
	letters := "aZb yQ9_zA@["
	for iter := 0; iter < 500; iter++ {
		env := newEnv(t, true)
		n := 1 + r.IntN(30)
		xs := make([]any, n+2)
		for i := range xs {
			if r.IntN(6) == 0 {
				continue
			}
			var sb strings.Builder
			for k := r.IntN(8); k > 0; k-- {
				sb.WriteByte(letters[r.IntN(len(letters))])
			}
			if r.IntN(40) == 0 {
				sb.WriteString("é")
			}
			xs[i] = sb.String()
		}
		full := env.batch([]sqltypes.Field{{Name: "s", Type: sqltypes.StringType, Nullable: true}}, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		name := []string{"upper", "lower", "ucase", "lcase"}[r.IntN(4)]
		m := mustBind(t, name, Options{ANSI: true}, col(0, "s", sqltypes.StringType)).(*stringMapExpr)
		if m.ascii == nil {
			t.Fatalf("%s has no ASCII kernel", m)
		}
		got, err := env.eval(m, b)
		if err != nil {
			t.Fatal(err)
		}
		oracle := *m
		oracle.ascii = nil
		want, err := env.eval(&oracle, b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s row %d (s=%q): kernel %q, row-wise %q", seed, iter, m, i, xs[i+1], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}
