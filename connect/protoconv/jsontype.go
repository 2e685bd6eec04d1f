package protoconv

import sqltypes "github.com/weirhq/weir/sql/types"

// ParseJSONType parses Spark's JSON form of a data type; see sqltypes.ParseJSONType.
func ParseJSONType(s string) (sqltypes.DataType, error) { return sqltypes.ParseJSONType(s) }

// JSONType renders t in Spark's JSON form; see sqltypes.JSONType.
func JSONType(t sqltypes.DataType) string { return sqltypes.JSONType(t) }
