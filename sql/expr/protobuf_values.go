package expr

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// Spark values to and from dynamic Protobuf messages, as Spark's ProtobufDeserializer and
// ProtobufSerializer convert them.

// fromProtoMessage reads message m as struct type t (protoStruct of its descriptor): a field is
// NULL unless it is repeated, has an explicit default or is set (with emit.default.values, an
// unset scalar reads as its default).
func fromProtoMessage(m protoreflect.Message, t sqltypes.DataType, o protoOpts) []any {
	out := make([]any, len(t.Fields))
	fds := m.Descriptor().Fields()
	for i, f := range t.Fields {
		fd := fds.ByName(protoreflect.Name(f.Name))
		if !(fd.IsList() || fd.IsMap() || fd.HasDefault() || m.Has(fd) || (o.emitDefaults && fd.Message() == nil)) {
			continue
		}
		v := m.Get(fd)
		switch {
		case fd.IsList():
			l := v.List()
			arr := make([]any, l.Len())
			for j := range arr {
				arr[j] = fromProtoValue(fd, l.Get(j), *f.Type.Elem, o)
			}
			out[i] = arr
		case fd.IsMap():
			mv := &sqltypes.MapValue{}
			var keys []protoreflect.MapKey
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			sort.Slice(keys, func(a, b int) bool { return fmt.Sprint(keys[a].Interface()) < fmt.Sprint(keys[b].Interface()) })
			for _, k := range keys {
				mv.Keys = append(mv.Keys, fromProtoValue(fd.MapKey(), k.Value(), *f.Type.Key, o))
				mv.Values = append(mv.Values, fromProtoValue(fd.MapValue(), v.Map().Get(k), *f.Type.Value, o))
			}
			out[i] = mv
		default:
			out[i] = fromProtoValue(fd, v, f.Type, o)
		}
	}
	return out
}

// fromProtoValue reads one value of field fd as Spark type t.
func fromProtoValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, t sqltypes.DataType, o protoOpts) any {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return v.Bool()
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return int32(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return int32(v.Uint())
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return v.Int()
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return int64(v.Uint())
	case protoreflect.FloatKind:
		return float32(v.Float())
	case protoreflect.DoubleKind:
		return v.Float()
	case protoreflect.StringKind:
		return v.String()
	case protoreflect.BytesKind:
		return append([]byte{}, v.Bytes()...)
	case protoreflect.EnumKind:
		n := v.Enum()
		if o.enumsAsInts {
			return int32(n)
		}
		if ev := fd.Enum().Values().ByNumber(n); ev != nil {
			return string(ev.Name())
		}
		return fmt.Sprintf("UNKNOWN_ENUM_VALUE_%s_%d", fd.Enum().Name(), n)
	}
	m := v.Message()
	if t.Kind == sqltypes.Timestamp || t.Kind == sqltypes.DayTimeInterval {
		fs := m.Descriptor().Fields()
		return m.Get(fs.Get(0)).Int()*1_000_000 + m.Get(fs.Get(1)).Int()/1000
	}
	return fromProtoMessage(m, t, o)
}

// protoWritable checks that struct type t can be written as message md, field by field (by name,
// case-insensitively): the errors Spark's ProtobufSerializer raises.
func protoWritable(t sqltypes.DataType, md protoreflect.MessageDescriptor, path string) error {
	for _, f := range t.Fields {
		fd := protoFieldByName(md, f.Name)
		p := strings.TrimPrefix(path+"."+f.Name, ".")
		if fd == nil {
			return protoErr("NO_SQL_TYPE_IN_PROTOBUF_SCHEMA", "42S22", "Cannot find field '"+p+"' in Protobuf schema.",
				"catalystFieldPath", "field '"+p+"'")
		}
		ft := f.Type
		if fd.IsList() {
			if ft.Kind != sqltypes.Array {
				return protoIncompatible(p, fd, f.Type)
			}
			ft = *ft.Elem
		}
		if err := protoValueWritable(ft, fd, p); err != nil {
			return err
		}
	}
	return nil
}

func protoValueWritable(t sqltypes.DataType, fd protoreflect.FieldDescriptor, path string) error {
	ok := false
	switch fd.Kind() {
	case protoreflect.BoolKind:
		ok = t.Kind == sqltypes.Boolean
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		ok = t.Kind == sqltypes.Integer || t.Kind == sqltypes.Short || t.Kind == sqltypes.Byte
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		ok = t.Kind == sqltypes.Long
	case protoreflect.FloatKind:
		ok = t.Kind == sqltypes.Float
	case protoreflect.DoubleKind:
		ok = t.Kind == sqltypes.Double
	case protoreflect.StringKind:
		ok = t.Kind == sqltypes.String
	case protoreflect.BytesKind:
		ok = t.Kind == sqltypes.Binary
	case protoreflect.EnumKind:
		ok = t.Kind == sqltypes.String || t.Kind == sqltypes.Integer
	case protoreflect.MessageKind, protoreflect.GroupKind:
		m := fd.Message()
		switch {
		case fd.IsMap():
			if t.Kind == sqltypes.Map {
				if err := protoValueWritable(*t.Key, fd.MapKey(), path+".key"); err != nil {
					return err
				}
				return protoValueWritable(*t.Value, fd.MapValue(), path+".value")
			}
		case protoWellKnown(m, "Timestamp"):
			ok = t.Kind == sqltypes.Timestamp
		case protoWellKnown(m, "Duration"):
			ok = t.Kind == sqltypes.DayTimeInterval
		case t.Kind == sqltypes.Struct:
			return protoWritable(t, m, path)
		}
	}
	if !ok {
		return protoIncompatible(path, fd, t)
	}
	return nil
}

func protoIncompatible(path string, fd protoreflect.FieldDescriptor, t sqltypes.DataType) error {
	pt := strings.ToUpper(fd.Kind().String())
	return protoErr("CANNOT_CONVERT_SQL_TYPE_TO_PROTOBUF_FIELD_TYPE", "42846",
		fmt.Sprintf("Cannot convert SQL field '%s' to Protobuf field '%s' because schema is incompatible (protobufType = %s, sqlType = %s).",
			path, path, pt, typeDDL(t)),
		"sqlColumn", "field '"+path+"'", "protobufColumn", "field '"+path+"'", "protobufType", pt, "sqlType", `"`+typeDDL(t)+`"`)
}

func protoFieldByName(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		if strings.EqualFold(string(fs.Get(i).Name()), name) {
			return fs.Get(i)
		}
	}
	return nil
}

// toProtoMessage builds message md from a struct value of type t (checked by protoWritable);
// NULL fields stay unset.
func toProtoMessage(md protoreflect.MessageDescriptor, v []any, t sqltypes.DataType) (*dynamicpb.Message, error) {
	m := dynamicpb.NewMessage(md)
	for i, f := range t.Fields {
		if v[i] == nil {
			continue
		}
		fd := protoFieldByName(md, f.Name)
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for _, e := range v[i].([]any) {
				if e == nil {
					continue
				}
				pv, err := toProtoValue(fd, e, *f.Type.Elem)
				if err != nil {
					return nil, err
				}
				l.Append(pv)
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			mv := v[i].(*sqltypes.MapValue)
			for j, k := range mv.Keys {
				kv, err := toProtoValue(fd.MapKey(), k, *f.Type.Key)
				if err != nil {
					return nil, err
				}
				if mv.Values[j] == nil {
					continue
				}
				vv, err := toProtoValue(fd.MapValue(), mv.Values[j], *f.Type.Value)
				if err != nil {
					return nil, err
				}
				mp.Set(kv.MapKey(), vv)
			}
		default:
			pv, err := toProtoValue(fd, v[i], f.Type)
			if err != nil {
				return nil, err
			}
			m.Set(fd, pv)
		}
	}
	return m, nil
}

func toProtoValue(fd protoreflect.FieldDescriptor, v any, t sqltypes.DataType) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(v.(bool)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(toInt64(v))), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(toInt64(v))), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(toInt64(v)), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(toInt64(v))), nil
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(v.(float32)), nil
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(v.(float64)), nil
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(v.(string)), nil
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(v.([]byte)), nil
	case protoreflect.EnumKind:
		if s, ok := v.(string); ok {
			ev := fd.Enum().Values().ByName(protoreflect.Name(s))
			if ev == nil {
				names := make([]string, fd.Enum().Values().Len())
				for i := range names {
					names[i] = string(fd.Enum().Values().Get(i).Name())
				}
				e := strings.Join(names, ", ")
				return protoreflect.Value{}, protoErr("CANNOT_CONVERT_SQL_VALUE_TO_PROTOBUF_ENUM_TYPE", "42846",
					fmt.Sprintf("Cannot convert SQL field '%s' to Protobuf field '%s' because %s is not in defined values for enum: %s.",
						fd.Name(), fd.Name(), s, e),
					"sqlColumn", "field '"+string(fd.Name())+"'", "protobufColumn", "field '"+string(fd.Name())+"'", "data", s, "enumString", e)
			}
			return protoreflect.ValueOfEnum(ev.Number()), nil
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(toInt64(v))), nil
	}
	md := fd.Message()
	if t.Kind == sqltypes.Timestamp || t.Kind == sqltypes.DayTimeInterval {
		us := v.(int64)
		m := dynamicpb.NewMessage(md)
		fs := md.Fields()
		m.Set(fs.Get(0), protoreflect.ValueOfInt64(floorDiv(us, 1_000_000)))
		m.Set(fs.Get(1), protoreflect.ValueOfInt32(int32((us-floorDiv(us, 1_000_000)*1_000_000)*1000)))
		return protoreflect.ValueOfMessage(m), nil
	}
	m, err := toProtoMessage(md, v.([]any), t)
	if err != nil {
		return protoreflect.Value{}, err
	}
	return protoreflect.ValueOfMessage(m), nil
}
