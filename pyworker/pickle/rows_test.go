package pickle

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// encodeCheck is one pickle for Python to load and compare with the expected rows.
type encodeCheck struct {
	Name     string `json:"name"`
	Schema   string `json:"schema"`
	Pickle   string `json:"pickle"`
	Expected string `json:"expected"` // Python literal: tuple of internal rows
	Rows     bool   `json:"rows"`     // expect pyspark Rows (schema.fromInternal of each)
	Want     string `json:"want"`     // when set, the exact repr expected
}

// checkEncodeScript loads every pickle with pickle.loads (the worker's CPickleSerializer) and
// prints "ok" or the mismatch per check.
const checkEncodeScript = `
import sys, json, pickle, base64, datetime
from decimal import Decimal
from pyspark.sql.types import _parse_datatype_json_string, Row
for c in json.load(sys.stdin):
    got = pickle.loads(base64.b64decode(c["pickle"]))
    if c["want"]:
        exp_repr = c["want"]
    else:
        exp = eval(c["expected"])
        if c["rows"]:
            schema = _parse_datatype_json_string(c["schema"])
            exp = tuple(schema.fromInternal(r) for r in exp)
        exp_repr = repr(exp)
    kinds = {type(r).__name__ for r in got}
    want_kind = {"Row"} if c["rows"] else {"tuple"}
    if repr(got) != exp_repr or (got and kinds != want_kind):
        print("MISMATCH", c["name"], "\n got:", repr(got), kinds, "\nwant:", exp_repr)
    else:
        print("ok", c["name"])
`

func runEncodeChecks(t *testing.T, checks []encodeCheck) {
	t.Helper()
	in, err := json.Marshal(checks)
	if err != nil {
		t.Fatal(err)
	}
	out := runPython(t, checkEncodeScript, in)
	if n := strings.Count(out, "ok "); n != len(checks) || strings.Contains(out, "MISMATCH") {
		t.Fatalf("%d of %d pickles match:\n%s", n, len(checks), out)
	}
}

func encodeRows(t *testing.T, mode Mode, schema sqltypes.Schema, rows [][]any) []byte {
	t.Helper()
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = buildColumn(f.Type, vals)
		defer cols[c].Release()
	}
	b, err := NewRowEncoder(mode, schema).Encode(cols, 0, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), b...)
}

// TestEncodeExact pins the Python objects Spark's JVM side produces for a few rows.
func TestEncodeExact(t *testing.T) {
	dec := sqltypesDec(t)
	plain := UDFInputSchema([]sqltypes.DataType{sqltypes.IntegerType, sqltypes.StringType, sqltypes.BinaryType,
		sqltypes.DecimalType(5, 2), sqltypes.FloatType, sqltypes.BooleanType, sqltypes.ArrayType(sqltypes.LongType, true),
		sqltypes.MapType(sqltypes.StringType, sqltypes.IntegerType, true)})
	conv := UDFInputSchema([]sqltypes.DataType{sqltypes.DateType, sqltypes.TimestampType,
		sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
			sqltypes.Field{Name: "b", Type: sqltypes.DayTimeIntervalType(0, 3), Nullable: true})})
	fe := sqltypes.Schema{{Name: "id", Type: sqltypes.LongType, Nullable: true}, {Name: "name", Type: sqltypes.StringType, Nullable: true}}
	ts := time.Date(2024, 3, 5, 6, 7, 8, 9000, time.UTC).UnixMicro()
	checks := []encodeCheck{
		{Name: "plain", Schema: sqltypes.JSONType(plain.AsStruct()),
			Pickle: b64(encodeRows(t, BatchedUDF, plain, [][]any{
				{int32(70000), "héllo", []byte{0, 0xff}, dec("1.50"), float32(1.1), true, []any{int64(1), nil}, mapVal{[]any{"k"}, []any{int32(3)}}},
				{nil, nil, nil, nil, nil, nil, nil, nil}})),
			Want: `((70000, 'héllo', bytearray(b'\x00\xff'), Decimal('1.50'), 1.100000023841858, True, [1, None], {'k': 3}), (None, None, None, None, None, None, None, None))`},
		{Name: "converted", Schema: sqltypes.JSONType(conv.AsStruct()), Rows: true,
			Pickle: b64(encodeRows(t, BatchedUDF, conv, [][]any{
				{int32(19787), ts, []any{int32(1), int64(90061000001)}},
				{int32(-1), nil, []any{nil, nil}},
				{nil, int64(0), nil}})),
			Want: `(Row(_0=datetime.date(2024, 3, 5), _1=datetime.datetime(2024, 3, 5, 6, 7, 8, 9), _2=Row(a=1, b=datetime.timedelta(days=1, seconds=3661, microseconds=1))), ` +
				`Row(_0=datetime.date(1969, 12, 31), _1=None, _2=Row(a=None, b=None)), Row(_0=None, _1=datetime.datetime(1970, 1, 1, 0, 0), _2=None))`},
		{Name: "foreach", Schema: sqltypes.JSONType(fe.AsStruct()), Rows: true,
			Pickle: b64(encodeRows(t, Foreach, fe, [][]any{{int64(1), "a"}, {int64(-5), "b"}})),
			Want:   `(Row(id=1, name='a'), Row(id=-5, name='b'))`},
		{Name: "empty", Schema: sqltypes.JSONType(fe.AsStruct()), Rows: true,
			Pickle: b64(encodeRows(t, Foreach, fe, nil)), Want: `()`},
	}
	runEncodeChecks(t, checks)
}

// TestEncodeRandom encodes random rows of random schemas and has Python compare them with the
// internal values converted by PySpark itself (schema.fromInternal, what the Row converter does).
func TestEncodeRandom(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	var checks []encodeCheck
	for c := range 40 {
		mode := Mode(r.IntN(2))
		nf := 1 + r.IntN(4)
		types := make([]sqltypes.DataType, nf)
		for i := range types {
			if r.IntN(3) == 0 {
				types[i] = pick(r, convTypes...)
			} else {
				types[i] = pick(r, plainTypes...)
			}
		}
		schema := UDFInputSchema(types)
		rows := make([][]any, r.IntN(6))
		lits := make([]string, len(rows))
		for i := range rows {
			rows[i] = make([]any, nf)
			parts := make([]string, nf)
			for f := range nf {
				rows[i][f] = randValue(r, types[f], 0)
				parts[f] = pyInternal(types[f], rows[i][f])
			}
			lits[i] = "(" + strings.Join(parts, ", ") + ",)"
		}
		expected := "()"
		if len(lits) > 0 {
			expected = "(" + strings.Join(lits, ", ") + ",)"
		}
		checks = append(checks, encodeCheck{
			Name:     fmt.Sprintf("case%d-%v", c, types),
			Schema:   sqltypes.JSONType(schema.AsStruct()),
			Pickle:   b64(encodeRows(t, mode, schema, rows)),
			Expected: expected,
			Rows:     NewRowEncoder(mode, schema).asRows,
		})
	}
	runEncodeChecks(t, checks)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func sqltypesDec(t *testing.T) func(string) any {
	return func(s string) any {
		u, _, ok := parseDecimal(s)
		if !ok {
			t.Fatalf("bad decimal %q", s)
		}
		return u
	}
}

func TestBigDecimalString(t *testing.T) {
	for _, c := range []struct {
		unscaled string
		scale    int
		want     string
	}{
		{"150", 2, "1.50"}, {"-5", 3, "-0.005"}, {"1", 7, "1E-7"}, {"123", 10, "1.23E-8"}, {"0", 2, "0.00"},
		{"1", 6, "0.000001"}, {"12345678901234567890123456789012345678", 0, "12345678901234567890123456789012345678"},
		{"1", -3, "1E+3"}, {"0", 10, "0E-10"},
	} {
		u, _ := new(big.Int).SetString(c.unscaled, 10)
		if got := bigDecimalString(u, c.scale); got != c.want {
			t.Errorf("%s scale %d: got %s, want %s", c.unscaled, c.scale, got, c.want)
		}
	}
}

func TestAutoBatchSize(t *testing.T) {
	var a AutoBatchSize
	var got []int
	for _, size := range []int{100, 100, 2 << 20, 11 << 20, 11 << 20, 11 << 20, 11 << 20} {
		got = append(got, a.Rows())
		a.Observe(size)
	}
	got = append(got, a.Rows())
	want := []int{1, 2, 4, 4, 2, 1, 1, 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("batch sizes %v, want %v", got, want)
	}
}

// BenchmarkEncodeRows measures pickling 100-row UDF batches with a struct column (Row mode).
func BenchmarkEncodeRows(b *testing.B) {
	schema := UDFInputSchema([]sqltypes.DataType{sqltypes.LongType, sqltypes.StringType, convTypes[4]})
	r := rand.New(rand.NewPCG(1, 2))
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, UDFBatchRows)
		for i := range vals {
			vals[i] = randValue(r, f.Type, 0)
		}
		cols[c] = buildColumn(f.Type, vals)
		defer cols[c].Release()
	}
	e := NewRowEncoder(BatchedUDF, schema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Encode(cols, 0, UDFBatchRows); err != nil {
			b.Fatal(err)
		}
	}
}
