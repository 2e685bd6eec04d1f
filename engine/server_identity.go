package engine

import (
	"os"
	"os/user"
	"runtime/debug"
	"sync"
)

// What version() and current_user() report about the server.

// DefaultSparkVersion is the Spark version a session reports unless WithSparkVersion says
// otherwise: the release whose behaviour Weir follows.
const DefaultSparkVersion = "4.1.0"

// serverRevision is the second word of version(): where Spark gives the git revision it was
// built from, Weir gives its own (the VCS revision Go stamped into the binary, with "-dirty"
// for a modified tree), or "unknown" in a build without VCS information (tests, go run).
var serverRevision = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
})

// sessionUser is what current_user() returns: the client's user id (Spark Connect's
// UserContext.user_id; PySpark sends $SPARK_USER or $USER), else, as Spark's
// Utils.getCurrentUserName, the server's $SPARK_USER or the user the server runs as. (Spark 4.2's
// own Connect server always answers the latter.)
func (s *Session) sessionUser() string {
	if s.user != "" {
		return s.user
	}
	return processUser()
}

var processUser = sync.OnceValue(func() string {
	if u := os.Getenv("SPARK_USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
})
