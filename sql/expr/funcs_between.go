package expr

// between(x, lower, upper) is Spark's Between: x >= lower AND x <= upper, each comparison
// coerced on its own, named between(x, lower, upper). The SQL form x [NOT] BETWEEN a AND b
// parses into it.

func init() {
	registerScalar(3, 3, bindBetween, "between")
}

func bindBetween(name string, args []Expr, opts Options) (Expr, error) {
	ge, err := Bind(">=", []Expr{args[0], args[1]}, opts)
	if err != nil {
		return nil, err
	}
	le, err := Bind("<=", []Expr{args[0], args[2]}, opts)
	if err != nil {
		return nil, err
	}
	and, err := Bind("and", []Expr{ge, le}, opts)
	if err != nil {
		return nil, err
	}
	return &renamed{Expr: and, text: callText(name, args)}, nil
}
