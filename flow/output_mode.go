package flow

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// OutputMode is a streaming query's output mode: how its sink reads the changelog of inserts and
// retractions that flows into it (append: every row is an insert; update: the inserts are the
// changed rows; complete: the sink applies the changelog to the whole result table). The planner
// checks a plan against it, query start validates it and sinks apply it; it is defined here, the
// one package all three share.
type OutputMode string

// Output modes.
const (
	OutputAppend   OutputMode = "append"
	OutputUpdate   OutputMode = "update"
	OutputComplete OutputMode = "complete"
)

// ParseOutputMode parses a user's output mode ("" is append), case-insensitively.
func ParseOutputMode(s string) (OutputMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "append":
		return OutputAppend, nil
	case "update":
		return OutputUpdate, nil
	case "complete":
		return OutputComplete, nil
	}
	return "", sparkerr.IllegalArgument("Unknown output mode %s. Accepted output modes are 'append', 'complete', 'update'", s)
}
