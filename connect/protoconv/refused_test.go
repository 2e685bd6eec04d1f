package protoconv

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// refusedKinds sets each case of m's oneof in turn to an empty message, converts it and
// returns the cases refused as not supported ("<what> type X … is not supported", naming the
// case); every other case is translated (an empty message of a handled case may still fail as
// an invalid plan, which is not a refusal).
func refusedKinds(t *testing.T, m proto.Message, oneof, what string, convert func(proto.Message) error) []string {
	t.Helper()
	od := m.ProtoReflect().Descriptor().Oneofs().ByName(protoreflect.Name(oneof))
	var refused []string
	for i := 0; i < od.Fields().Len(); i++ {
		fd := od.Fields().Get(i)
		if fd.Kind() != protoreflect.MessageKind {
			continue
		}
		msg := m.ProtoReflect().New()
		msg.Set(fd, msg.NewField(fd))
		name := camel(string(fd.Name()))
		err := convert(msg.Interface())
		if err != nil && strings.Contains(err.Error(), what+" type "+name+" ") && strings.Contains(err.Error(), "is not supported") {
			refused = append(refused, name)
		}
	}
	slices.Sort(refused)
	return refused
}

// readmeList returns the backquoted capitalized names (the API calls in lower case are
// explanations) of README.md's line that starts with label inside the
// "What Weir refuses" section.
func readmeList(t *testing.T, label string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## What Weir refuses")
	if start < 0 {
		t.Fatal(`README.md has no "## What Weir refuses" section`)
	}
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	for _, para := range strings.Split(section, "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), label) {
			var names []string
			for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+)`").FindAllStringSubmatch(para, -1) {
				names = append(names, m[1])
			}
			slices.Sort(names)
			return names
		}
	}
	t.Fatalf("README.md's refusals section has no paragraph starting %q", label)
	return nil
}

// TestRefusedKindsInReadme: the Spark Connect relation and expression types Weir refuses are
// exactly the ones README.md lists (the issue: every relation type is executed or refused with
// an error that names it, and the refused ones are documented).
func TestRefusedKindsInReadme(t *testing.T) {
	rels := refusedKinds(t, &pb.Relation{}, "rel_type", "relation", func(m proto.Message) error {
		_, err := Relation(m.(*pb.Relation))
		return err
	})
	exprs := refusedKinds(t, &pb.Expression{}, "expr_type", "expression", func(m proto.Message) error {
		_, err := Expression(m.(*pb.Expression))
		return err
	})
	for _, c := range []struct {
		label string
		got   []string
	}{{"Relations:", rels}, {"Expressions:", exprs}} {
		if want := readmeList(t, c.label); !slices.Equal(c.got, want) {
			t.Errorf("README.md lists as refused %s %v; the converter refuses %v", c.label, want, c.got)
		}
	}
}
