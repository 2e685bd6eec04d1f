package expr

import (
	"errors"
	"github.com/twmb/avro"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The Avro functions, as Spark runs them with its spark-avro module: to_avro(data[, jsonSchema])
// (Avro binary of a value, under the given schema or the one Spark derives from the value's
// type), from_avro(data, jsonSchema[, options]) (mode FAILFAST, the default, or PERMISSIVE) and
// schema_of_avro(jsonSchema[, options]) (the DDL of the Spark type a schema reads as).

func init() {
	registerScalar(1, 2, bindToAvro, "to_avro")
	registerScalar(2, 3, bindFromAvro, "from_avro")
	registerScalar(1, 2, bindSchemaOfAvro, "schema_of_avro")
}

// avroSchemaArg reads the JSON schema argument args[i]: a constant string.
func avroSchemaArg(name string, args []Expr, i int) (*avroSchema, error) {
	v, ok := constantArg(args[i])
	text, isStr := v.(string)
	if !ok || !isStr {
		return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input jsonFormatSchema should be a foldable \"STRING\" expression; however, got %s.", args[i].String())
	}
	return parseAvroSchema(text)
}

func bindToAvro(name string, args []Expr, _ Options) (Expr, error) {
	t := args[0].Type()
	var s *avroSchema
	if len(args) == 1 {
		args = append(args, NewLiteral(nil, sqltypes.StringType))
		root := avroNodeFor(t, args[0].Nullable(), "topLevelRecord", "")
		codec, err := root.Schema()
		if err != nil {
			return nil, sparkerr.New(incompatibleAvro, "", "", "Unexpected type "+t.SQL()+".")
		}
		s = &avroSchema{codec: codec, root: &root, named: map[string]*avro.SchemaNode{}}
	} else {
		var err error
		if s, err = avroSchemaArg(name, args, 1); err != nil {
			return nil, err
		}
		if !s.writable(t, s.root, 0) {
			return nil, sparkerr.New(incompatibleAvro, "", "",
				"Cannot convert SQL type "+typeDDL(t)+" to Avro type "+s.text+".")
		}
	}
	f := strict(name, args[:1], sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		g, err := s.toAvroValue(a[0], t, s.root)
		if err != nil {
			return nil, err
		}
		out, err := s.codec.Encode(g)
		if err != nil {
			return nil, sparkerr.New(incompatibleAvro, "", "", err.Error())
		}
		return out, nil
	})
	f.str = callString(name, args)
	return f, nil
}

var errTopLevelUnion = errors.New("avro: a top-level union's null or one of several types")

// malformedAvro is the SparkException FAILFAST raises for a value the schema does not read.
func malformedAvro() *sparkerr.Error {
	return sparkerr.New(sparkerr.SparkException, "", "",
		"Malformed records are detected in record parsing. Current parse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.")
}

// avroReadSchema completes a reading function's arguments with its NULL options (so the call
// renders as Spark's does) and reads the schema at args[i] with the Spark type it reads as.
func avroReadSchema(name string, args []Expr, i int) ([]Expr, *avroSchema, sqltypes.DataType, error) {
	if len(args) == i+1 {
		args = append(args, NewLiteral(nil, sqltypes.NullType))
	}
	s, err := avroSchemaArg(name, args, i)
	if err != nil {
		return nil, nil, sqltypes.DataType{}, err
	}
	t, _, err := s.sqlType(s.root, 0)
	return args, s, t, err
}

func bindFromAvro(name string, args []Expr, opts Options) (Expr, error) {
	args, s, t, err := avroReadSchema(name, args, 1)
	if err != nil {
		return nil, err
	}
	o, err := optionsArg(args, 2)
	if err != nil {
		return nil, err
	}
	permissive, err := parseMode(name, o)
	if err != nil {
		return nil, err
	}
	data, err := coerceArg(name, args, 0, sqltypes.BinaryType, opts)
	if err != nil {
		return nil, err
	}
	// PERMISSIVE reads a malformed value as NULL, or as a struct of NULLs for a struct.
	var malformed any
	if t.Kind == sqltypes.Struct {
		malformed = make([]any, len(t.Fields))
	}
	// Spark's top-level reader fails on a union's null and on a union of several types (it
	// reads them only inside records): such a value is malformed.
	root := s.resolve(s.root)
	severalTypes := root.Type == "union" && len(s.nonNullBranches(root)) > 1 && t.Kind == sqltypes.Struct
	f := nullableStrict(name, []Expr{data}, t, func(_ *Context, a []any) (any, error) {
		var g any
		_, err := s.codec.Decode(a[0].([]byte), &g)
		var v any
		if err == nil {
			v, err = s.fromAvroValue(g, s.root, t)
		}
		if err == nil && (severalTypes || (v == nil && root.Type == "union")) {
			err = errTopLevelUnion
		}
		if err != nil {
			if permissive {
				return malformed, nil
			}
			return nil, malformedAvro().Wrap(err)
		}
		return v, nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindSchemaOfAvro(name string, args []Expr, _ Options) (Expr, error) {
	args, _, t, err := avroReadSchema(name, args, 0)
	if err != nil {
		return nil, err
	}
	return &renamed{Expr: NewLiteral(typeDDL(t), sqltypes.StringType), name: callString(name, args)}, nil
}
