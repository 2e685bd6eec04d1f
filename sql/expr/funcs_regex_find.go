package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Regular expression functions that find matches: regexp_count, regexp_extract_all,
// regexp_instr, regexp_substr (Java regex syntax, run with RE2 as the others).

func init() {
	registerScalar(2, 2, bindRegexpCount, "regexp_count")
	registerScalar(2, 3, bindRegexpExtractAll, "regexp_extract_all")
	registerScalar(2, 3, bindRegexpInstr, "regexp_instr")
	registerScalar(2, 2, bindRegexpSubstr, "regexp_substr")
}

func bindRegexpCount(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		return int32(len(re.FindAllStringIndex(a[0].(string), -1))), nil
	})
}

func regexGroupIndexError(name string, groups, idx int) error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", "22023",
		"The value of parameter(s) `idx` in `%s` is invalid: Expects group index between 0 and %d, but got %d.", name, groups, idx)
}

func bindRegexpExtractAll(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 2 {
		args = append(args, NewLiteral(int32(1), intType))
	}
	return strFunc(name, args, opts, sqltypes.ArrayType(strType, true), []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		idx := int(toInt64(a[2]))
		out := []any{}
		for _, m := range re.FindAllStringSubmatch(a[0].(string), -1) {
			// As Spark, the group index is checked against the first match.
			if idx < 0 || idx > re.NumSubexp() {
				return nil, regexGroupIndexError(name, re.NumSubexp(), idx)
			}
			out = append(out, m[idx])
		}
		return out, nil
	})
}

// bindRegexpInstr is Spark's RegExpInStr: the 1-based position where the first match starts
// (0 without a match); the third argument is accepted as Spark accepts it.
func bindRegexpInstr(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 2 {
		args = append(args, NewLiteral(int32(0), intType))
	}
	return strFunc(name, args, opts, intType, []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		loc := re.FindStringIndex(s)
		if loc == nil {
			return int32(0), nil
		}
		return int32(len([]rune(s[:loc[0]])) + 1), nil
	})
}

func bindRegexpSubstr(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		loc := re.FindStringIndex(a[0].(string))
		if loc == nil {
			return nil, nil
		}
		return a[0].(string)[loc[0]:loc[1]], nil
	})
	f.str = callString(name, args)
	return f, nil
}
