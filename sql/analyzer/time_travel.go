package analyzer

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TimeTravelUnsupported is Spark's error for VERSION AS OF / TIMESTAMP AS OF on a relation
// that keeps no versions (a temp view, a file table), named as Spark names it.
func TimeTravelUnsupported(name []string) *sparkerr.Error {
	q := sparkerr.Quote(name...)
	return sparkerr.Analysis("UNSUPPORTED_FEATURE.TIME_TRAVEL", "0A000",
		"The feature is not supported: Time travel on the relation: %s.", q).WithParams("relationId", q)
}

// Spark's read options of time travel (spark.sql.timeTravelVersionKey / TimestampKey), the
// DataFrame spelling of VERSION AS OF / TIMESTAMP AS OF.
const (
	versionAsOfOption   = "versionasof"
	timestampAsOfOption = "timestampasof"
)

// timeTravelOf returns n with its time travel (the temporal clause, else the versionAsOf /
// timestampAsOf options) evaluated, as Spark's TimeTravelSpec: a timestamp is a deterministic
// constant cast to TIMESTAMP in the session time zone, given to the catalog as a TIMESTAMP
// literal (microseconds since the epoch).
func (a *Analyzer) timeTravelOf(n *plan.NamedTable) (*plan.NamedTable, error) {
	tt := n.TimeTravel
	if tt == nil {
		var version, ts string
		var hasVersion, hasTS bool
		for k, v := range n.Options {
			switch strings.ToLower(k) {
			case versionAsOfOption:
				version, hasVersion = v, true
			case timestampAsOfOption:
				ts, hasTS = v, true
			}
		}
		switch {
		case hasVersion && hasTS:
			return nil, sparkerr.Analysis("INVALID_TIME_TRAVEL_SPEC", "42K0E",
				"Cannot specify both version and timestamp when time travelling the table.")
		case hasVersion:
			tt = &plan.TimeTravel{Version: version}
		case hasTS:
			var v any
			c, err := expr.NewCast(expr.NewLiteral(ts, sqltypes.StringType), sqltypes.TimestampType, plan.CastTry, a.Options)
			if err == nil {
				v, err = a.evalConst(c)
			}
			if err != nil || v == nil {
				shown := "'" + ts + "'"
				return nil, sparkerr.Analysis("INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.OPTION", "42K0E",
					"The time travel timestamp expression %s is invalid. Timestamp string in the options must be able to cast to TIMESTAMP type.",
					shown).WithParams("expr", shown)
			}
			tt = &plan.TimeTravel{Timestamp: plan.Literal{Value: v, Type: sqltypes.TimestampType}}
		default:
			return n, nil
		}
	} else if tt.Timestamp != nil {
		if lit, ok := tt.Timestamp.(plan.Literal); !ok || !lit.Type.Equal(sqltypes.TimestampType) {
			v, err := a.evalTimestamp(tt.Timestamp)
			if err != nil {
				return nil, err
			}
			tt = &plan.TimeTravel{Timestamp: plan.Literal{Value: v, Type: sqltypes.TimestampType}}
		}
	}
	out := *n
	out.TimeTravel = tt
	return &out, nil
}

// evalTimestamp evaluates TIMESTAMP AS OF's expression (microseconds since the epoch).
func (a *Analyzer) evalTimestamp(ts plan.Expr) (any, error) {
	b := a.binderOver(newResolved(&logical.LocalData{Out: sqltypes.Schema{}}))
	e, err := b.bind(ts)
	if err != nil {
		return nil, err
	}
	shown := `"` + e.String() + `"`
	if !expr.IsDeterministic(e) {
		return nil, sparkerr.Analysis("INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.NON_DETERMINISTIC", "42K0E",
			"The time travel timestamp expression %s is invalid. Must be deterministic.", shown).WithParams("expr", shown)
	}
	c, err := expr.NewCast(e, sqltypes.TimestampType, plan.CastTry, a.Options)
	var v any
	if err == nil {
		// current_timestamp() and friends are the time of the analysis.
		ctx := &expr.Context{Mem: memory.DefaultAllocator, ANSI: a.Options.ANSI, Now: time.Now().UnixMicro()}
		if loc, lerr := time.LoadLocation(a.Options.TimeZone); lerr == nil && a.Options.TimeZone != "" {
			ctx.Location = loc
		}
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		defer one.Release()
		var arr arrow.Array
		if arr, err = c.Eval(ctx, one); err == nil {
			v = expr.ValueAt(arr, 0, c.Type())
			arr.Release()
		}
	}
	if err != nil || v == nil {
		return nil, sparkerr.Analysis("INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT", "42K0E",
			`The time travel timestamp expression %s is invalid. Cannot be casted to the "TIMESTAMP" type.`, shown).
			WithParams("expr", shown)
	}
	return v, nil
}
