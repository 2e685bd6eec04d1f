package expr

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// xxhash64: Spark's XxHash64 expression. Each argument's hash seeds the next (the first seed
// is 42); values hash as Spark's XXH64 hashes them: integers up to 32 bits as 4 bytes, longs,
// timestamps and decimals up to precision 18 as 8 bytes (little-endian), wider decimals as
// Java's BigInteger bytes, strings and binaries as their bytes. XXH64 is the reference
// algorithm, so a byte-level digest computes it.

func init() {
	registerScalar(1, -1, bindXXHash64, "xxhash64")
}

func bindXXHash64(name string, args []Expr, opts Options) (Expr, error) {
	if err := checkHashable(name, args); err != nil {
		return nil, err
	}
	return &rowFunc{name: name, args: args, t: sqltypes.LongType, str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			h := uint64(42)
			for i, v := range a {
				h = sparkXXHash64(v, args[i].Type(), h)
			}
			return int64(h), nil
		}}, nil
}

func xxh64Bytes(b []byte, seed uint64) uint64 {
	var d xxhash.Digest // on the stack: this runs once per value
	d.ResetWithSeed(seed)
	_, _ = d.Write(b)
	return d.Sum64()
}

func xxh64Int(v int32, seed uint64) uint64 {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(v))
	return xxh64Bytes(b[:], seed)
}

func xxh64Long(v int64, seed uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	return xxh64Bytes(b[:], seed)
}

var xxhash64Hasher = valueHasher[uint64]{hashInt: xxh64Int, hashLong: xxh64Long, hashBytes: xxh64Bytes}

func sparkXXHash64(v any, t sqltypes.DataType, seed uint64) uint64 {
	return xxhash64Hasher.hash(v, t, seed)
}

// checkHashable refuses map arguments (anywhere in their type) to hash and xxhash64, as Spark
// does unless spark.sql.legacy.allowHashOnMapType: equal maps may hash differently.
func checkHashable(name string, args []Expr) error {
	var hasMap func(t sqltypes.DataType) bool
	hasMap = func(t sqltypes.DataType) bool {
		switch t.Kind {
		case sqltypes.Map:
			return true
		case sqltypes.Array:
			return hasMap(*t.Elem)
		case sqltypes.Struct:
			for _, f := range t.Fields {
				if hasMap(f.Type) {
					return true
				}
			}
		}
		return false
	}
	for _, a := range args {
		if hasMap(a.Type()) {
			return sparkerr.Newf(sparkerr.AnalysisException, "DATATYPE_MISMATCH.HASH_MAP_TYPE", "42K09",
				"Cannot resolve %s due to data type mismatch: Input to the function `%s` cannot contain elements of the \"MAP\" type. In Spark, same maps may have different hashcode, thus hash expressions are prohibited on \"MAP\" elements. To restore previous behavior set \"spark.sql.legacy.allowHashOnMapType\" to \"true\".",
				quoteSQL(callString(name, args)), name).WithParams("sqlExpr", quoteSQL(callString(name, args)), "functionName", "`"+name+"`")
		}
	}
	return nil
}
