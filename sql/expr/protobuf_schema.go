package expr

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Protobuf messages for from_protobuf and to_protobuf: a message type found by name in a binary
// FileDescriptorSet (google.golang.org/protobuf's protodesc, values through dynamicpb), and the
// Spark type Spark's protobuf SchemaConverters gives it.

// protoOpts are the options from_protobuf and to_protobuf read (Spark's ProtobufOptions).
type protoOpts struct {
	permissive, enumsAsInts, emitDefaults bool
}

func protoErr(class, state, msg string, kv ...string) *sparkerr.Error {
	return sparkerr.New(sparkerr.AnalysisException, class, state, msg).WithParams(kv...)
}

// findProtoMessage parses a FileDescriptorSet and finds the message named name (its full or its
// simple name), as Spark's ProtobufUtils.buildDescriptor does.
func findProtoMessage(set []byte, name string) (protoreflect.MessageDescriptor, error) {
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(set, &fds); err != nil {
		return nil, protoErr("CANNOT_PARSE_PROTOBUF_DESCRIPTOR", "22018",
			"Error parsing descriptor bytes into Protobuf FileDescriptorSet.").Wrap(err)
	}
	files, err := protodesc.NewFiles(&fds)
	if err != nil {
		return nil, protoErr("CANNOT_PARSE_PROTOBUF_DESCRIPTOR", "22018",
			"Error parsing descriptor bytes into Protobuf FileDescriptorSet.").Wrap(err)
	}
	var found protoreflect.MessageDescriptor
	var search func(ms protoreflect.MessageDescriptors)
	search = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len() && found == nil; i++ {
			m := ms.Get(i)
			if string(m.Name()) == name || string(m.FullName()) == name {
				found = m
				return
			}
			search(m.Messages())
		}
	}
	files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		search(f.Messages())
		return found == nil
	})
	if found == nil {
		return nil, protoErr("PROTOBUF_MESSAGE_NOT_FOUND", "42K0G",
			"Unable to locate Message "+name+" in Descriptor.", "messageName", name)
	}
	return found, nil
}

// protoWellKnown reports whether m is a Timestamp or Duration shape (a message of that name
// with fields seconds and nanos), which Spark reads as TIMESTAMP / INTERVAL DAY TO SECOND.
func protoWellKnown(m protoreflect.MessageDescriptor, name string) bool {
	fs := m.Fields()
	return string(m.Name()) == name && fs.Len() == 2 && fs.Get(0).Name() == "seconds" && fs.Get(1).Name() == "nanos"
}

// protoStruct is the Spark struct of message m (SchemaConverters.toSqlType): every field, each
// nullable unless required; a message field whose message is already being converted is
// RECURSIVE_PROTOBUF_SCHEMA; a message with no fields is dropped.
func protoStruct(m protoreflect.MessageDescriptor, o protoOpts, open map[protoreflect.FullName]bool) (sqltypes.DataType, error) {
	open[m.FullName()] = true
	defer delete(open, m.FullName())
	var fields []sqltypes.Field
	fs := m.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		t, ok, err := protoFieldType(fd, o, open)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		if !ok {
			continue
		}
		switch {
		case fd.IsMap():
			fields = append(fields, sqltypes.Field{Name: string(fd.Name()), Type: t, Nullable: true})
		case fd.IsList():
			fields = append(fields, sqltypes.Field{Name: string(fd.Name()), Type: sqltypes.ArrayType(t, false), Nullable: true})
		default:
			fields = append(fields, sqltypes.Field{Name: string(fd.Name()), Type: t, Nullable: fd.Cardinality() != protoreflect.Required})
		}
	}
	return sqltypes.StructType(fields...), nil
}

// protoFieldType is the Spark type of one value of field fd (a map field's whole map); ok is
// false for a field Spark drops (a message with no fields).
func protoFieldType(fd protoreflect.FieldDescriptor, o protoOpts, open map[protoreflect.FullName]bool) (sqltypes.DataType, bool, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return sqltypes.BooleanType, true, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return sqltypes.IntegerType, true, nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return sqltypes.LongType, true, nil
	case protoreflect.FloatKind:
		return sqltypes.FloatType, true, nil
	case protoreflect.DoubleKind:
		return sqltypes.DoubleType, true, nil
	case protoreflect.StringKind:
		return sqltypes.StringType, true, nil
	case protoreflect.BytesKind:
		return sqltypes.BinaryType, true, nil
	case protoreflect.EnumKind:
		if o.enumsAsInts {
			return sqltypes.IntegerType, true, nil
		}
		return sqltypes.StringType, true, nil
	}
	m := fd.Message()
	switch {
	case protoWellKnown(m, "Duration"):
		return sqltypes.DayTimeIntervalType(0, 3), true, nil
	case protoWellKnown(m, "Timestamp"):
		return sqltypes.TimestampType, true, nil
	case fd.IsMap():
		k, _, err := protoFieldType(fd.MapKey(), o, open)
		if err != nil {
			return sqltypes.DataType{}, false, err
		}
		v, ok, err := protoFieldType(fd.MapValue(), o, open)
		if err != nil || !ok {
			return sqltypes.DataType{}, false, err
		}
		return sqltypes.MapType(k, v, false), true, nil
	}
	if open[m.FullName()] {
		return sqltypes.DataType{}, false, protoErr("RECURSIVE_PROTOBUF_SCHEMA", "42K0G",
			"Found recursive reference in Protobuf schema, which can not be processed by Spark by default: "+string(fd.FullName())+
				". try setting the option `recursive.fields.max.depth` 1 to 10. Going beyond 10 levels of recursion is not allowed.",
			"fieldDescriptor", string(fd.FullName()))
	}
	st, err := protoStruct(m, o, open)
	if err != nil || len(st.Fields) == 0 {
		return sqltypes.DataType{}, false, err
	}
	return st, true, nil
}
