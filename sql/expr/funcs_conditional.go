package expr

// Conditional functions (Spark's conditional_funcs): CASE WHEN, coalesce/nvl/ifnull, nvl2,
// nullif, if.

func init() {
	registerScalar(2, -1, bindWhen, "when", "case")
	registerScalar(1, -1, bindCoalesce, "coalesce")
	registerScalar(2, 2, bindCoalesce, "nvl", "ifnull")
	registerScalar(3, 3, bindNvl2, "nvl2")
	registerScalar(2, 2, bindNullIf, "nullif")
	registerScalar(3, 3, bindIf, "if", "iff")
}

func bindWhen(_ string, args []Expr, opts Options) (Expr, error) {
	c := &caseWhen{}
	i := 0
	for ; i+1 < len(args); i += 2 {
		c.conds = append(c.conds, args[i])
		c.vals = append(c.vals, args[i+1])
	}
	if i < len(args) {
		c.elseV = args[i]
	}
	for k, cond := range c.conds {
		b, err := requireBoolean(quoteSQL(c.String()), 2*k, cond, opts)
		if err != nil {
			return nil, err
		}
		c.conds[k] = b
	}
	branches := append([]Expr{}, c.vals...)
	if c.elseV != nil {
		branches = append(branches, c.elseV)
	}
	t, ok := commonTypeOf(branches)
	if !ok {
		return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(c.String()),
			"Input to `casewhen` should all be the same type, but it's [%s].", typesList(branches))
	}
	c.t = t
	var err error
	if c.vals, err = castAll(c.vals, t, opts); err != nil {
		return nil, err
	}
	if c.elseV != nil {
		if c.elseV, err = implicitCast(c.elseV, t, opts); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func bindCoalesce(name string, args []Expr, opts Options) (Expr, error) {
	t, ok := commonTypeOf(args)
	if !ok {
		return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(callString(name, args)),
			"Input to `%s` should all be the same type, but it's [%s].", name, typesList(args))
	}
	cs, err := castAll(args, t, opts)
	if err != nil {
		return nil, err
	}
	c := &coalesce{name: name, args: cs, t: t}
	if name != "coalesce" {
		return &renamed{Expr: c, text: callText(name, args)}, nil
	}
	return c, nil
}

func bindNvl2(name string, args []Expr, opts Options) (Expr, error) {
	cond := &nullTest{kind: "notnull", child: args[0]}
	e, err := bindWhen("when", []Expr{cond, args[1], args[2]}, opts)
	if err != nil {
		return nil, err
	}
	e.(*caseWhen).str = callText(name, args)
	return e, nil
}

func bindNullIf(name string, args []Expr, opts Options) (Expr, error) {
	eq, err := bindComparison("=", args, opts)
	if err != nil {
		return nil, err
	}
	e, err := bindWhen("when", []Expr{eq, &Literal{T: args[0].Type()}, args[0]}, opts)
	if err != nil {
		return nil, err
	}
	e.(*caseWhen).str = callText(name, args)
	return e, nil
}

func bindIf(name string, args []Expr, opts Options) (Expr, error) {
	e, err := bindWhen("when", args, opts)
	if err != nil {
		return nil, err
	}
	e.(*caseWhen).str = sqlOf("(IF(", args[0], ", ", args[1], ", ", args[2], "))")
	return e, nil
}
