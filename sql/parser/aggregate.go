package parser

// aggregateNames are the well-known aggregate functions. The parser cannot know function kinds,
// so a SELECT without GROUP BY becomes a global aggregate when its select list or HAVING
// calls one of these (outside window functions and subqueries).
var aggregateNames = map[string]bool{}

func init() {
	for _, n := range []string{
		"count", "sum", "avg", "mean", "min", "max", "count_if", "first", "last", "first_value",
		"last_value", "collect_list", "collect_set", "array_agg", "any_value", "bool_and",
		"bool_or", "every", "some", "any", "approx_count_distinct", "count_distinct",
		"percentile", "percentile_approx", "percentile_cont", "percentile_disc",
		"approx_percentile", "median", "mode", "max_by", "min_by", "product", "stddev",
		"stddev_pop", "stddev_samp", "std", "variance", "var_pop", "var_samp", "covar_pop",
		"covar_samp", "corr", "kurtosis", "skewness", "bit_and", "bit_or", "bit_xor",
		"regr_avgx", "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope",
		"regr_sxx", "regr_sxy", "regr_syy", "grouping", "grouping_id", "histogram_numeric",
		"listagg", "string_agg", "hll_sketch_agg", "hll_union_agg", "count_min_sketch",
		"try_sum", "try_avg", "bitmap_construct_agg", "bitmap_or_agg",
		"theta_sketch_agg", "theta_union_agg", "theta_intersection_agg",
		"kll_sketch_agg_bigint", "kll_sketch_agg_float", "kll_sketch_agg_double",
		"kll_merge_agg_bigint", "kll_merge_agg_float", "kll_merge_agg_double",
		"tuple_sketch_agg_double", "tuple_sketch_agg_integer", "tuple_union_agg_double",
		"tuple_union_agg_integer", "tuple_intersection_agg_double", "tuple_intersection_agg_integer",
		"measure",
	} {
		aggregateNames[n] = true
	}
}
