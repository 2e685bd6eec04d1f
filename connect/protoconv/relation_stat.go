package protoconv

import (
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
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
