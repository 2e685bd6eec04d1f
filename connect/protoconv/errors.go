package protoconv

import (
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weirhq/weir/sparkerr"
)

// invalidPlan is Spark Connect's InvalidPlanInput: a message that is malformed or lacks a
// required field. PySpark sees an IllegalArgumentException.
func invalidPlan(format string, args ...any) *sparkerr.Error {
	return sparkerr.IllegalArgument("Invalid plan: "+format, args...)
}

// oneofCase names the field set in m's oneof, in CamelCase ("sample_by" → "SampleBy"), or ""
// when none is set.
func oneofCase(m proto.Message, oneof string) string {
	rm := m.ProtoReflect()
	od := rm.Descriptor().Oneofs().ByName(protoreflect.Name(oneof))
	if od == nil || !rm.IsValid() {
		return ""
	}
	fd := rm.WhichOneof(od)
	if fd == nil {
		return ""
	}
	return camel(string(fd.Name()))
}

func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}
