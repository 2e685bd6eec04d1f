package expr

import (
	"github.com/weirhq/weir/sql/collation"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// collations(): a table function listing Spark 4.2's collations (package collation's Rows),
// with Spark's columns; LANGUAGE, COUNTRY and ICU_VERSION are NULL where Spark's are.

func init() {
	generatorRegistry["collations"] = generatorBinder{0, 0, bindCollations}
	tableOnlyGenerators["collations"] = true
}

func bindCollations(_ string, args []Expr, _ Options) (*generator, error) {
	str := func(name string, nullable bool) sqltypes.Field {
		return sqltypes.Field{Name: name, Type: sqltypes.StringType, Nullable: nullable}
	}
	out := sqltypes.Schema{str("CATALOG", false), str("SCHEMA", false), str("NAME", false),
		str("LANGUAGE", true), str("COUNTRY", true), str("ACCENT_SENSITIVITY", false),
		str("CASE_SENSITIVITY", false), str("PAD_ATTRIBUTE", false), str("ICU_VERSION", true)}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return &generator{args: args, out: out, row: func(_ []any, emit func(...any)) {
		for _, r := range collation.Rows() {
			emit(r.Catalog, r.Schema, r.Name, orNull(r.Language), orNull(r.Country),
				r.AccentSensitivity, r.CaseSensitivity, r.PadAttribute, orNull(r.ICU))
		}
	}}, nil
}
