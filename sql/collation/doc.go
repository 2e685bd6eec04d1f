// Package collation holds Spark 4's string collations: their names (UTF8_BINARY, UTF8_LCASE,
// UNICODE and the ICU locales, with the _CI/_CS, _AI/_AS and _RTRIM modifiers), the
// collations() listing, and their semantics as comparison and sort keys.
//
// A collation is named by its canonical name, which sqltypes.DataType.StringCollation carries
// ("" is UTF8_BINARY). UTF8_BINARY compares bytes; UTF8_LCASE compares the lowercased strings
// by bytes; UNICODE and the locales compare by the Unicode Collation Algorithm with CLDR's
// tailorings (golang.org/x/text/collate): _CI ignores case, _AI ignores accents. _RTRIM drops
// trailing spaces before comparing. Key returns a byte string whose byte order is the
// collation's order and whose byte equality is the collation's equality, so grouping, joins,
// distinct and sorts work on keys.
//
// locales.tsv is the ICU locale list of Spark 4.2's collations() (ICU 78.3): name, language,
// country; Spark's listing is every locale with each combination of the modifiers.
package collation
