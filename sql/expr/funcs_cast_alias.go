package expr

import sqltypes "github.com/weirhq/weir/sql/types"

// Cast functions: bigint(x), int(x), string(x), date(x), … are CAST(x AS type) under the
// session's cast mode, named as their argument (Spark's column name for int('12') is 12).

var castAliases = map[string]sqltypes.DataType{
	"boolean": sqltypes.BooleanType, "tinyint": sqltypes.ByteType, "smallint": sqltypes.ShortType,
	"int": sqltypes.IntegerType, "bigint": sqltypes.LongType, "float": sqltypes.FloatType,
	"double": sqltypes.DoubleType, "decimal": sqltypes.DecimalType(10, 0), "string": sqltypes.StringType,
	"binary": sqltypes.BinaryType, "date": sqltypes.DateType, "timestamp": sqltypes.TimestampType,
	"time": sqltypes.TimeType(sqltypes.MaxTimePrecision),
}

func init() {
	for name := range castAliases {
		registerScalar(1, 1, bindCastAlias, name)
	}
}

func bindCastAlias(name string, args []Expr, opts Options) (Expr, error) {
	c, err := newCast(args[0], castAliases[name], castModeFor(opts), opts)
	if err != nil {
		return nil, err
	}
	c.implicit = true
	return c, nil
}
