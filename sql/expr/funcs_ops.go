package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Operators: arithmetic, comparison, boolean logic, null tests, IN.

func init() {
	registerScalar(2, 2, bindArith, "+", "*", "/", "%", "div", "pmod", "mod")
	registerScalar(1, 2, bindMinus, "-")
	registerScalar(2, 2, bindComparison, "==", "=", "<=>", "<", "<=", ">", ">=", "!=", "<>", "equal_null")
	registerScalar(2, 2, bindLogic, "and", "or")
	registerScalar(1, 1, bindNot, "not", "!")
	registerScalar(1, 1, bindNullTest, "isnull", "isnotnull", "isnan")
	registerScalar(1, -1, bindIn, "in")
	registerScalar(1, 1, bindNegative, "negative", "positive")
}

func isStringLike(t sqltypes.DataType) bool { return t.Kind == sqltypes.String }

// binaryOpString renders (l op r) for error messages.
func binaryOpString(op string, l, r Expr) string {
	return "(" + l.String() + " " + op + " " + r.String() + ")"
}

func diffTypes(op string, l, r Expr) error {
	return typeMismatch("BINARY_OP_DIFF_TYPES", quoteSQL(binaryOpString(op, l, r)),
		"the left and right operands of the binary operator have incompatible types (\"%s\" and \"%s\").",
		l.Type().SQL(), r.Type().SQL()).WithParams("left", `"`+l.Type().SQL()+`"`, "right", `"`+r.Type().SQL()+`"`)
}

func bindArith(name string, args []Expr, opts Options) (Expr, error) {
	op := name
	if op == "mod" {
		e, err := bindArith("%", args, opts)
		if err != nil {
			return nil, err
		}
		return &renamed{Expr: e, text: callText("mod", args)}, nil
	}
	l, r := args[0], args[1]
	if f, ok, err := bindCalendarScale(op, l, r, opts); ok || err != nil {
		return f, err
	}
	lt, rt := l.Type(), r.Type()
	if lt.Kind == sqltypes.Null && rt.Kind == sqltypes.Null {
		lt, rt = sqltypes.DoubleType, sqltypes.DoubleType
		if op != "/" {
			lt, rt = sqltypes.IntegerType, sqltypes.IntegerType
		}
	} else if lt.Kind == sqltypes.Null {
		lt = rt
	} else if rt.Kind == sqltypes.Null {
		rt = lt
	}
	if d, ok, err := bindDatetimeArith(op, l, r, lt, rt, opts); ok || err != nil {
		return d, err
	}
	// String operands are promoted to the other side's numeric type.
	if isStringLike(lt) {
		lt = stringArithType(rt, opts)
	}
	if isStringLike(rt) {
		rt = stringArithType(lt, opts)
	}
	if !lt.IsNumeric() || !rt.IsNumeric() {
		bad, idx := l, 0
		if lt.IsNumeric() {
			bad, idx = r, 1
		}
		if lt.Kind != rt.Kind && lt.IsNumeric() != rt.IsNumeric() && !(lt.IsNumeric() || rt.IsNumeric()) {
			return nil, diffTypes(op, l, r)
		}
		_ = idx
		return nil, typeMismatch("BINARY_OP_WRONG_TYPE", quoteSQL(binaryOpString(op, l, r)),
			"the binary operator requires the input type (\"NUMERIC\" or \"INTERVAL DAY TO SECOND\" or \"INTERVAL YEAR TO MONTH\" or \"INTERVAL\"), not \"%s\".", bad.Type().SQL())
	}
	var in, out sqltypes.DataType
	switch {
	case op == "div":
		if lt.Kind == sqltypes.Decimal || rt.Kind == sqltypes.Decimal {
			if lt.IsFractional() || rt.IsFractional() {
				in = sqltypes.DoubleType
			} else {
				in = widerNumeric(lt, rt)
			}
		} else if lt.IsFractional() || rt.IsFractional() {
			in = sqltypes.DoubleType
		} else {
			in = sqltypes.LongType
		}
		out = sqltypes.LongType
	case op == "/" && lt.Kind != sqltypes.Decimal && rt.Kind != sqltypes.Decimal:
		in, out = sqltypes.DoubleType, sqltypes.DoubleType
	case (lt.Kind == sqltypes.Decimal || rt.Kind == sqltypes.Decimal) && !lt.IsFractional() && !rt.IsFractional():
		ld, rd := decimalOperandType(withType(l, lt)), decimalOperandType(withType(r, rt))
		lc, err := implicitCast(l, ld, opts)
		if err != nil {
			return nil, err
		}
		rc, err := implicitCast(r, rd, opts)
		if err != nil {
			return nil, err
		}
		t := decimalResultType(op, ld, rd)
		return &arith{op: op, left: lc, right: rc, in: t, t: t, ansi: opts.ANSI}, nil
	default:
		in = widerNumeric(lt, rt)
		out = in
	}
	lc, err := implicitCast(l, in, opts)
	if err != nil {
		return nil, err
	}
	rc, err := implicitCast(r, in, opts)
	if err != nil {
		return nil, err
	}
	return &arith{op: op, left: lc, right: rc, in: in, t: out, ansi: opts.ANSI}, nil
}

// withType pretends e has type t for decimal operand sizing (a literal keeps its digits).
func withType(e Expr, t sqltypes.DataType) Expr {
	if e.Type().Equal(t) {
		return e
	}
	if l, ok := e.(*Literal); ok && l.Value != nil && l.T.IsIntegral() {
		return e
	}
	return &Literal{Value: nil, T: t}
}

func stringArithType(other sqltypes.DataType, opts Options) sqltypes.DataType {
	if opts.ANSI && other.IsIntegral() {
		return sqltypes.LongType
	}
	if other.Kind == sqltypes.Decimal && opts.ANSI {
		return sqltypes.DoubleType
	}
	return sqltypes.DoubleType
}

func bindComparison(name string, args []Expr, opts Options) (Expr, error) {
	op := name
	switch name {
	case "==":
		op = "="
	case "equal_null":
		op = "<=>"
	}
	if name == "!=" || name == "<>" {
		eq, err := bindComparison("=", args, opts)
		if err != nil {
			return nil, err
		}
		return &notExpr{child: eq}, nil
	}
	l, r := args[0], args[1]
	t, ok := comparisonType(l.Type(), r.Type())
	if !ok {
		return nil, diffTypes(op, l, r)
	}
	if Unorderable(t) {
		return nil, InvalidOrdering(binaryOpString(op, l, r), op, t)
	}
	lc, err := implicitCast(l, t, opts)
	if err != nil {
		return nil, err
	}
	rc, err := implicitCast(r, t, opts)
	if err != nil {
		return nil, err
	}
	c := &comparison{op: op, left: lc, right: rc, in: t}
	if name == "equal_null" {
		return &renamed{Expr: c, text: callText("equal_null", args)}, nil
	}
	return c, nil
}

// isBooleanOperand reports whether requireBoolean accepts e.
func isBooleanOperand(e Expr) bool {
	k := e.Type().Kind
	return k == sqltypes.Boolean || k == sqltypes.Null
}

func requireBoolean(sqlExpr string, idx int, e Expr, opts Options) (Expr, error) {
	switch e.Type().Kind {
	case sqltypes.Boolean:
		return e, nil
	case sqltypes.Null:
		return &Literal{T: sqltypes.BooleanType}, nil
	}
	return nil, unexpectedInputType(sqlExpr, idx, `"BOOLEAN"`, e)
}

func bindLogic(name string, args []Expr, opts Options) (Expr, error) {
	b := &boolLogic{and: name == "and", left: args[0], right: args[1]}
	if !isBooleanOperand(args[0]) || !isBooleanOperand(args[1]) {
		// Render for the error only: rendering on every bind makes a chain quadratic.
		s := quoteSQL(b.String())
		var err error
		if b.left, err = requireBoolean(s, 0, args[0], opts); err != nil {
			return nil, err
		}
		if b.right, err = requireBoolean(s, 1, args[1], opts); err != nil {
			return nil, err
		}
	}
	b.left, _ = requireBoolean("", 0, args[0], opts)
	b.right, _ = requireBoolean("", 1, args[1], opts)
	return b, nil
}

func bindNot(_ string, args []Expr, opts Options) (Expr, error) {
	if !isBooleanOperand(args[0]) {
		return nil, unexpectedInputType(quoteSQL("(NOT "+args[0].String()+")"), 0, `"BOOLEAN"`, args[0])
	}
	c, _ := requireBoolean("", 0, args[0], opts)
	return &notExpr{child: c}, nil
}

func bindNullTest(name string, args []Expr, opts Options) (Expr, error) {
	switch name {
	case "isnull":
		return &nullTest{kind: "null", child: args[0]}, nil
	case "isnotnull":
		return &nullTest{kind: "notnull", child: args[0]}, nil
	}
	c := args[0]
	switch c.Type().Kind {
	case sqltypes.Float, sqltypes.Double:
	case sqltypes.Null:
		c = &Literal{T: sqltypes.DoubleType}
	default:
		if !c.Type().IsNumeric() {
			return nil, unexpectedInputType(quoteSQL("isnan("+c.String()+")"), 0, `("DOUBLE" or "FLOAT")`, c)
		}
		var err error
		if c, err = implicitCast(c, sqltypes.DoubleType, opts); err != nil {
			return nil, err
		}
	}
	return &nullTest{kind: "nan", child: c}, nil
}

func bindIn(_ string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	for _, a := range args[1:] {
		nt, ok := comparisonType(t, a.Type())
		if !ok {
			e := &inList{value: args[0], list: args[1:]}
			return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(e.String()),
				"Input to `in` should all be the same type, but it's [%s].", typesList(args))
		}
		t = nt
	}
	if t.Kind == sqltypes.CalendarInterval {
		return nil, InvalidOrdering((&inList{value: args[0], list: args[1:]}).String(), "in", t)
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	if len(cs)-1 > InSetThreshold {
		if s, ok := newInSet(cs[0], cs[1:], t, opts); ok {
			return s, nil
		}
	}
	return (&inList{value: cs[0], list: cs[1:], in: t}).withSet(opts.TimeZone), nil
}

func typesList(args []Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += `"` + a.Type().SQL() + `"`
	}
	return s
}

// bindMinus is binary subtraction, or unary minus rendered "(- a)".
func bindMinus(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 2 {
		return bindArith(name, args, opts)
	}
	e, err := bindNegative("negative", args, opts)
	if err != nil {
		return nil, err
	}
	return &renamed{Expr: e, text: sqlOf("(- ", args[0], ")")}, nil
}

func bindNegative(name string, args []Expr, opts Options) (Expr, error) {
	c := args[0]
	t := c.Type()
	if t.Kind == sqltypes.String {
		var err error
		if c, err = implicitCast(c, sqltypes.DoubleType, opts); err != nil {
			return nil, err
		}
		t = sqltypes.DoubleType
	}
	if !t.IsNumeric() && t.Kind != sqltypes.DayTimeInterval && t.Kind != sqltypes.YearMonthInterval && t.Kind != sqltypes.CalendarInterval {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("NUMERIC" or "INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH" or "INTERVAL")`, c)
	}
	if name == "positive" {
		return &renamed{Expr: c, text: sqlOf("(+ ", args[0], ")")}, nil
	}
	ansi := opts.ANSI
	f := strict(name, []Expr{c}, t, func(_ *Context, a []any) (any, error) {
		return negate(a[0], t, ansi)
	})
	f.vec = negateKernel(t, ansi)
	return f, nil
}

func negate(v any, t sqltypes.DataType, ansi bool) (any, error) {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		n := toInt64(v)
		lo, _ := integralBounds(t.Kind)
		if n == lo && ansi {
			return nil, intOverflow(t.Kind, "-")
		}
		return narrow(-n, t.Kind), nil
	case sqltypes.Float:
		return -v.(float32), nil
	case sqltypes.Double:
		return -v.(float64), nil
	case sqltypes.Decimal:
		b := decimalBig(v.(decimalNum))
		return bigToNum(b.Neg(b)), nil
	case sqltypes.DayTimeInterval:
		return -v.(int64), nil
	case sqltypes.YearMonthInterval:
		return -v.(int32), nil
	case sqltypes.CalendarInterval:
		c, ok := scaleCalendar(v.(sqltypes.CalendarIntervalValue), -1)
		return calendarResult(c, ok, ansi)
	}
	return nil, sparkerr.Internal("negate %s", t)
}
