package engine

import (
	"context"

	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
)

// Session is one Spark session's server-side state.
type Session struct {
	conf *Conf
}

// NewSession returns a session with default configuration.
func NewSession() *Session {
	return &Session{conf: NewConf()}
}

// Conf returns the session's configuration.
func (s *Session) Conf() *Conf { return s.conf }

// Analyze resolves rel into a logical plan (for schema, explain, isStreaming).
func (s *Session) Analyze(ctx context.Context, rel plan.Relation) (logical.Node, error) {
	return nil, sparkerr.Unsupported("engine: analyze not built yet")
}

// Execute runs rel and returns its rows.
func (s *Session) Execute(ctx context.Context, rel plan.Relation) (*Result, error) {
	return nil, sparkerr.Unsupported("engine: execute not built yet")
}

// RunCommand executes a command; commands that show something (SHOW TABLES, DESCRIBE, SET,
// EXPLAIN, a query) return their rows, others an empty result with an empty schema.
func (s *Session) RunCommand(ctx context.Context, cmd plan.Command) (*Result, error) {
	return nil, sparkerr.Unsupported("engine: commands not built yet")
}

// Explain renders rel's plan in a mode ("simple", "extended", "codegen", "cost", "formatted").
func (s *Session) Explain(ctx context.Context, rel plan.Relation, mode string) (string, error) {
	return "", sparkerr.Unsupported("engine: explain not built yet")
}
