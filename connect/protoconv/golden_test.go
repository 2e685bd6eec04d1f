package protoconv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// TestGolden runs the datadriven files in testdata. Commands (input is protobuf text unless
// noted):
//
//	relation    a spark.connect.Relation → the translated plan tree
//	expression  a spark.connect.Expression → the translated expression
//	command     a spark.connect.Command → the translated command
//	datatype    a spark.connect.DataType → the type, its JSON, and a proto round trip check
//	json-type   (input: JSON text) → the parsed type, JSONType of it, and a JSON round trip check
//	split       (input: one identifier per line) → its parts
func TestGolden(t *testing.T) {
	for _, path := range goldenFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				return runGolden(t, d)
			})
		})
	}
}

// goldenFiles lists the datadriven files: the regular files of testdata (testdata/fuzz holds
// the fuzz targets' saved inputs).
func goldenFiles(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			paths = append(paths, filepath.Join("testdata", e.Name()))
		}
	}
	if len(paths) == 0 {
		t.Fatal("no golden files in testdata")
	}
	return paths
}

func runGolden(t *testing.T, d *datadriven.TestData) string {
	var b strings.Builder
	switch d.Cmd {
	case "relation":
		msg := &pb.Relation{}
		parseText(t, d, msg)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rel, err := protoconv.Converter{Alloc: mem}.Relation(msg)
		if err != nil {
			return printError(err)
		}
		printRelation(&b, rel, "")
		protoconv.ReleaseRecords(rel)
	case "expression":
		msg := &pb.Expression{}
		parseText(t, d, msg)
		e, err := protoconv.Expression(msg)
		if err != nil {
			return printError(err)
		}
		b.WriteString(formatExpr(e) + "\n")
	case "command":
		msg := &pb.Command{}
		parseText(t, d, msg)
		c, err := protoconv.Command(msg)
		if err != nil {
			return printError(err)
		}
		printCommand(&b, c)
	case "datatype":
		msg := &pb.DataType{}
		parseText(t, d, msg)
		dt, err := protoconv.DataTypeFromProto(msg)
		if err != nil {
			return printError(err)
		}
		fmt.Fprintf(&b, "%s\n%s\n", dt, protoconv.JSONType(dt))
		back, err := protoconv.DataTypeFromProto(protoconv.DataTypeToProto(dt))
		if err != nil || !back.Equal(dt) {
			fmt.Fprintf(&b, "round trip mismatch: %s, %v\n", back, err)
		}
	case "json-type":
		dt, err := protoconv.ParseJSONType(d.Input)
		if err != nil {
			return printError(err)
		}
		js := protoconv.JSONType(dt)
		fmt.Fprintf(&b, "%s\n%s\n", dt, js)
		if back, err := protoconv.ParseJSONType(js); err != nil || !back.Equal(dt) {
			fmt.Fprintf(&b, "round trip mismatch: %s, %v\n", back, err)
		}
	case "split":
		for _, line := range strings.Split(d.Input, "\n") {
			parts, err := protoconv.SplitIdentifier(line)
			if err != nil {
				b.WriteString(printError(err))
				continue
			}
			fmt.Fprintf(&b, "%q\n", parts)
		}
	default:
		d.Fatalf(t, "unknown command %s", d.Cmd)
	}
	return b.String()
}

func parseText(t *testing.T, d *datadriven.TestData, m proto.Message) {
	t.Helper()
	if err := prototext.Unmarshal([]byte(d.Input), m); err != nil {
		d.Fatalf(t, "bad protobuf text: %v", err)
	}
}
