package expr

import (
	_ "embed"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// sql_keywords(): a table function listing Spark 4.2's SQL keywords (keyword, reserved), in
// Spark's order; a keyword is reserved only under spark.sql.ansi.enforceReservedKeywords
// (Options.EnforceReservedKeywords), as Spark's SqlKeywordUtils reports them. The list is the
// one Spark 4.2.0 returns (data/sql_keywords.tsv).

//go:embed data/sql_keywords.tsv
var sqlKeywordsTSV string

type sqlKeyword struct {
	word     string
	reserved bool
}

var sqlKeywords = func() []sqlKeyword {
	var out []sqlKeyword
	for _, line := range strings.Split(sqlKeywordsTSV, "\n") {
		word, reserved, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, sqlKeyword{word: word, reserved: reserved == "true"})
	}
	return out
}()

func init() {
	generatorRegistry["sql_keywords"] = generatorBinder{0, 0, bindSQLKeywords}
	tableOnlyGenerators["sql_keywords"] = true
}

func bindSQLKeywords(_ string, args []Expr, opts Options) (*generator, error) {
	out := sqltypes.Schema{
		{Name: "keyword", Type: sqltypes.StringType},
		{Name: "reserved", Type: sqltypes.BooleanType},
	}
	enforce := opts.EnforceReservedKeywords
	return &generator{args: args, out: out, row: func(_ []any, emit func(...any)) {
		for _, k := range sqlKeywords {
			emit(k.word, enforce && k.reserved)
		}
	}}, nil
}
