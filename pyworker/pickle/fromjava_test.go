package pickle

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// udfOutputScript plays worker.py for SQL_BATCHED_UDF output: each expression is a UDF's return
// value, converted with return_type.toInternal when the type needs it (wrap_udf), and the batch is
// pickled as BatchedSerializer(CPickleSerializer()) writes it (a list, protocol 5).
const udfOutputScript = `
import sys, json, base64, datetime, math
from decimal import Decimal
from pyspark.serializers import CPickleSerializer
from pyspark.sql.types import _parse_datatype_json_string, Row
ser = CPickleSerializer()
out = []
for c in json.load(sys.stdin):
    types = [_parse_datatype_json_string(t) for t in c["types"]]
    try:
        results = []
        for e in c["exprs"]:
            v = eval(e)
            if len(types) == 1:
                t = types[0]
                results.append(t.toInternal(v) if t.needConversion() else v)
            else:
                results.append(tuple(t.toInternal(x) if t.needConversion() else x for t, x in zip(types, v)))
        out.append(base64.b64encode(ser.dumps(results)).decode())
    except Exception as ex:
        out.append("python error: %s: %s" % (type(ex).__name__, ex))
print(json.dumps(out))
`

type udfOutputCase struct {
	Types []string `json:"types"`
	Exprs []string `json:"exprs"`
}

// TestFromJava is the makeFromJava rule table (testdata/from_java): "convert udfs=N" takes N
// JSON types then one Python expression per row; Python pickles the results as worker.py does and
// Go decodes them into Arrow columns.
func TestFromJava(t *testing.T) {
	path := "testdata/from_java"
	// First pass: collect every case so Python runs once.
	var cases []udfOutputCase
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		cases = append(cases, parseUDFCase(t, d))
		return d.Expected
	})
	in, _ := json.Marshal(cases)
	var pickles []string
	if err := json.Unmarshal([]byte(runPython(t, udfOutputScript, in)), &pickles); err != nil {
		t.Fatal(err)
	}
	i := 0
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		c, p := cases[i], pickles[i]
		i++
		if strings.HasPrefix(p, "python error") {
			return p + "\n"
		}
		data, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			t.Fatal(err)
		}
		return decodeUDFOutput(t, c.Types, data)
	})
}

func parseUDFCase(t *testing.T, d *datadriven.TestData) udfOutputCase {
	n := 1
	if d.HasArg("udfs") {
		d.ScanArgs(t, "udfs", &n)
	}
	lines := strings.Split(d.Input, "\n")
	return udfOutputCase{Types: lines[:n], Exprs: lines[n:]}
}

// decodeUDFOutput decodes data into columns of types and renders them, one line per column.
func decodeUDFOutput(t *testing.T, typeJSON []string, data []byte) string {
	types := make([]sqltypes.DataType, len(typeJSON))
	builders := make([]array.Builder, len(typeJSON))
	for i, js := range typeJSON {
		dt, err := sqltypes.ParseJSONType(js)
		if err != nil {
			t.Fatal(err)
		}
		types[i] = dt
		builders[i] = array.NewBuilder(memory.DefaultAllocator, sqltypes.ToArrow(dt, "UTC"))
		defer builders[i].Release()
	}
	n, err := AppendUDFResults(builders, types, data)
	if err != nil {
		return fmt.Sprintf("error: %v\n", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rows: %d\n", n)
	for _, bl := range builders {
		a := bl.NewArray()
		fmt.Fprintf(&b, "%s\n", a)
		a.Release()
	}
	return b.String()
}
