package protoconv_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/plan"
)

// corpus collects every relation, expression and command of the golden files.
func corpus(t testing.TB) []proto.Message {
	var msgs []proto.Message
	for _, path := range goldenFiles(t) {
		datadriven.RunTestAny(t, path, func(t testing.TB, d *datadriven.TestData) string {
			var m proto.Message
			switch d.Cmd {
			case "relation":
				m = &pb.Relation{}
			case "expression":
				m = &pb.Expression{}
			case "command":
				m = &pb.Command{}
			case "datatype":
				m = &pb.DataType{}
			default:
				return d.Expected
			}
			if err := prototext.Unmarshal([]byte(d.Input), m); err == nil {
				msgs = append(msgs, m)
			}
			return d.Expected
		})
	}
	return msgs
}

// TestMutatedMessagesDoNotPanic feeds randomly mutated and truncated messages to every entry
// point and checks that none panics and that no Arrow memory leaks, whatever the outcome. Set
// PROTOCONV_SEED to replay a run.
func TestMutatedMessagesDoNotPanic(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("PROTOCONV_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (replay with PROTOCONV_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	msgs := corpus(t)
	if len(msgs) < 100 {
		t.Fatalf("corpus has only %d messages", len(msgs))
	}
	iterations := 4000
	if testing.Short() {
		iterations = 500
	}
	var converted, rejected int
	for i := 0; i < iterations; i++ {
		orig := msgs[rng.Intn(len(msgs))]
		m := proto.Clone(orig)
		switch rng.Intn(3) {
		case 0:
			mutateStructure(rng, m.ProtoReflect(), 0)
		case 1:
			if !mutateBytes(rng, m) {
				continue
			}
		case 2:
			// Messages built in Go (as the connect service may) can hold oneof wrappers whose
			// message is nil, which the wire format cannot express.
			nilOneofs(rng, m.ProtoReflect(), 0)
		}
		if convertChecked(t, seed, i, m) {
			converted++
		} else {
			rejected++
		}
	}
	t.Logf("%d mutated messages converted, %d rejected with an error", converted, rejected)
	if converted == 0 || rejected == 0 {
		t.Errorf("mutations should produce both valid and invalid messages")
	}
}

// convertChecked converts m with the entry point for its type and reports whether it succeeded.
func convertChecked(t *testing.T, seed int64, i int, m proto.Message) (ok bool) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("seed %d, iteration %d: panic %v on\n%s\n%s", seed, i, r, prototext.Format(m), debug.Stack())
			}
		}()
		conv := protoconv.Converter{Alloc: mem}
		switch m := m.(type) {
		case *pb.Relation:
			if rel, err := conv.Relation(m); err == nil {
				ok = true
				protoconv.ReleaseRecords(rel)
			}
		case *pb.Command:
			if c, err := conv.Command(m); err == nil {
				ok = true
				switch c := c.(type) {
				case plan.Query:
					protoconv.ReleaseRecords(c.Input)
				case plan.CreateView:
					protoconv.ReleaseRecords(c.Input)
				}
			}
		case *pb.Expression:
			_, err := protoconv.Expression(m)
			ok = err == nil
		case *pb.DataType:
			if dt, err := protoconv.DataTypeFromProto(m); err == nil {
				ok = true
				_ = protoconv.DataTypeToProto(dt)
				_, _ = protoconv.ParseJSONType(protoconv.JSONType(dt))
			}
		}
	}()
	if mem.CurrentAlloc() != 0 {
		t.Fatalf("seed %d, iteration %d: %d bytes of Arrow memory leaked on\n%s", seed, i, mem.CurrentAlloc(), prototext.Format(m))
	}
	return ok
}

// mutateBytes re-encodes m after corrupting its wire form; false when it no longer decodes.
func mutateBytes(rng *rand.Rand, m proto.Message) bool {
	b, err := proto.Marshal(m)
	if err != nil || len(b) == 0 {
		return false
	}
	for n := 1 + rng.Intn(3); n > 0 && len(b) > 0; n-- {
		i := rng.Intn(len(b))
		switch rng.Intn(4) {
		case 0:
			b[i] ^= byte(1 << rng.Intn(8))
		case 1:
			b = b[:i]
		case 2:
			j := i + rng.Intn(len(b)-i)
			b = append(b[:i:i], b[j:]...)
		case 3:
			b[i] = byte(rng.Intn(256))
		}
	}
	proto.Reset(m)
	return proto.Unmarshal(b, m) == nil
}

var oddStrings = []string{"", "`", "a..b", ".", "*", "t.*", "{", "\"integer\"", "decimal(99,1)", "\xff", "x.`y`"}

// mutateStructure randomly clears fields, empties messages, sets odd scalars and creates
// empty sub-messages (so oneofs are set but hold nothing).
func mutateStructure(rng *rand.Rand, m protoreflect.Message, depth int) {
	if depth > 40 {
		return
	}
	fields := m.Descriptor().Fields()
	if rng.Intn(6) == 0 && fields.Len() > 0 {
		fd := fields.Get(rng.Intn(fields.Len()))
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if rng.Intn(8) == 0 {
			m.Clear(fd)
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			if l.Len() > 0 && rng.Intn(5) == 0 {
				l.Truncate(rng.Intn(l.Len()))
			}
			if fd.Message() != nil {
				for i := 0; i < l.Len(); i++ {
					mutateStructure(rng, l.Get(i).Message(), depth+1)
				}
			}
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					mutateStructure(rng, mv.Message(), depth+1)
					return true
				})
			}
		case fd.Message() != nil:
			mutateStructure(rng, v.Message(), depth+1)
		default:
			if rng.Intn(4) == 0 {
				m.Set(fd, oddScalar(rng, fd))
			}
		}
		return true
	})
}

// nilOneofs replaces set oneof cases, at random, by the same case holding a nil message.
func nilOneofs(rng *rand.Rand, m protoreflect.Message, depth int) {
	if depth > 40 {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				nilOneofs(rng, v.List().Get(i).Message(), depth+1)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				nilOneofs(rng, mv.Message(), depth+1)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			nilOneofs(rng, v.Message(), depth+1)
		}
		return true
	})
	sv := reflect.ValueOf(m.Interface()).Elem()
	for i := 0; i < sv.NumField(); i++ {
		f := sv.Type().Field(i)
		if _, ok := f.Tag.Lookup("protobuf_oneof"); !ok || sv.Field(i).IsNil() || rng.Intn(3) != 0 {
			continue
		}
		wrapper := sv.Field(i).Elem().Type() // *Relation_Filter etc.
		inner := wrapper.Elem().Field(0).Type
		if inner.Kind() != reflect.Pointer {
			continue // scalar case
		}
		sv.Field(i).Set(reflect.New(wrapper.Elem()))
	}
}

func oddScalar(rng *rand.Rand, fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.Intn(2) == 0)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(rng.Intn(10) - 1))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32([]int32{0, -1, 1, 3, 38, 39, math.MaxInt32, math.MinInt32}[rng.Intn(8)])
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64([]int64{0, -1, 1, math.MaxInt64, math.MinInt64}[rng.Intn(5)])
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(rng.Uint32())
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(rng.Uint64())
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32([]float32{0, -1, float32(math.NaN()), float32(math.Inf(1))}[rng.Intn(4)])
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64([]float64{0, -1, 2, math.NaN(), math.Inf(-1)}[rng.Intn(5)])
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(oddStrings[rng.Intn(len(oddStrings))])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(fmt.Sprint(rng.Int())))
	}
	return fd.Default()
}
