package analyzer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Window functions (Spark's ExtractWindowExpressions): a select list's `f(…) OVER (…)` items
// (plain or over an aggregation, where the function's arguments and the specification may use
// aggregates: sum(sum(x)) OVER (…)) are bound by a binder carrying a windowSet; each becomes a
// reference to a column of a logical.Window node between the select's input (or Aggregate) and
// its Project, one Window per distinct partition/order specification. Anywhere else (WHERE,
// GROUP BY, inside another window function) a window function is refused.

// windowSet collects the window functions of one select list, grouped by specification.
type windowSet struct {
	a      *Analyzer
	groups []*windowGroup
	byKey  map[string]*windowGroup
	// groupOf is the group of each reference handed out, so that a window function over
	// another's result (sum(row_number() OVER …) OVER …) goes in a later Window node.
	groupOf map[*expr.Column]int
}

// windowGroup is the functions sharing one specification; refs are the references the binder
// returned for them, indexed once the Window nodes are placed (over).
type windowGroup struct {
	key       string
	index     int
	partition []expr.Expr
	order     []logical.SortKey
	funcs     []*logical.WindowFunc
	names     []string
	funcKeys  map[string]int
	refs      [][]*expr.Column
}

func (a *Analyzer) newWindowSet() *windowSet {
	return &windowSet{a: a, byKey: map[string]*windowGroup{}, groupOf: map[*expr.Column]int{}}
}

// empty reports whether no window function was collected.
func (ws *windowSet) empty() bool { return ws == nil || len(ws.groups) == 0 }

// over places the collected Window nodes over r (a chain, one per specification) and indexes
// the references handed out while binding.
func (ws *windowSet) over(r *resolved) *resolved {
	if ws.empty() {
		return r
	}
	out := r
	for _, g := range ws.groups {
		base := len(out.cols)
		w := &logical.Window{Input: out.node, PartitionBy: g.partition, OrderBy: g.order, Funcs: g.funcs, Names: g.names}
		cols := append([]column(nil), out.cols...)
		for i, f := range g.funcs {
			cols = append(cols, column{name: g.names[i], typ: f.Type, nullable: f.Nullable})
			for _, ref := range g.refs[i] {
				ref.Index = base + i
			}
		}
		out = &resolved{node: w, cols: cols}
	}
	return out
}

// add records a bound window function under its specification and returns a reference to its
// future column.
func (ws *windowSet) add(partition []expr.Expr, order []logical.SortKey, f *logical.WindowFunc, name string) *expr.Column {
	var kb strings.Builder
	for _, p := range partition {
		kb.WriteString(exprKey(p))
		kb.WriteByte(';')
	}
	kb.WriteString("|")
	for _, o := range order {
		kb.WriteString(exprKey(o.Expr) + " " + o.String())
		kb.WriteByte(';')
	}
	key := kb.String()
	deps := append(append([]expr.Expr(nil), partition...), f.Value, f.Default)
	for _, o := range order {
		deps = append(deps, o.Expr)
	}
	if f.Agg != nil {
		deps = append(deps, f.Agg.Args()...)
	}
	after := ws.lastGroupIn(deps)
	g, ok := ws.byKey[key]
	if !ok || g.index <= after {
		g = &windowGroup{key: key, index: len(ws.groups), partition: partition, order: order, funcKeys: map[string]int{}}
		ws.byKey[key] = g
		ws.groups = append(ws.groups, g)
	}
	fk := name + "|" + funcArgKey(f)
	i, ok := g.funcKeys[fk]
	if !ok {
		i = len(g.funcs)
		g.funcKeys[fk] = i
		g.funcs = append(g.funcs, f)
		g.names = append(g.names, name)
		g.refs = append(g.refs, nil)
	}
	ref := &expr.Column{Index: -1, Name: name, T: f.Type, Null: f.Nullable}
	g.refs[i] = append(g.refs[i], ref)
	ws.groupOf[ref] = g.index
	return ref
}

// lastGroupIn is the latest group whose results es read (-1 for none).
func (ws *windowSet) lastGroupIn(es []expr.Expr) int {
	last := -1
	var walk func(e expr.Expr)
	walk = func(e expr.Expr) {
		if c, ok := e.(*expr.Column); ok {
			if g, ok := ws.groupOf[c]; ok && g > last {
				last = g
			}
			return
		}
		for _, ch := range e.Children() {
			walk(ch)
		}
	}
	for _, e := range es {
		if e != nil {
			walk(e)
		}
	}
	return last
}

func funcArgKey(f *logical.WindowFunc) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(f.Kind)) + ";" + strconv.FormatInt(f.Offset, 10) + ";" + strconv.FormatBool(f.IgnoreNulls) + ";")
	var es []expr.Expr
	if f.Agg != nil {
		es = f.Agg.Args()
	}
	es = append(es, f.Value, f.Default)
	for _, e := range es {
		if e != nil {
			b.WriteString(exprKey(e))
		}
		b.WriteByte(';')
	}
	return b.String()
}

// bindWindow binds `fn OVER (spec)` where window functions are allowed (b.windows set).
func (b *binder) bindWindow(w plan.Window) (expr.Expr, error) {
	if b.windows == nil {
		return nil, windowNotAllowed(w, b.windowClause)
	}
	call, ok := asCall(w.Func)
	if !ok {
		return nil, sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_WINDOW", "42P20",
			"Expression %s not supported within a window function.", planExprSQL(w.Func)).
			WithParams("sqlExpr", planExprSQL(w.Func))
	}
	// Inside the window, another window function is refused; aggregates follow the
	// enclosing binder (an aggregation's intercept).
	inner := *b
	inner.windows = nil
	partition, err := inner.bindAll(w.PartitionBy)
	if err != nil {
		return nil, err
	}
	for _, p := range partition {
		if t := p.Type(); t.Kind == sqltypes.CalendarInterval {
			e, ty := `"`+p.String()+`"`, `"`+t.SQL()+`"`
			return nil, sparkerr.Analysis("EXPRESSION_TYPE_IS_NOT_ORDERABLE", "42822",
				"Column expression %s cannot be sorted because its type %s is not orderable.", e, ty).
				WithParams("expr", e, "exprType", ty)
		}
	}
	order := make([]logical.SortKey, len(w.OrderBy))
	for i, o := range w.OrderBy {
		k, err := inner.bind(o.Child)
		if err != nil {
			return nil, err
		}
		order[i] = logical.SortKey{Expr: k, Descending: o.Descending, NullsFirst: o.NullsFirst}
	}
	// The function's arguments may be other window functions' results.
	args := inner
	args.windows = b.windows
	f, err := args.windowFunction(call, order)
	if err != nil {
		return nil, err
	}
	frame, err := b.a.windowFrame(f, w.Frame, order)
	if err != nil {
		return nil, err
	}
	f.Frame = frame
	name := f.SQL + " OVER " + windowSpecSQL(partition, order, frame)
	if call.Distinct {
		// Named as Spark names it: sum(DISTINCT v) OVER (…).
		fn := strings.ToLower(call.Name)
		return nil, distinctWindow(`"` + strings.Replace(name, fn+"(", fn+"(DISTINCT ", 1) + `"`)
	}
	return b.windows.add(partition, order, f, name), nil
}

// windowSpecSQL renders a specification as Spark's WindowSpecDefinition.sql.
func windowSpecSQL(partition []expr.Expr, order []logical.SortKey, frame logical.Frame) string {
	var parts []string
	if len(partition) > 0 {
		ps := make([]string, len(partition))
		for i, p := range partition {
			ps[i] = p.String()
		}
		parts = append(parts, "PARTITION BY "+strings.Join(ps, ", "))
	}
	if len(order) > 0 {
		os := make([]string, len(order))
		for i, o := range order {
			os[i] = o.String()
		}
		parts = append(parts, "ORDER BY "+strings.Join(os, ", "))
	}
	parts = append(parts, frame.String())
	return "(" + strings.Join(parts, " ") + ")"
}

// rankingFuncs are the window functions that need an ordered window and fix their frame.
var rankingFuncs = map[string]logical.WindowKind{
	"row_number":   logical.WindowRowNumber,
	"rank":         logical.WindowRank,
	"dense_rank":   logical.WindowDenseRank,
	"percent_rank": logical.WindowPercentRank,
	"cume_dist":    logical.WindowCumeDist,
	"ntile":        logical.WindowNTile,
}

// offsetFuncs are the window functions that read another row of the window.
var offsetFuncs = []string{"lag", "lead", "nth_value"}

// isWindowOnly reports whether name is a function that exists only as a window function.
func isWindowOnly(name string) bool {
	_, ok := rankingFuncs[name]
	return ok || slices.Contains(offsetFuncs, name)
}

// windowFunction binds the function of a window expression (its frame is set later).
func (b *binder) windowFunction(c plan.Call, order []logical.SortKey) (*logical.WindowFunc, error) {
	name := strings.ToLower(c.Name)
	c, err := arrangeArgs(c)
	if err != nil {
		return nil, err
	}
	if c.Distinct && isWindowOnly(name) {
		return nil, distinctWindow(callSQL(c))
	}
	if kind, ok := rankingFuncs[name]; ok {
		return b.rankingFunction(c, name, kind, order)
	}
	switch name {
	case "lag", "lead":
		return b.offsetFunction(c, name)
	case "nth_value":
		return b.nthValue(c)
	}
	if !expr.IsAggregate(name) {
		if _, err := expr.Bind(name, nil, b.a.Options); err != nil {
			if se, ok := err.(*sparkerr.Error); ok && se.Class == "UNRESOLVED_ROUTINE" {
				return nil, err
			}
		}
		return nil, sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_WINDOW", "42P20",
			"Expression %s not supported within a window function.", callSQL(c)).
			WithParams("sqlExpr", callSQL(c))
	}
	var args []expr.Expr
	if s, ok := singleStar(c.Args); ok && name == "count" && len(s.Target) == 0 {
		args = []expr.Expr{expr.NewLiteral(int32(1), sqltypes.IntegerType)}
	} else {
		var err error
		if args, err = b.bindAll(c.Args); err != nil {
			return nil, err
		}
	}
	var within *orderedSetOrder
	if c.WithinGroup != nil {
		if c.Filter != nil {
			return nil, sparkerr.Unsupported("%s … WITHIN GROUP with FILTER over a window", name)
		}
		var err error
		if within, err = b.withinGroup(c); err != nil {
			return nil, err
		}
	}
	fn, err := within.bindAggregate(name, args, false, b.a.Options)
	if err != nil {
		return nil, err
	}
	f := &logical.WindowFunc{Kind: logical.WindowAggregate, Agg: fn, Type: fn.Type(), Nullable: fn.Nullable(), SQL: fn.String()}
	if within != nil {
		f.SQL += expr.WithinGroupSQL(within.key, within.desc)
	}
	if c.Filter != nil {
		// agg(x) FILTER (WHERE p) OVER (…) is agg(CASE WHEN p THEN x END) OVER (…).
		cond, err := b.bind(c.Filter)
		if err != nil {
			return nil, err
		}
		if err := checkBoolean(cond); err != nil {
			return nil, err
		}
		if f.Agg, err = b.a.filteredAggregate(name, args, false, cond); err != nil {
			return nil, err
		}
		f.Type, f.Nullable = f.Agg.Type(), f.Agg.Nullable()
		f.SQL += " FILTER (WHERE " + cond.String() + ")"
		return f, nil
	}
	switch name {
	case "first", "last", "first_value", "last_value", "any_value":
		f.Kind = logical.WindowFirst
		if name == "last" || name == "last_value" {
			f.Kind = logical.WindowLast
		}
		f.Value = fn.Args()[0]
		if len(args) == 2 {
			if v, ok := args[1].(*expr.Literal); ok && v.Value == true {
				f.IgnoreNulls = true
				// Spark names first_value(x) IGNORE NULLS "first(x)".
				f.SQL = "first(" + f.Value.String() + ")"
				if f.Kind == logical.WindowLast {
					f.SQL = "last(" + f.Value.String() + ")"
				}
			}
		}
		f.Agg = nil
	}
	return f, nil
}

func (b *binder) rankingFunction(c plan.Call, name string, kind logical.WindowKind, order []logical.SortKey) (*logical.WindowFunc, error) {
	if len(order) == 0 {
		return nil, notOrdered(name)
	}
	f := &logical.WindowFunc{Kind: kind, SQL: name + "()"}
	if kind != logical.WindowNTile && len(c.Args) != 0 {
		return nil, wrongWindowArgs(name, "0", len(c.Args))
	}
	switch kind {
	case logical.WindowRowNumber, logical.WindowRank, logical.WindowDenseRank:
		f.Type = sqltypes.IntegerType
	case logical.WindowPercentRank, logical.WindowCumeDist:
		f.Type = sqltypes.DoubleType
	case logical.WindowNTile:
		f.Type = sqltypes.IntegerType
		if len(c.Args) != 1 {
			return nil, wrongWindowArgs(name, "1", len(c.Args))
		}
		n, x, err := b.constInt(c.Args[0])
		if err != nil {
			return nil, err
		}
		if n <= 0 || n > math.MaxInt32 {
			sql := `"ntile(` + x.String() + `)"`
			return nil, sparkerr.Analysis("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", "42K09",
				"Cannot resolve %s due to data type mismatch: The buckets must be between (0, 2147483647] (current value = %d).", sql, n).
				WithParams("sqlExpr", sql, "exprName", "buckets", "valueRange", "(0, 2147483647]", "currentValue", strconv.FormatInt(n, 10))
		}
		f.Offset = n
		f.SQL = "ntile(" + x.String() + ")"
	}
	if kind == logical.WindowRank || kind == logical.WindowDenseRank || kind == logical.WindowPercentRank {
		// Spark renders the rank functions in upper case: RANK().
		f.SQL = strings.ToUpper(name) + "()"
	}
	return f, nil
}

func wrongWindowArgs(name, expected string, got int) *sparkerr.Error {
	return sparkerr.Analysis("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
		"The `%s` requires %s parameters but the actual number is %d.", name, expected, got).
		WithParams("functionName", "`"+name+"`", "expectedNum", expected, "actualNum", strconv.Itoa(got))
}

// constInt binds e and evaluates it as an integer constant.
func (b *binder) constInt(e plan.Expr) (int64, expr.Expr, error) {
	x, err := b.bind(e)
	if err != nil {
		return 0, nil, err
	}
	if readsColumns(x) || !x.Type().IsIntegral() {
		return 0, x, sparkerr.Analysis("DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09",
			"The input %s should be a foldable integer expression.", x.String())
	}
	v, err := b.a.evalConst(x)
	if err != nil {
		return 0, x, err
	}
	if v == nil {
		return 0, x, sparkerr.Analysis("DATATYPE_MISMATCH.UNEXPECTED_NULL", "42K09",
			"The input %s must not be null.", x.String())
	}
	return int64(toInt(v)), x, nil
}

// offsetFunction binds lag(x[, offset[, default]]) and lead (a trailing boolean literal is
// IGNORE NULLS).
func (b *binder) offsetFunction(c plan.Call, name string) (*logical.WindowFunc, error) {
	args := c.Args
	ignore := false
	if n := len(args); n == 4 {
		if l, ok := asLiteral(args[n-1]); ok && l.Type.Kind == sqltypes.Boolean {
			ignore, _ = l.Value.(bool)
			args = args[:n-1]
		}
	}
	if len(args) < 1 || len(args) > 3 {
		return nil, wrongWindowArgs(name, "[1, 2, 3]", len(args))
	}
	value, err := b.bind(args[0])
	if err != nil {
		return nil, err
	}
	off := int64(1)
	offExpr := expr.NewLiteral(int32(1), sqltypes.IntegerType)
	if len(args) > 1 {
		if off, offExpr, err = b.constInt(args[1]); err != nil {
			return nil, err
		}
	}
	def := expr.NewLiteral(nil, value.Type())
	if len(args) > 2 {
		if def, err = b.bind(args[2]); err != nil {
			return nil, err
		}
	}
	defSQL := def.String()
	if !def.Type().Equal(value.Type()) {
		if def, err = expr.NewCast(def, value.Type(), plan.CastDefault, b.a.Options); err != nil {
			return nil, err
		}
	}
	f := &logical.WindowFunc{Kind: logical.WindowOffset, Value: value, Default: def, Offset: off, IgnoreNulls: ignore,
		Type: value.Type(), Nullable: true,
		SQL: name + "(" + value.String() + ", " + offExpr.String() + ", " + defSQL + ")"}
	if name == "lag" {
		f.Offset = -off
	}
	return f, nil
}

// nthValue binds nth_value(x, n[, ignoreNulls]).
func (b *binder) nthValue(c plan.Call) (*logical.WindowFunc, error) {
	args := c.Args
	ignore := false
	if len(args) == 3 {
		l, ok := asLiteral(args[2])
		if !ok || l.Type.Kind != sqltypes.Boolean {
			return nil, sparkerr.Analysis("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
				"The third parameter of nth_value requires the \"BOOLEAN\" type.")
		}
		ignore, _ = l.Value.(bool)
		args = args[:2]
	}
	if len(args) != 2 {
		return nil, wrongWindowArgs("nth_value", "[2, 3]", len(c.Args))
	}
	value, err := b.bind(args[0])
	if err != nil {
		return nil, err
	}
	n, nx, err := b.constInt(args[1])
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, sparkerr.Analysis("DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE", "42K09",
			"Cannot resolve \"nth_value(%s, %d)\" due to data type mismatch: The offset must be greater than 0, but got %d.",
			value.String(), n, n).WithParams("exprName", "offset", "valueRange", "(0, 9223372036854775807]", "currentValue", strconv.FormatInt(n, 10)+"L")
	}
	sql := "nth_value(" + value.String() + ", " + nx.String() + ")"
	if ignore {
		sql += " ignore nulls"
	}
	return &logical.WindowFunc{Kind: logical.WindowNthValue, Value: value, Offset: n, IgnoreNulls: ignore,
		Type: value.Type(), Nullable: true, SQL: sql}, nil
}

var (
	unboundedPreceding = logical.FrameBound{Kind: logical.UnboundedPreceding}
	unboundedFollowing = logical.FrameBound{Kind: logical.UnboundedFollowing}
	currentRow         = logical.FrameBound{Kind: logical.CurrentRow}
)

// windowFrame resolves f's frame: the one it requires (ranking and offset functions), else the
// specified one, else Spark's default (RANGE UNBOUNDED PRECEDING..CURRENT ROW when ordered,
// the whole partition otherwise).
func (a *Analyzer) windowFrame(f *logical.WindowFunc, spec *plan.WindowFrame, order []logical.SortKey) (logical.Frame, error) {
	var required *logical.Frame
	switch f.Kind {
	case logical.WindowRowNumber, logical.WindowRank, logical.WindowDenseRank, logical.WindowPercentRank, logical.WindowNTile:
		required = &logical.Frame{Rows: true, Lower: unboundedPreceding, Upper: currentRow}
	case logical.WindowCumeDist:
		required = &logical.Frame{Lower: unboundedPreceding, Upper: currentRow}
	case logical.WindowOffset:
		b := logical.FrameBound{Kind: logical.OffsetBound, Rows: f.Offset, SQL: offsetSQL(f.Offset)}
		required = &logical.Frame{Rows: true, Lower: b, Upper: b}
	}
	var frame logical.Frame
	switch {
	case spec != nil:
		fr, err := a.specifiedFrame(spec, order)
		if err != nil {
			return frame, err
		}
		if required != nil && fr.String() != required.String() {
			return frame, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1036", "",
				"Window Frame %s must match the required frame %s.", frameDebug(fr), frameDebug(*required)).
				WithParams("wf", frameDebug(fr), "required", frameDebug(*required))
		}
		frame = fr
	case required != nil:
		frame = *required
	case len(order) > 0:
		frame = logical.Frame{Lower: unboundedPreceding, Upper: currentRow}
	default:
		frame = logical.Frame{Rows: true, Lower: unboundedPreceding, Upper: unboundedFollowing}
	}
	if len(order) == 0 && f.Kind == logical.WindowOffset {
		return frame, notOrdered(f.SQL[:strings.IndexByte(f.SQL, '(')])
	}
	return frame, nil
}

// notOrdered is Spark's error for a ranking or offset function over an unordered window.
func notOrdered(name string) *sparkerr.Error {
	return sparkerr.Analysis("WINDOW_FUNCTION_FRAME_NOT_ORDERED", "42601",
		"Window function %s requires the window to be ordered. You need to add an ORDER BY clause. For example: SELECT RANK() OVER (PARTITION BY window_partition ORDER BY window_ordering) FROM table.",
		name).WithParams("windowFunction", name)
}

// offsetSQL renders lag's and lead's frame offset as Spark does: lag(x, 1) is
// "-1 FOLLOWING".
func offsetSQL(n int64) string { return strconv.FormatInt(n, 10) + " FOLLOWING" }

// frameDebug renders a frame as Spark's SpecifiedWindowFrame.toString (in frame-mismatch
// errors): specifiedwindowframe(RowFrame, -1, currentrow$()).
func frameDebug(f logical.Frame) string {
	kind := "RangeFrame"
	if f.Rows {
		kind = "RowFrame"
	}
	b := func(x logical.FrameBound) string {
		switch x.Kind {
		case logical.UnboundedPreceding:
			return "unboundedpreceding$()"
		case logical.UnboundedFollowing:
			return "unboundedfollowing$()"
		case logical.CurrentRow:
			return "currentrow$()"
		}
		if x.Value != nil {
			return fmt.Sprint(x.Value)
		}
		return strconv.FormatInt(x.Rows, 10)
	}
	return "specifiedwindowframe(" + kind + ", " + b(f.Lower) + ", " + b(f.Upper) + ")"
}

// specifiedFrame resolves a ROWS or RANGE frame written by the user.
func (a *Analyzer) specifiedFrame(spec *plan.WindowFrame, order []logical.SortKey) (logical.Frame, error) {
	fr := logical.Frame{Rows: !spec.IsRange}
	var keyType sqltypes.DataType
	if spec.IsRange {
		hasOffset := spec.Lower != nil && spec.Lower.Offset != nil && !spec.Lower.CurrentRow ||
			spec.Upper != nil && spec.Upper.Offset != nil && !spec.Upper.CurrentRow
		if hasOffset {
			switch {
			case len(order) == 0:
				return fr, frameMismatch("RANGE_FRAME_WITHOUT_ORDER", "the window specification", "A range window frame cannot be used in an unordered window specification.")
			case len(order) > 1:
				return fr, frameMismatch("RANGE_FRAME_MULTI_ORDER", "the window specification", "A range window frame with value boundaries cannot be used in a window specification with multiple order by expressions.")
			}
			keyType = order[0].Expr.Type()
			if !rangeKeyType(keyType) {
				return fr, frameMismatch("SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE", `"`+planFrameSQL(spec)+`"`,
					`The data type of the lower bound "`+keyType.SQL()+`" does not match the expected data type ("NUMERIC" or "INTERVAL DAY TO SECOND" or "INTERVAL YEAR TO MONTH" or "INTERVAL").`)
			}
		}
	}
	lower, err := a.frameBound(spec.Lower, true, fr.Rows, keyType)
	if err != nil {
		return fr, err
	}
	upper, err := a.frameBound(spec.Upper, false, fr.Rows, keyType)
	if err != nil {
		return fr, err
	}
	fr.Lower, fr.Upper = lower, upper
	if boundRank(lower) > boundRank(upper) ||
		lower.Kind == logical.OffsetBound && upper.Kind == logical.OffsetBound && boundLess(upper, lower) {
		return fr, frameMismatch("SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON", `"`+fr.String()+`"`,
			"The lower bound of a window frame must be less than or equal to the upper bound.")
	}
	if lower.Kind == logical.UnboundedFollowing || upper.Kind == logical.UnboundedPreceding {
		return fr, frameMismatch("SPECIFIED_WINDOW_FRAME_INVALID_BOUND", `"`+fr.String()+`"`,
			"Window frame upper bound cannot be UNBOUNDED PRECEDING and lower bound cannot be UNBOUNDED FOLLOWING.")
	}
	return fr, nil
}

// boundRank orders bound kinds where comparable without offsets: unbounded preceding first,
// unbounded following last; an offset compares with CURRENT ROW by sign.
func boundRank(b logical.FrameBound) int {
	switch b.Kind {
	case logical.UnboundedPreceding:
		return 0
	case logical.UnboundedFollowing:
		return 4
	case logical.CurrentRow:
		return 2
	}
	if boundSign(b) < 0 {
		return 1
	} else if boundSign(b) > 0 {
		return 3
	}
	return 2
}

func boundSign(b logical.FrameBound) int {
	switch v := b.Value.(type) {
	case int64:
		return sign(v)
	case logical.MonthsOffset:
		return sign(int64(v))
	case float64:
		switch {
		case v < 0:
			return -1
		case v > 0:
			return 1
		}
		return 0
	}
	return sign(b.Rows)
}

func sign(v int64) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// boundLess reports x < y for two offset bounds.
func boundLess(x, y logical.FrameBound) bool {
	switch xv := x.Value.(type) {
	case int64:
		yv, _ := y.Value.(int64)
		return xv < yv
	case logical.MonthsOffset:
		yv, _ := y.Value.(logical.MonthsOffset)
		return xv < yv
	case float64:
		yv, _ := y.Value.(float64)
		return xv < yv
	}
	return x.Rows < y.Rows
}

func frameMismatch(sub, what, msg string) *sparkerr.Error {
	return sparkerr.Analysis("DATATYPE_MISMATCH."+sub, "42K09",
		"Cannot resolve %s due to data type mismatch: %s", what, msg).WithParams("sqlExpr", what)
}

// frameBound resolves one bound; offsets (PRECEDING ones arrive negated, as
// negative(x) from SQL or a negative literal from the DataFrame API) must be constants: integers
// for ROWS, of the order key's type (or an interval for a date or timestamp key) for RANGE.
func (a *Analyzer) frameBound(fb *plan.FrameBound, lower, rows bool, keyType sqltypes.DataType) (logical.FrameBound, error) {
	switch {
	case fb == nil || fb.Unbounded:
		if lower {
			return unboundedPreceding, nil
		}
		return unboundedFollowing, nil
	case fb.CurrentRow:
		return currentRow, nil
	}
	off := fb.Offset
	preceding := false
	if c, ok := asCall(off); ok && strings.EqualFold(c.Name, "negative") && len(c.Args) == 1 {
		off, preceding = c.Args[0], true
	}
	x, err := a.binderOver(newResolved(&logical.LocalData{})).bind(off)
	if err != nil {
		return logical.FrameBound{}, err
	}
	if readsColumns(x) {
		return logical.FrameBound{}, frameMismatch("SPECIFIED_WINDOW_FRAME_WITHOUT_FOLDABLE", `"`+x.String()+`"`,
			"Window frame boundary "+x.String()+" is not a literal.")
	}
	v, err := a.evalConst(x)
	if err != nil {
		return logical.FrameBound{}, err
	}
	sql := x.String() + " FOLLOWING"
	if preceding {
		sql = x.String() + " PRECEDING"
	}
	b := logical.FrameBound{Kind: logical.OffsetBound, SQL: sql}
	if rows {
		if !x.Type().IsIntegral() || v == nil {
			return b, frameMismatch("SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE", `"`+x.String()+`"`,
				"The data type of the boundary "+x.String()+" is not accepted by a ROWS frame (it must be an integer).")
		}
		b.Rows = int64(toInt(v))
		if preceding {
			b.Rows = -b.Rows
		}
		if b.Rows == 0 {
			return currentRow, nil
		}
		return b, nil
	}
	val, ok := rangeOffset(v, x.Type(), keyType)
	if !ok {
		return b, frameMismatch("RANGE_FRAME_INVALID_TYPE", `"`+x.String()+`"`,
			"The data type "+keyType.SQL()+" used in the order specification does not match the data type "+x.Type().SQL()+" which is used in the range frame.")
	}
	if preceding {
		switch t := val.(type) {
		case int64:
			val = -t
		case float64:
			val = -t
		case logical.MonthsOffset:
			val = -t
		}
	}
	b.Value = val
	return b, nil
}

// rangeOffset converts a RANGE offset of type t to the unit of an order key of type key.
func rangeOffset(v any, t, key sqltypes.DataType) (any, bool) {
	if v == nil {
		return nil, false
	}
	switch key.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		if t.IsIntegral() {
			return int64(toInt(v)), true
		}
	case sqltypes.Float, sqltypes.Double, sqltypes.Decimal:
		if t.IsNumeric() {
			return numberAsFloat(v, t)
		}
	case sqltypes.Date:
		switch {
		case t.Kind == sqltypes.YearMonthInterval:
			return logical.MonthsOffset(toInt(v)), true
		case t.IsIntegral():
			return int64(toInt(v)), true
		case t.Kind == sqltypes.DayTimeInterval:
			us, _ := v.(int64)
			return us / 86_400_000_000, us%86_400_000_000 == 0
		}
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		switch t.Kind {
		case sqltypes.DayTimeInterval:
			us, ok := v.(int64)
			return us, ok
		case sqltypes.YearMonthInterval:
			return logical.MonthsOffset(toInt(v)), true
		}
	case sqltypes.DayTimeInterval:
		if t.Kind == sqltypes.DayTimeInterval {
			us, ok := v.(int64)
			return us, ok
		}
	case sqltypes.YearMonthInterval:
		if t.Kind == sqltypes.YearMonthInterval {
			return int64(toInt(v)), true
		}
	}
	return nil, false
}

func numberAsFloat(v any, t sqltypes.DataType) (any, bool) {
	switch x := v.(type) {
	case sqltypes.Decimal128:
		return x.ToFloat64(t.Scale), true
	case int8, int16, int32, int64, int:
		return float64(toInt(x)), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return nil, false
}

// distinctWindow is Spark's error for DISTINCT in a window function.
func distinctWindow(sql string) *sparkerr.Error {
	return sparkerr.Analysis("DISTINCT_WINDOW_FUNCTION_UNSUPPORTED", "0A000",
		"Distinct window functions are not supported: %s.", sql).WithParams("windowExpr", sql)
}

// windowNotAllowed is Spark's error for a window function where none may be: in a named
// clause (WHERE) WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE, elsewhere (ORDER BY, GROUP BY, join
// conditions…) UNSUPPORTED_EXPR_FOR_OPERATOR.
func windowNotAllowed(w plan.Window, clause string) error {
	if clause != "" {
		return sparkerr.Analysis("WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE", "42601",
			"It is not allowed to use window functions inside %s clause.", clause).WithParams("clauseName", clause)
	}
	return sparkerr.Analysis("UNSUPPORTED_EXPR_FOR_OPERATOR", "42K0E",
		"A query operator contains one or more unsupported expressions. Consider to rewrite it to avoid window functions, aggregate functions, and generator functions in the WHERE clause. Invalid expressions: [%s]",
		planExprSQL(w)).WithParams("invalidExprSqls", planExprSQL(w))
}

// windowWithoutOver is Spark's error for a window-only function called without OVER.
func windowWithoutOver(c plan.Call) error {
	return sparkerr.Analysis("WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE", "42601",
		"Window function %s requires an OVER clause.", callSQL(c)).WithParams("funcName", callSQL(c))
}

// containsWindow reports whether e has a window expression.
func containsWindow(e plan.Expr) bool {
	found := false
	walkPlanExpr(e, func(x plan.Expr) bool {
		switch x.(type) {
		case plan.Window, *plan.Window:
			found = true
		}
		return !found
	})
	return found
}

// windowParts are the sub-expressions of a window expression an enclosing aggregation binds:
// the function's arguments and the specification's keys.
func windowParts(e plan.Expr) ([]plan.Expr, bool) {
	var w plan.Window
	switch x := e.(type) {
	case plan.Window:
		w = x
	case *plan.Window:
		w = *x
	default:
		return nil, false
	}
	var out []plan.Expr
	if c, ok := asCall(w.Func); ok {
		out = append(out, c.Args...)
	}
	out = append(out, w.PartitionBy...)
	for _, o := range w.OrderBy {
		out = append(out, o.Child)
	}
	return out, true
}

// rangeKeyType reports whether a RANGE frame with offsets may order by a key of type t.
func rangeKeyType(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Float, sqltypes.Double,
		sqltypes.Decimal, sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ,
		sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		return true
	}
	return false
}

// planFrameSQL renders an unresolved frame for error messages.
func planFrameSQL(f *plan.WindowFrame) string {
	bound := func(b *plan.FrameBound, lower bool) string {
		switch {
		case b == nil || b.Unbounded:
			if lower {
				return "UNBOUNDED PRECEDING"
			}
			return "UNBOUNDED FOLLOWING"
		case b.CurrentRow:
			return "CURRENT ROW"
		}
		if c, ok := asCall(b.Offset); ok && strings.EqualFold(c.Name, "negative") && len(c.Args) == 1 {
			return parser.FormatExpr(c.Args[0]) + " PRECEDING"
		}
		return parser.FormatExpr(b.Offset) + " FOLLOWING"
	}
	kind := "ROWS"
	if f.IsRange {
		kind = "RANGE"
	}
	return kind + " BETWEEN " + bound(f.Lower, true) + " AND " + bound(f.Upper, false)
}
