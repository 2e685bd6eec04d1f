package expr

import (
	"math"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// The linear-regression aggregates regr_*(y, x), as Spark's linearRegression.scala defines
// them: regr_count is the count of pairs with both values non-null, regr_avgx/regr_avgy the
// average of x/y over those pairs (avg's type rules: a decimal stays a decimal); the others are
// doubles computed with Spark's streaming updates (Covariance, CentralMomentAgg,
// PearsonCorrelation) in row order over the pairs with both values non-null, so they agree
// with Spark to the last bit over the same rows in the same order.

func init() {
	registerAggregate(2, 2, bindRegrCount, "regr_count")
	registerAggregate(2, 2, bindRegrAvg, "regr_avgx", "regr_avgy")
	registerAggregate(2, 2, bindRegression, "regr_sxx", "regr_syy", "regr_sxy", "regr_slope",
		"regr_intercept", "regr_r2")
}

// regrArgs checks y and x are numeric (strings are cast to DOUBLE, as Spark's implicit casts).
func regrArgs(name string, args []Expr, opts Options) ([]Expr, error) {
	out := make([]Expr, 2)
	for i, a := range args {
		switch t := a.Type(); {
		case t.IsNumeric():
			out[i] = a
		case t.Kind == sqltypes.String || t.Kind == sqltypes.Null:
			c, err := implicitCast(a, sqltypes.DoubleType, opts)
			if err != nil {
				return nil, err
			}
			out[i] = c
		default:
			return nil, unexpectedInputType(quoteSQL(callString(name, args)), i, `"NUMERIC"`, a)
		}
	}
	return out, nil
}

// bothNotNull is isnotnull(y) AND isnotnull(x).
func bothNotNull(y, x Expr, opts Options) (Expr, error) {
	ny, err := Bind("isnotnull", []Expr{y}, opts)
	if err != nil {
		return nil, err
	}
	nx, err := Bind("isnotnull", []Expr{x}, opts)
	if err != nil {
		return nil, err
	}
	return Bind("and", []Expr{ny, nx}, opts)
}

// bindRegrCount is count_if(y IS NOT NULL AND x IS NOT NULL) (Spark's Count(Seq(y, x))).
func bindRegrCount(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	cs, err := regrArgs(name, args, opts)
	if err != nil {
		return nil, err
	}
	both, err := bothNotNull(cs[0], cs[1], opts)
	if err != nil {
		return nil, err
	}
	f, err := bindCountIf("count_if", []Expr{both}, distinct, opts)
	if err != nil {
		return nil, err
	}
	a := f.(*aggFunc)
	a.name, a.display = name, args
	return a, nil
}

// bindRegrAvg is avg(IF(y IS NOT NULL AND x IS NOT NULL, v, NULL)), v being x or y.
func bindRegrAvg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	cs, err := regrArgs(name, args, opts)
	if err != nil {
		return nil, err
	}
	both, err := bothNotNull(cs[0], cs[1], opts)
	if err != nil {
		return nil, err
	}
	v := cs[0]
	if name == "regr_avgx" {
		v = cs[1]
	}
	guarded, err := Bind("if", []Expr{both, v, NewLiteral(nil, v.Type())}, opts)
	if err != nil {
		return nil, err
	}
	f, err := bindAvg("avg", []Expr{guarded}, distinct, opts)
	if err != nil {
		return nil, err
	}
	a := f.(*aggFunc)
	a.name, a.display = name, args
	return a, nil
}

// bindRegression binds the regr_* functions computed from running moments over (y, x) as
// doubles.
func bindRegression(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	cs, err := regrArgs(name, args, opts)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		if cs[i], err = implicitCast(cs[i], sqltypes.DoubleType, opts); err != nil {
			return nil, err
		}
	}
	a := tupleAgg(name, cs, distinct, sqltypes.DoubleType, skipAnyNull, func(rows [][]any) (any, error) {
		return regression(name, rows), nil
	})
	a.display = args
	return a, nil
}

// moments are Spark's running aggregates over pairs (a, b): n, the averages, the co-moment ck
// (Covariance: ck += da * (b - newBAvg)) and the second moments (PearsonCorrelation).
type moments struct {
	n, aAvg, bAvg, ck, aMk, bMk float64
}

func (m *moments) add(a, b float64) {
	n := m.n + 1
	da, db := a-m.aAvg, b-m.bAvg
	aAvg := m.aAvg + da/n
	bAvg := m.bAvg + db/n
	m.ck += da * (b - bAvg)
	m.aMk += da * (a - aAvg)
	m.bMk += db * (b - bAvg)
	m.n, m.aAvg, m.bAvg = n, aAvg, bAvg
}

// centralM2 is CentralMomentAgg's running second moment of one variable.
type centralM2 struct {
	n, avg, m2 float64
}

func (c *centralM2) add(v float64) {
	n := c.n + 1
	delta := v - c.avg
	deltaN := delta / n
	c.avg += deltaN
	c.m2 += delta * (delta - deltaN)
	c.n = n
}

// regression computes name over the non-null pairs rows (y, x), in order.
func regression(name string, rows [][]any) any {
	f := func(v any) float64 { return v.(float64) }
	switch name {
	case "regr_sxx", "regr_syy":
		// RegrReplacement: CentralMomentAgg over x (or y) of the non-null pairs; NULL when none.
		var c centralM2
		for _, r := range rows {
			if name == "regr_sxx" {
				c.add(f(r[1]))
			} else {
				c.add(f(r[0]))
			}
		}
		if c.n == 0 {
			return nil
		}
		return c.m2
	case "regr_sxy":
		// Covariance(y, x): ck over (y, x).
		var m moments
		for _, r := range rows {
			m.add(f(r[0]), f(r[1]))
		}
		if m.n == 0 {
			return nil
		}
		return m.ck
	case "regr_r2":
		// PearsonCorrelation over (y, x): NULL when x does not vary, 1 when y does not.
		var m moments
		for _, r := range rows {
			m.add(f(r[0]), f(r[1]))
		}
		if m.bMk == 0 {
			return nil
		}
		if m.aMk == 0 {
			return 1.0
		}
		corr := m.ck / math.Sqrt(m.aMk*m.bMk)
		return corr * corr
	}
	// regr_slope, regr_intercept: CovPopulation(x, y) and VariancePop(x).
	var cov moments
	var vx centralM2
	for _, r := range rows {
		x := f(r[1])
		vx.add(x)
		cov.add(x, f(r[0]))
	}
	if vx.m2 == 0 {
		return nil
	}
	if name == "regr_slope" {
		return cov.ck / vx.m2
	}
	return cov.bAvg - cov.ck/vx.m2*cov.aAvg
}
