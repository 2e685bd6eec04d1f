// Package expr holds resolved, typed, executable expressions with Spark semantics, and the
// function registry the analyzer binds names against.
//
// An Expr evaluates column-at-a-time over a batch of user columns (an arrow.RecordBatch without
// the flow-event _marker/_retracted columns) and returns a new array of Type() with one value per
// row; the caller releases it. Column indexes are positions in that batch, i.e. in the logical
// schema of the expression's input.
//
// Aggregate functions (AggFunc) are separate: they are evaluated by the aggregate operator through
// GroupedAccumulator, which updates per-group state from argument arrays and can retract rows, so
// streaming update/complete output can be maintained from a changelog. A batch aggregate, which
// never retracts, asks for InsertOnly accumulators: min/max then keep only the best value and
// DISTINCT over one fixed-width argument dedups through a typed (group, value) hash set. A few
// aggregates keep only a running value and cannot retract (collect_frequent_items, vector_sum,
// vector_avg, bitmap_construct_agg, bitmap_or_agg, bitmap_and_agg, histogram_numeric, the theta,
// KLL, tuple and HLL sketch aggregates, approx_top_k and its accumulate/combine): Retract fails
// with an internal error, and Retracts tells a sliding window frame to recompute them. The sketches keep Apache
// DataSketches' binary layouts (sketch_theta.go, sketch_kll.go, sketch_tuple.go; HLL_8 in
// hll_*.go, agg_hll.go, funcs_hll.go; the frequent-items sketch of approx_top_k_accumulate in
// frequent_items_format.go), so Spark reads the sketches Weir writes and Weir reads Spark's.
//
// Errors are *sparkerr.Error: binding errors are AnalysisException (UNRESOLVED_ROUTINE,
// DATATYPE_MISMATCH.*, WRONG_NUM_ARGS…); run-time errors (ANSI casts, division by zero) carry
// Spark's runtime classes.
//
// Evaluation has two layers. Typed kernels (constant_fast.go, vector.go, decimal_fast.go,
// kernel_*.go) run over raw Arrow value slices and validity bitmaps: arithmetic (+ - * % pmod
// over TINYINT..BIGINT, also / over FLOAT/DOUBLE, + - * / over DECIMAL with 64-bit unscaled
// values when every intermediate fits 18 digits, + - * over 128-bit decimals, products past 38
// digits or rounded by up to 19 digits exact in 128 bits for operands that fit 64),
// comparisons (= <=> < <= > >= over integers, floats, dates, timestamps and decimals; = < <= >
// >= over UTF8_BINARY strings by bytes), casts (numeric, decimal to double and back, timestamp
// to date and back, string to integers/floats/date, integers to string; a CAST(integral AS
// DOUBLE) compared with or combined (+ - * % pmod) with a constant is converted inside that
// operator's loop, kernel_widen.go), unary minus, CASE/IF/COALESCE result assembly, AND/OR/NOT with
// three-valued logic on bitmaps (the right side of AND/OR is skipped when the left decides the
// whole batch), IS [NOT] NULL and isnan, IN over constants by typed hash sets (lists of any
// length; NOT IN keeps NULL semantics), string predicates (LIKE reduced to prefix / suffix /
// ordered substrings, startswith/endswith/contains, regex) read in place in the Arrow data
// buffer, substring and length, upper and lower over ASCII batches, date fields and date arithmetic, and hour/minute/second in the
// session zone. A constant operand (a literal, or a deterministic subtree without column
// references, including a function of fixed-width result over constants such as date
// '1994-01-01' + interval '1' year) is evaluated once per batch and broadcast. NULLs are the
// AND of the operands' bitmaps; values are computed for NULL rows too, and overflow or a zero
// divisor raised only by a NULL row is ignored. Everything else runs through the generic
// row-wise path (rowFunc, evalRows, castRows): each argument row is read as a Go value with
// ValueAt, the function computes one value, and BuildArray builds the output. The row-wise path
// is the kernels' oracle: kernel_*_test.go compare them on random data with NULLs and edge
// values, seeds printed. ValueAt and BuildArray follow the sqltypes Go value conventions and are
// exported for other packages (results, show()).
//
// Binding (Bind, BindAggregate, NewCast, BindExtractValue) applies Spark 4's implicit coercion:
// numeric widening, DecimalPrecision result types, string promotion in arithmetic and
// comparisons, date/timestamp coercion. Options.ANSI selects ANSI behaviour (errors on overflow,
// invalid casts and division by zero) or legacy behaviour (NULL). String() renders expressions
// like Spark's toPrettySQL, which the analyzer uses for auto-generated column names. Binding
// and rendering are linear in the size of the tree: binding never renders its operands (a
// rendering over them is kept as pieces, sqlText), and an expression renders itself and its
// children into one builder, so a chain of n operators costs O(n), not O(n²) per level.
// UpdateFields binds Column.withField / dropFields on one struct level (a chain of them is one
// update_fields, as Spark merges them; the analyzer expands dotted paths).
//
// value IN (list) over more than InSetThreshold constant values (after coercion) is a hash set
// lookup with Spark's In/InSet results (Spark's OptimizeIn); a shorter list keeps In's shape and
// is looked up in the same kind of set when its values are constants; otherwise the list is
// compared value by value.
//
// Generators (BindGenerator: explode, posexplode, inline, stack, json_tuple, variant_explode and
// the _outer forms; IsTableOnlyGenerator names those Spark calls only in FROM) are not Exprs: a Generator turns each input row into zero or more rows of its own
// columns, and the Generate operator repeats the input row beside them. Higher-order functions
// (BindHigherOrder) take bound lambdas whose LambdaVariables LambdaParams types.
//
// Functions whose result size comes from an argument (repeat, lpad/rpad, space, array_repeat,
// sequence, format_string widths, format_number digits, stack's row count, and the
// amplifying replace, regexp_replace, concat, concat_ws, array_join) compute that size before
// allocating anything, for every row of the batch, and fail with Spark's own limit where Spark
// has one (COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER past MaxRoundedArrayLength elements,
// java.lang.ArithmeticException where Spark's arithmetic overflows) or with SparkOutOfMemoryError
// UNABLE_TO_ACQUIRE_MEMORY when one value passes MaxRoundedArrayLength bytes, one batch's
// results pass 2^31-1 bytes (Arrow's 32-bit offsets), or either passes Context.MaxValueBytes
// (0: no bound beyond those).
//
// Compare, HashColumns and RowsEqual give Spark's ordering and grouping equality (NULL = NULL,
// NaN = NaN, -0.0 = 0.0) to sorts, group-bys, DISTINCT and hash joins.
//
// Rewriting (transform.go, the optimizer's tool): WithChildren rebuilds any bound expression over
// new children, Transform applies a function bottom-up, RemapColumns/ReplaceColumns move an
// expression onto another input, AggWithArgs and GeneratorWithArgs do the same for aggregate
// calls and generators. Rewritable says whether every node of an expression supports this (types
// defined elsewhere implement Rebuilder); IsDeterministic whether an expression may be moved or
// folded (not rand/randn/randstr/uniform/uuid nor the partition functions).
//
// Partitions (partition.go): Context.ForPartition gives an operator instance its partition's
// context. spark_partition_id() reads the index; the random functions draw from Spark's
// XORShiftRandom seeded with seed + partition index, and monotonically_increasing_id() counts
// rows per partition, as Spark's Nondeterministic expressions initialized per partition. Other
// contexts evaluate as partition 0.
//
// RangeTerms (range_terms.go) picks out of a filter the conjuncts a data source can test
// against a column's min/max and null count (column-vs-constant comparisons, IN, IS [NOT]
// NULL, through order-preserving casts), for Parquet row-group pruning.
package expr
