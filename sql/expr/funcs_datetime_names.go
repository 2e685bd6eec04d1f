package expr

import (
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// dayname and monthname: a date's English three-letter day or month name ("Mon", "Jan"), as
// Spark's DayName and MonthName format them.

func init() {
	registerScalar(1, 1, bindDateName, "dayname", "monthname")
}

func bindDateName(name string, args []Expr, opts Options) (Expr, error) {
	d, err := dateArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{d}, sqltypes.StringType, func(_ *Context, a []any) (any, error) {
		t := time.Unix(int64(a[0].(int32))*86400, 0).UTC()
		if name == "dayname" {
			return t.Weekday().String()[:3], nil
		}
		return t.Month().String()[:3], nil
	})
	f.str = callString(name, args)
	return f, nil
}
