package expr

import (
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Functions of the session and the server: current_user() (and its aliases user(),
// session_user()) is the session's user id (the Spark Connect UserContext's, Options.User);
// version() is Options.Version. Both are constants of the statement, as in Spark.

func init() {
	registerScalar(0, 0, bindCurrentUser, "current_user", "user", "session_user")
	registerScalar(0, 0, bindVersion, "version")
}

func bindCurrentUser(name string, args []Expr, opts Options) (Expr, error) {
	return &renamed{Expr: NewLiteral(opts.User, sqltypes.StringType), name: name + "()"}, nil
}

func bindVersion(name string, args []Expr, opts Options) (Expr, error) {
	return &renamed{Expr: NewLiteral(opts.Version, sqltypes.StringType), name: "version()"}, nil
}
