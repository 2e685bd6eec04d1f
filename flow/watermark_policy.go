package flow

import (
	"context"

	"github.com/weirhq/weir/barrier"
)

type watermarkPolicyKey struct{}

// WithWatermarkPolicy makes the jobs started with ctx combine the watermarks of several
// watermarked inputs by p (spark.sql.streaming.multipleWatermarkPolicy; default
// barrier.PolicyMin).
func WithWatermarkPolicy(ctx context.Context, p barrier.Policy) context.Context {
	return context.WithValue(ctx, watermarkPolicyKey{}, p)
}

// watermarkPolicyFrom returns ctx's watermark policy.
func watermarkPolicyFrom(ctx context.Context) barrier.Policy {
	p, _ := ctx.Value(watermarkPolicyKey{}).(barrier.Policy)
	return p
}
