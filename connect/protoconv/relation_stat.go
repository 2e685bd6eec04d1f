package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// statCorr is df.stat.corr(col1, col2, method); the method defaults to "pearson".
func (t *translation) statCorr(c *pb.StatCorr) (plan.Relation, error) {
	in, err := t.input(c.GetInput(), "StatCorr")
	if err != nil {
		return nil, err
	}
	method := "pearson"
	if c.Method != nil {
		method = c.GetMethod()
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatCorr, Cols: []string{c.GetCol1(), c.GetCol2()}, Method: method}, nil
}

// statCov is df.stat.cov(col1, col2).
func (t *translation) statCov(c *pb.StatCov) (plan.Relation, error) {
	in, err := t.input(c.GetInput(), "StatCov")
	if err != nil {
		return nil, err
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatCov, Cols: []string{c.GetCol1(), c.GetCol2()}}, nil
}

// statApproxQuantile is df.stat.approxQuantile(cols, probabilities, relativeError).
func (t *translation) statApproxQuantile(q *pb.StatApproxQuantile) (plan.Relation, error) {
	in, err := t.input(q.GetInput(), "StatApproxQuantile")
	if err != nil {
		return nil, err
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatApproxQuantile, Cols: cloneStrings(q.GetCols()),
		Probabilities: append([]float64(nil), q.GetProbabilities()...), RelativeError: q.GetRelativeError()}, nil
}

// statDescribe is df.describe(*cols): df.summary's count, mean, stddev, min and max of cols
// (every column when none is named).
func (t *translation) statDescribe(d *pb.StatDescribe) (plan.Relation, error) {
	in, err := t.input(d.GetInput(), "StatDescribe")
	if err != nil {
		return nil, err
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatSummary, Cols: cloneStrings(d.GetCols()),
		Statistics: []string{"count", "mean", "stddev", "min", "max"}}, nil
}

// statSummary is df.summary(*statistics); none named: Spark's default eight.
func (t *translation) statSummary(s *pb.StatSummary) (plan.Relation, error) {
	in, err := t.input(s.GetInput(), "StatSummary")
	if err != nil {
		return nil, err
	}
	stats := cloneStrings(s.GetStatistics())
	if len(stats) == 0 {
		stats = []string{"count", "mean", "stddev", "min", "25%", "50%", "75%", "max"}
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatSummary, Statistics: stats}, nil
}

// statCrosstab is df.stat.crosstab(col1, col2).
func (t *translation) statCrosstab(c *pb.StatCrosstab) (plan.Relation, error) {
	in, err := t.input(c.GetInput(), "StatCrosstab")
	if err != nil {
		return nil, err
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatCrosstab, Cols: []string{c.GetCol1(), c.GetCol2()}}, nil
}

// statFreqItems is df.stat.freqItems(cols, support); the support defaults to 1%.
func (t *translation) statFreqItems(f *pb.StatFreqItems) (plan.Relation, error) {
	in, err := t.input(f.GetInput(), "StatFreqItems")
	if err != nil {
		return nil, err
	}
	support := 0.01
	if f.Support != nil {
		support = f.GetSupport()
	}
	return &plan.StatFunction{Input: in, Kind: plan.StatFreqItems, Cols: cloneStrings(f.GetCols()), Support: support}, nil
}

// statSampleBy is df.stat.sampleBy(col, fractions, seed): the seed, when the client sends none,
// is drawn here (PySpark always sends one).
func (t *translation) statSampleBy(s *pb.StatSampleBy) (plan.Relation, error) {
	in, err := t.input(s.GetInput(), "StatSampleBy")
	if err != nil {
		return nil, err
	}
	if s.GetCol() == nil {
		return nil, sparkerr.IllegalArgument("Invalid plan: StatSampleBy has no column")
	}
	col, err := t.expr(s.GetCol())
	if err != nil {
		return nil, err
	}
	out := &plan.StatFunction{Input: in, Kind: plan.StatSampleBy, SampleCol: col, Seed: s.GetSeed()}
	for _, f := range s.GetFractions() {
		if f.GetStratum() == nil {
			return nil, sparkerr.IllegalArgument("Invalid plan: a StatSampleBy fraction has no stratum")
		}
		lit, err := Literal(f.GetStratum())
		if err != nil {
			return nil, err
		}
		out.Fractions = append(out.Fractions, plan.StatFraction{Stratum: lit, Fraction: f.GetFraction()})
	}
	return out, nil
}
