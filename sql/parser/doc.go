// Package parser is Weir's hand-written Spark SQL parser: a lexer, a recursive-descent parser for
// statements and queries, and a Pratt parser for expressions, following Spark's grammar
// (SqlBaseParser.g4) for the subset Weir supports. It produces package plan's unresolved
// relations, commands and expressions; it never resolves names or types.
//
// Entry points mirror Spark's ParserInterface: ParseStatement (spark.sql text; with bound
// :name / ? markers, ParseStatementWithParams), ParseExpression (selectExpr, expr(), filter
// strings), ParseDataType and ParseTableSchema (DDL type strings). FormatRelation, FormatExpr
// and FormatCommand render unresolved plans deterministically (tests, explain).
//
// Errors are *sparkerr.Error: syntax errors are ParseException PARSE_SYNTAX_ERROR ("Syntax
// error at or near 'FROM'." / "… near end of input."), with Spark's other parse-time classes
// where Spark raises them (INVALID_TYPED_LITERAL, INVALID_NUMERIC_LITERAL_RANGE,
// UNSUPPORTED_DATATYPE, …). Statements and clauses Weir does not support (INSERT, CREATE TABLE,
// NATURAL JOIN, LATERAL subqueries, PIVOT, TABLESAMPLE, …) are sparkerr.Unsupported, not syntax
// errors. No input panics: the entry points turn an unexpected panic into INTERNAL_ERROR, and
// nesting deeper than 1000 levels is a ParseException.
//
// Conventions of the plans produced (the analyzer relies on them):
//   - Operators are plan.Call with Spark's names: "+", "==" (= and ==), "!=" (<> and !=),
//     "<=>", "and", "or", "not" (NOT and !), "negative"/"positive" (unary -/+), "~", "&", "|",
//     "^", "div", "concat" (||), "<<"/">>"/">>>".
//   - x BETWEEN a AND b is between(x, a, b); NOT BETWEEN/IN/LIKE wrap in not(…) except
//     NOT IN (subquery), which is InSubquery{Not: true}. IS NULL is isnull, IS NOT NULL
//     isnotnull, IS [NOT] TRUE/FALSE is [not] <=>(x, true/false), IS UNKNOWN is isnull, IS
//     DISTINCT FROM is not(<=>), IS NOT DISTINCT FROM is <=>. LIKE … ESCAPE 'c' is like(x, p,
//     'c'); RLIKE and REGEXP are rlike.
//   - CASE WHEN c THEN v … [ELSE e] END is Call "when"(c1, v1, …, [e]); CASE x WHEN a THEN v
//     compares with ==(x, a). CAST and x::t are Cast{Mode: CastDefault}; TRY_CAST is CastTry.
//   - Spark's semi-structured extract v:a.b[0]['c d'] is variant_get(v, '$.a.b[0]['c d']')
//     aliased to the path's last key (unaliased without one); v:path::t casts the variant_get and
//     keeps the alias.
//   - count(*) is Call{"count", [Star{}]} (a bare star argument; Spark counts rows for it).
//     f(DISTINCT …) sets Distinct, FILTER (WHERE c) sets Filter; a named argument f(k => v)
//     (Spark's NamedArgumentExpression) sets ArgNames (the analyzer decides which functions
//     take them); IGNORE NULLS appends a true
//     literal for first/last/first_value/last_value/any_value. EXTRACT(f FROM x) is
//     extract('f', x); SUBSTRING(s FROM p FOR l) substring(s, p, l); TRIM(BOTH|LEADING|TRAILING
//     c FROM s) btrim/ltrim/rtrim(s, c); POSITION(a IN b) locate(a, b); bare CURRENT_DATE,
//     CURRENT_TIMESTAMP and CURRENT_USER are calls.
//   - (a, b) is Call "struct"(a, b) (a row constructor; (a, b) IN (subquery) compares both).
//   - a.b.c is one ColumnRef{Name: [a b c]} (the analyzer decides table/column/field);
//     postfixes on other expressions are ExtractValue (x[i], f(x).field with a string literal).
//   - Lambda parameters are bound in the body: x -> x.f + 1 has LambdaVar{x} and
//     ExtractValue(LambdaVar x, 'f').
//   - Numeric literals: integers are int if they fit, else bigint, else decimal(p,0); suffixes
//     L/S/Y give bigint/smallint/tinyint; 1.5 is decimal(2,1) (Java BigDecimal precision and
//     scale); an exponent (1e3) or D suffix gives double, F float, BD decimal. A minus sign
//     directly before a number is part of the literal (-2147483648 is an int).
//   - DATE '…' is an int32 days literal, TIMESTAMP_NTZ '…' int64 microseconds, INTERVAL …
//     day-time units an int64 microseconds literal of type interval <first> to <last> (year-
//     month units: int32 months). TIMESTAMP '…' with an explicit offset (Z, +08:00, UTC+1) is an
//     int64 UTC-microseconds literal; without one (or with a region id) it is
//     Cast('…' AS timestamp, CastANSI), which the analyzer evaluates in the session time zone.
//   - Window frame offsets are signed (n PRECEDING is negative(n), kept unfolded since Spark
//     names the bound "n PRECEDING"); UNBOUNDED bounds are FrameBound{Unbounded: true}; ROWS n
//     PRECEDING alone ends at CURRENT ROW. OVER name uses the query block's WINDOW clause.
//     f(…) IGNORE NULLS appends a true literal to first/last/first_value/last_value/any_value
//     and nth_value, and to lag/lead after filling in their offset (1) and default (NULL).
//   - ORDER BY 1 and GROUP BY 1 keep the integer literal: the analyzer treats integer literals
//     there as select-list positions, as Spark does. GROUP BY ALL is ColumnRef{[ALL]} exactly as
//     Spark's parser emits it (the analyzer treats a lone unresolvable "all" as group-by-all).
//
// SELECT blocks build, in Spark's order: FROM (comma joins are Join{Inner} without condition)
// → Filter(WHERE) → Aggregate (when there is GROUP BY or HAVING, or the select list calls a
// well-known aggregate function outside window functions; Aggs is the select list) →
// Filter(HAVING, above the Aggregate, to be resolved against it) or Project →
// Drop(Filter(QUALIFY)) (the QUALIFY condition's window functions become hidden select items
// __qualify_<i> the filter reads and the Drop removes) → Deduplicate (DISTINCT) → Sort(ORDER BY) → Offset → Limit; ORDER BY/LIMIT/OFFSET after a set operation
// apply to it. A SELECT without FROM is Project{Input: nil}; when a filter or aggregate needs
// an input there, the input is a one-row, zero-column Values{Rows: [[]]}. INTERSECT binds
// tighter than UNION and EXCEPT/MINUS. CTEs are inlined while parsing: a one-part table name
// that names a visible CTE becomes SubqueryAlias{Alias: name, ColumnNames: cte columns,
// Input: the CTE plan} (shared between references); inner WITH clauses shadow outer ones.
// VALUES … AS t(a, b) is SubqueryAlias{t, Values{Names: [a b]}}; range(…) in FROM is
// plan.Range. FROM … LATERAL VIEW [OUTER] gen(args) t AS c1, c2 is plan.Generate over the FROM
// relation (one per LATERAL VIEW, in order); a generator in FROM (FROM explode(array(1, 2)) AS
// t(v)) is plan.Generate{TableFunction: true} over one empty row; a lateral table function call
// (FROM t, LATERAL f(t.a) [AS] g[(c, …)]; t [INNER|CROSS] JOIN LATERAL f(a) [ON cond]; t LEFT
// [OUTER] JOIN LATERAL f(a)) is plan.Generate{TableFunction: true} over t, ON a Filter over it.
// LEFT JOIN LATERAL without ON is an inner one, as Spark 4.2 answers it; with ON, and LATERAL
// (subquery), are unsupported. A table function's arguments may be named (k => v) and TABLE
// arguments: TABLE (name) | TABLE (query) with [WITH SINGLE PARTITION | {PARTITION|DISTRIBUTE}
// BY e, …] [{ORDER|SORT} BY s, …] (lists optionally parenthesised) are plan.TableArgument;
// TABLE name without parentheses is Spark's
// INVALID_TABLE_FUNCTION_IDENTIFIER_ARGUMENT_MISSING_PARENTHESES.
//
// Size bounds: the parse recurses at most maxDepth levels; operator chains are loops, so an
// expression tree may be as deep as the text is long, and every expression is checked (with an
// explicit stack, before anything recurses over it) to be at most maxExprDepth (100 000) deep,
// and every statement to nest relations at most maxRelationDepth (10 000) deep. Beyond any of
// these the parse fails with Spark's ParseException FAILED_TO_PARSE_TOO_COMPLEX, so no input can
// make later recursive passes exhaust the stack.
package parser
