package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash/crc32"
	"strconv"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// Digests, encodings and radix conversions.

func init() {
	registerScalar(1, 1, bindDigest, "md5", "sha1", "sha", "crc32", "base64", "unbase64", "unhex")
	registerScalar(2, 2, bindSha2, "sha2")
	registerScalar(1, 1, bindHex, "hex")
	registerScalar(1, 1, bindBin, "bin")
	registerScalar(3, 3, bindConv, "conv")
}

// binaryArg accepts binary, or casts a string-like argument to binary.
func binaryArg(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind == sqltypes.Binary {
		return args[0], nil
	}
	s, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	return implicitCast(s, sqltypes.BinaryType, opts)
}

func bindDigest(name string, args []Expr, opts Options) (Expr, error) {
	if name == "unbase64" || name == "unhex" {
		s, err := coerceArg(name, args, 0, strType, opts)
		if err != nil {
			return nil, err
		}
		f := nullableStrict(name, []Expr{s}, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
			in := a[0].(string)
			if name == "unhex" {
				if len(in)%2 == 1 {
					in = "0" + in
				}
				b, err := hex.DecodeString(in)
				if err != nil {
					return nil, nil
				}
				return b, nil
			}
			b, err := base64.StdEncoding.DecodeString(in)
			if err != nil {
				b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(in, "="))
				if err != nil {
					return nil, nil
				}
			}
			return b, nil
		})
		f.text = callText(name, args)
		return f, nil
	}
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
		case "crc32":
			return int64(crc32.ChecksumIEEE(in)), nil
		}
		return base64.StdEncoding.EncodeToString(in), nil
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

func bindHex(name string, args []Expr, opts Options) (Expr, error) {
	x := args[0]
	switch {
	case x.Type().IsIntegral():
		c, err := implicitCast(x, sqltypes.LongType, opts)
		if err != nil {
			return nil, err
		}
		f := strict(name, []Expr{c}, strType, func(_ *Context, a []any) (any, error) {
			return strings.ToUpper(strconv.FormatUint(uint64(a[0].(int64)), 16)), nil
		})
		f.text = callText(name, args)
		return f, nil
	case x.Type().Kind == sqltypes.Binary:
		f := strict(name, args, strType, func(_ *Context, a []any) (any, error) {
			return strings.ToUpper(hex.EncodeToString(a[0].([]byte))), nil
		})
		return f, nil
	}
	s, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{s}, strType, func(_ *Context, a []any) (any, error) {
		return strings.ToUpper(hex.EncodeToString([]byte(a[0].(string)))), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindBin(name string, args []Expr, opts Options) (Expr, error) {
	c, err := coerceArg(name, args, 0, sqltypes.LongType, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{c}, strType, func(_ *Context, a []any) (any, error) {
		return strconv.FormatUint(uint64(a[0].(int64)), 2), nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindConv(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType, intType, intType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		from, to := int(toInt64(a[1])), int(toInt64(a[2]))
		if from < 2 || from > 36 || to < -36 || to > 36 || (to > -2 && to < 2) {
			return nil, nil
		}
		s := strings.TrimSpace(a[0].(string))
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		n, err := strconv.ParseUint(strings.ToLower(s), from, 64)
		if err != nil {
			// Spark reads the longest valid prefix.
			j := 0
			for j < len(s) {
				if _, e := strconv.ParseUint(strings.ToLower(s[:j+1]), from, 64); e != nil {
					break
				}
				j++
			}
			if j == 0 {
				return "0", nil
			}
			n, _ = strconv.ParseUint(strings.ToLower(s[:j]), from, 64)
		}
		if neg {
			n = -n
		}
		if to < 0 {
			v := int64(n)
			if v < 0 {
				return "-" + strings.ToUpper(strconv.FormatUint(uint64(-v), -to)), nil
			}
			return strings.ToUpper(strconv.FormatUint(uint64(v), -to)), nil
		}
		return strings.ToUpper(strconv.FormatUint(n, to)), nil
	})
	f.text = callText(name, args)
	return f, nil
}
