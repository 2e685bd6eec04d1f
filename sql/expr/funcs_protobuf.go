package expr

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The Protobuf functions, as Spark runs them with its spark-protobuf module, over a message type
// from a binary FileDescriptorSet: from_protobuf(data, messageName, descriptor[, options]) and
// to_protobuf(struct, messageName, descriptor[, options]), the descriptor given as its bytes
// (what PySpark sends, reading descFilePath on the client) or as a descriptor file path, read
// through the server's file-access policy. Message types named by a Java class (no descriptor)
// cannot be loaded: Weir runs no JVM.

func init() {
	registerScalar(2, 4, bindFromProtobuf, "from_protobuf")
	registerScalar(2, 4, bindToProtobuf, "to_protobuf")
}

// protoMessageArgs reads messageName, the descriptor (bytes or a file path) and the options.
func protoMessageArgs(name string, args []Expr, opts Options) (protoreflect.MessageDescriptor, protoOpts, error) {
	var o protoOpts
	v, _ := constantArg(args[1])
	msgName, ok := v.(string)
	if !ok {
		return nil, o, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input messageName should be a foldable \"STRING\" expression; however, got %s.", args[1].String())
	}
	optIdx := 3
	if len(args) == 3 && args[2].Type().Kind == sqltypes.Map {
		optIdx = 2
	}
	if len(args) < 3 || optIdx == 2 {
		return nil, o, sparkerr.New(sparkerr.AnalysisException, "CANNOT_LOAD_PROTOBUF_CLASS", "42K03",
			"Could not load Protobuf class with name "+msgName+". Weir reads message types only from a descriptor set: pass binaryDescriptorSet or descFilePath.").
			WithParams("protobufClassName", msgName, "explanation", "Weir reads message types only from a descriptor set: pass binaryDescriptorSet or descFilePath")
	}
	desc, _ := constantArg(args[2])
	var set []byte
	switch d := desc.(type) {
	case []byte:
		set = d
	case string:
		notFound := sparkerr.New(sparkerr.AnalysisException, "PROTOBUF_DESCRIPTOR_FILE_NOT_FOUND", "42K0G",
			"Error reading Protobuf descriptor file at path: "+d+".").WithParams("filePath", d)
		if opts.ReadFile == nil {
			return nil, o, notFound
		}
		b, err := opts.ReadFile(d)
		if err != nil {
			if se, ok := sparkerr.As(err); ok && se.Class != "" {
				return nil, o, se
			}
			return nil, o, notFound.Wrap(err)
		}
		set = b
	default:
		return nil, o, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input binaryFileDescriptorSet should be a foldable \"BINARY\" or \"STRING\" expression; however, got %s.", args[2].String())
	}
	m, err := optionsArg(args, optIdx)
	if err != nil {
		return nil, o, err
	}
	if o.permissive, err = parseMode(name, m); err != nil {
		return nil, o, err
	}
	o.enumsAsInts = m["enums.as.ints"] == "true"
	o.emitDefaults = m["emit.default.values"] == "true"
	md, err := findProtoMessage(set, msgName)
	return md, o, err
}

// malformedProtobuf is MALFORMED_PROTOBUF_MESSAGE (mode FAILFAST).
func malformedProtobuf(cause error) *sparkerr.Error {
	return sparkerr.New(sparkerr.SparkException, "MALFORMED_PROTOBUF_MESSAGE", "XX000",
		"Malformed Protobuf messages are detected in message deserialization. Parse Mode: FAILFAST. To process malformed protobuf message as null result, try setting the option 'mode' as 'PERMISSIVE'.").
		WithParams("failFastMode", "FAILFAST").Wrap(cause)
}

func bindFromProtobuf(name string, args []Expr, opts Options) (Expr, error) {
	md, o, err := protoMessageArgs(name, args, opts)
	if err != nil {
		return nil, err
	}
	t, err := protoStruct(md, o, map[protoreflect.FullName]bool{})
	if err != nil {
		return nil, err
	}
	data, err := coerceArg(name, args, 0, sqltypes.BinaryType, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{data}, t, func(_ *Context, a []any) (any, error) {
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(a[0].([]byte), m); err != nil {
			if o.permissive {
				return nil, nil
			}
			return nil, malformedProtobuf(err)
		}
		return fromProtoMessage(m, t, o), nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindToProtobuf(name string, args []Expr, opts Options) (Expr, error) {
	md, _, err := protoMessageArgs(name, args, opts)
	if err != nil {
		return nil, err
	}
	t := args[0].Type()
	if t.Kind != sqltypes.Struct {
		return nil, protoErr("UNABLE_TO_CONVERT_TO_PROTOBUF_MESSAGE_TYPE", "42K0G",
			"Unable to convert SQL type "+quoteSQL(t.SQL())+" to Protobuf type "+string(md.Name())+".",
			"toType", quoteSQL(t.SQL()), "protobufType", string(md.Name()))
	}
	if err := protoWritable(t, md, ""); err != nil {
		return nil, err
	}
	f := strict(name, args[:1], sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		m, err := toProtoMessage(md, a[0].([]any), t)
		if err != nil {
			return nil, err
		}
		return proto.MarshalOptions{Deterministic: true}.Marshal(m)
	})
	f.str = callString(name, args)
	return f, nil
}
