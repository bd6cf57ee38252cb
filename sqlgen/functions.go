package sqlgen

// A Function is one function (or table function, or procedure) a
// dialect's script calls, with the engine's documentation of it.
type Function struct {
	Name string
	Doc  string
}

const (
	duckList   = "https://duckdb.org/docs/stable/sql/functions/list"
	duckAgg    = "https://duckdb.org/docs/stable/sql/functions/aggregates"
	duckNum    = "https://duckdb.org/docs/stable/sql/functions/numeric"
	sparkFn    = "https://spark.apache.org/docs/latest/api/sql/index.html#"
	trinoArray = "https://trino.io/docs/current/functions/array.html#"
	trinoAgg   = "https://trino.io/docs/current/functions/aggregate.html#"
	trinoMath  = "https://trino.io/docs/current/functions/math.html#"
)

// Functions lists, per dialect, every function the generated script
// calls (CAST, CASE, UNNEST and VALUES are syntax, not functions, and are
// left out). TestFunctionsDocumented checks each script against its list:
// a function the generator starts to use must be added here, with the
// page that says the engine has it and what it does. Only DuckDB's list
// is exercised by a real engine (the interop module); Spark's and Trino's
// were checked against the engines' documentation.
var Functions = map[Dialect][]Function{
	DuckDB: {
		{"read_parquet", "https://duckdb.org/docs/stable/data/parquet/overview"},
		{"coalesce", "https://duckdb.org/docs/stable/sql/functions/utility"},
		{"count", duckAgg},
		{"favg", duckAgg}, // mean with Kahan summation
		{"list", duckAgg}, // list aggregate, with ORDER BY
		{"sum", duckAgg},
		{"max", duckAgg},
		{"floor", duckNum},
		{"least", duckNum},
		{"sqrt", duckNum},
		{"len", duckList},
		{"list_extract", duckList}, // 1-based
		{"list_has_any", duckList},
		{"list_intersect", duckList},
		{"list_max", duckList},
		{"list_sort", duckList},
		{"list_reduce", "https://duckdb.org/docs/stable/sql/functions/lambda"}, // with an initial value
	},
	Spark: {
		{"coalesce", sparkFn + "coalesce"},
		{"count", sparkFn + "count"},
		{"avg", sparkFn + "avg"},
		{"sum", sparkFn + "sum"},
		{"max", sparkFn + "max"},
		{"collect_list", sparkFn + "collect_list"},
		{"floor", sparkFn + "floor"},
		{"least", sparkFn + "least"},
		{"sqrt", sparkFn + "sqrt"},
		{"array", sparkFn + "array"},
		{"named_struct", sparkFn + "named_struct"},
		{"size", sparkFn + "size"},
		{"element_at", sparkFn + "element_at"}, // 1-based
		{"arrays_overlap", sparkFn + "arrays_overlap"},
		{"array_intersect", sparkFn + "array_intersect"},
		{"array_max", sparkFn + "array_max"},
		{"array_sort", sparkFn + "array_sort"},
		{"sort_array", sparkFn + "sort_array"},
		{"explode", sparkFn + "explode"}, // in LATERAL VIEW
		{"aggregate", sparkFn + "aggregate"},
	},
	Trino: {
		{"sync_partition_metadata", "https://trino.io/docs/current/connector/hive.html#procedures"},
		{"coalesce", "https://trino.io/docs/current/functions/conditional.html#coalesce"},
		{"least", "https://trino.io/docs/current/functions/comparison.html#least"},
		{"count", trinoAgg + "count"},
		{"avg", trinoAgg + "avg"},
		{"sum", trinoAgg + "sum"},
		{"max", trinoAgg + "max"},
		{"array_agg", trinoAgg + "array_agg"}, // with ORDER BY
		{"floor", trinoMath + "floor"},
		{"sqrt", trinoMath + "sqrt"},
		{"cardinality", trinoArray + "cardinality"},
		{"element_at", trinoArray + "element_at"}, // 1-based
		{"arrays_overlap", trinoArray + "arrays_overlap"},
		{"array_intersect", trinoArray + "array_intersect"},
		{"array_max", trinoArray + "array_max"},
		{"array_sort", trinoArray + "array_sort"},
		{"reduce", trinoArray + "reduce"},
	},
}
