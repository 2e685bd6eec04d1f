package logical

import (
	"fmt"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Join joins Left and Right. Equi-join keys (LeftKeys[i] = RightKeys[i], evaluated over the
// respective side) drive a hash join; Residual (over the concatenated left++right schema) is
// checked on candidate pairs; no keys and no residual is a cross join. Out is the output
// schema: left++right columns for inner/outer/cross (outer sides nullable), left only for
// semi/anti. USING/natural joins are a Project above.
type Join struct {
	Left, Right         Node
	Type                plan.JoinType
	LeftKeys, RightKeys []expr.Expr
	Residual            expr.Expr
	Out                 sqltypes.Schema
	// LeftHint and RightHint are the join strategies hinted for each side ("broadcast",
	// "merge", "shuffle_hash", "shuffle_replicate_nl"; "" for none): the optimizer moves a
	// ResolvedHint over a side into them, as Spark's EliminateResolvedHint does.
	LeftHint, RightHint string
	// BroadcastRight is the optimizer's choice (estimated size under
	// spark.sql.autoBroadcastJoinThreshold) to build the right side in every partition of the
	// left instead of hash-partitioning both: Spark's BroadcastHashJoin without a hint.
	BroadcastRight bool
	// BuildLeft is the optimizer's choice to build a batch LEFT SEMI / LEFT ANTI join's hash
	// table over its left side (estimated much smaller than the right) and stream the right
	// side past it, marking the left rows it matches (Spark's BuildLeft for a semi join).
	BuildLeft bool
}

// Schema implements Node.
func (j *Join) Schema() sqltypes.Schema { return j.Out }

// Children implements Node.
func (j *Join) Children() []Node { return []Node{j.Left, j.Right} }

// Describe implements Node.
func (j *Join) Describe() string {
	names := []string{"Inner", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti", "Cross"}
	cond := ""
	for i := range j.LeftKeys {
		if i > 0 {
			cond += " AND "
		}
		cond += fmt.Sprintf("(%s = %s)", j.LeftKeys[i], j.RightKeys[i])
	}
	if j.Residual != nil {
		if cond != "" {
			cond += " AND "
		}
		cond += j.Residual.String()
	}
	out := "Join " + names[j.Type]
	if cond != "" {
		out += ", " + cond
	}
	if j.LeftHint != "" {
		out += ", leftHint=(strategy=" + j.LeftHint + ")"
	}
	if j.RightHint != "" {
		out += ", rightHint=(strategy=" + j.RightHint + ")"
	}
	if j.BuildLeft {
		out += ", BuildLeft"
	}
	return out
}

// ResolvedHint marks its input with a join strategy hint (df.hint("broadcast"), SELECT /*+
// BROADCAST(t) */): the optimizer moves it into the join above (Join.LeftHint/RightHint) and
// drops the ones no join takes, as Spark does.
type ResolvedHint struct {
	Input    Node
	Strategy string
}

// Schema implements Node.
func (h *ResolvedHint) Schema() sqltypes.Schema { return h.Input.Schema() }

// Children implements Node.
func (h *ResolvedHint) Children() []Node { return []Node{h.Input} }

// Describe implements Node.
func (h *ResolvedHint) Describe() string { return "ResolvedHint (strategy=" + h.Strategy + ")" }

// Union concatenates inputs with identical column types (the analyzer inserts casts); the
// output takes the first input's names.
type Union struct {
	Inputs []Node
	Out    sqltypes.Schema
}

// Schema implements Node.
func (u *Union) Schema() sqltypes.Schema { return u.Out }

// Children implements Node.
func (u *Union) Children() []Node { return u.Inputs }

// Describe implements Node.
func (u *Union) Describe() string { return "Union" }

// Distinct keeps the first row per distinct value of the Keys columns (all columns when Keys is
// nil): distinct() and dropDuplicates(cols).
type Distinct struct {
	Input Node
	Keys  []int
	// WithinWatermark is dropDuplicatesWithinWatermark: on a stream, a key is deduplicated
	// until the watermark passes its first occurrence's event time plus the watermark delay.
	// A batch plan ignores it.
	WithinWatermark bool
}

// Schema implements Node.
func (d *Distinct) Schema() sqltypes.Schema { return d.Input.Schema() }

// Children implements Node.
func (d *Distinct) Children() []Node { return []Node{d.Input} }

// Describe implements Node.
func (d *Distinct) Describe() string { return fmt.Sprintf("Deduplicate %v", d.Keys) }

// SetOp is INTERSECT or EXCEPT (with or without ALL) over inputs of equal column types.
type SetOp struct {
	Left, Right Node
	Type        plan.SetOpType // Intersect or Except
	All         bool
}

// Schema implements Node.
func (s *SetOp) Schema() sqltypes.Schema { return s.Left.Schema() }

// Children implements Node.
func (s *SetOp) Children() []Node { return []Node{s.Left, s.Right} }

// Describe implements Node.
func (s *SetOp) Describe() string {
	n := map[plan.SetOpType]string{plan.Intersect: "Intersect", plan.Except: "Except"}[s.Type]
	if s.All {
		n += " All"
	}
	return n
}

// Sample keeps each row with probability (Upper-Lower), deterministically from Seed.
type Sample struct {
	Input           Node
	Lower, Upper    float64
	WithReplacement bool
	Seed            int64
}

// Schema implements Node.
func (s *Sample) Schema() sqltypes.Schema { return s.Input.Schema() }

// Children implements Node.
func (s *Sample) Children() []Node { return []Node{s.Input} }

// Describe implements Node.
func (s *Sample) Describe() string {
	return fmt.Sprintf("Sample %v, %v, %t, %d", s.Lower, s.Upper, s.WithReplacement, s.Seed)
}

// Repartition redistributes rows into Partitions partitions (by hash of Keys, or round-robin).
type Repartition struct {
	Input      Node
	Partitions int
	Keys       []expr.Expr
}

// Schema implements Node.
func (r *Repartition) Schema() sqltypes.Schema { return r.Input.Schema() }

// Children implements Node.
func (r *Repartition) Children() []Node { return []Node{r.Input} }

// Describe implements Node.
func (r *Repartition) Describe() string { return fmt.Sprintf("Repartition %d", r.Partitions) }
