package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash/crc32"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// Hash functions (Spark's hash_funcs): hash (Murmur3), md5, sha1/sha, sha2, crc32.

func init() {
	registerScalar(1, 1, bindDigest, "md5", "sha1", "sha", "crc32")
	registerScalar(2, 2, bindSha2, "sha2")
	registerScalar(1, -1, bindHash, "hash")
}

func bindDigest(name string, args []Expr, opts Options) (Expr, error) {
	b, err := binaryArg(name, args, opts)
	if err != nil {
		return nil, err
	}
	t := strType
	if name == "crc32" {
		t = sqltypes.LongType
	}
	f := strict(name, []Expr{b}, t, func(_ *Context, a []any) (any, error) {
		in := a[0].([]byte)
		switch name {
		case "md5":
			s := md5.Sum(in)
			return hex.EncodeToString(s[:]), nil
		case "sha1", "sha":
			s := sha1.Sum(in)
			return hex.EncodeToString(s[:]), nil
		}
		return int64(crc32.ChecksumIEEE(in)), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindSha2(name string, args []Expr, opts Options) (Expr, error) {
	b, err := binaryArg(name, args, opts)
	if err != nil {
		return nil, err
	}
	bits, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, []Expr{b, bits}, strType, func(_ *Context, a []any) (any, error) {
		in := a[0].([]byte)
		switch toInt64(a[1]) {
		case 0, 256:
			s := sha256.Sum256(in)
			return hex.EncodeToString(s[:]), nil
		case 224:
			s := sha256.Sum224(in)
			return hex.EncodeToString(s[:]), nil
		case 384:
			s := sha512.Sum384(in)
			return hex.EncodeToString(s[:]), nil
		case 512:
			s := sha512.Sum512(in)
			return hex.EncodeToString(s[:]), nil
		}
		return nil, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindHash(name string, args []Expr, opts Options) (Expr, error) {
	if err := checkHashable(name, args); err != nil {
		return nil, err
	}
	return &rowFunc{name: name, args: args, t: intType, str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			h := uint32(42)
			for i, v := range a {
				h = sparkHash(v, args[i].Type(), h)
			}
			return int32(h), nil
		}}, nil
}
