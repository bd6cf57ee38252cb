package sqlgen

import (
	"fmt"
	"strings"
)

// A Dialect is an SQL engine the script is written for.
type Dialect string

// The dialects. Only DuckDB's script is run in CI (by the interop
// module); Spark's and Trino's are checked as golden files and against
// the documented list of functions they use (Functions).
const (
	DuckDB Dialect = "duckdb"
	Spark  Dialect = "spark"
	Trino  Dialect = "trino"
)

// Dialects lists the dialects in the order the help gives them.
var Dialects = []Dialect{DuckDB, Spark, Trino}

// ParseDialect returns the dialect named s.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if string(d) == strings.ToLower(s) {
			return d, nil
		}
	}
	return "", fmt.Errorf("dialect %q: use duckdb, spark or trino", s)
}

// The few constructs that differ between the engines. Everything else the
// script uses (CAST, CASE, floor, count, avg, stddev_pop, CROSS JOIN,
// VALUES, UNION ALL) is written the same way in all three.

// ident quotes an identifier that is a keyword in some engine ("index").
func (d Dialect) ident(name string) string {
	if d == Spark {
		return "`" + name + "`"
	}
	return `"` + name + `"`
}

// view names an object the script creates.
func (d Dialect) view(o *Options, name string) string {
	if d == Trino {
		return o.TrinoSchema + "." + name
	}
	return name
}

// createView starts a view definition.
func (d Dialect) createView(o *Options, name string) string {
	if d == Spark {
		return "CREATE OR REPLACE TEMPORARY VIEW " + name + " AS"
	}
	return "CREATE OR REPLACE VIEW " + d.view(o, name) + " AS"
}

// element is the i-th (1-based) element of a list.
func (d Dialect) element(list, i string) string {
	if d == DuckDB {
		return "list_extract(" + list + ", " + i + ")"
	}
	return "element_at(" + list + ", " + i + ")"
}

// length is the number of elements of a list.
func (d Dialect) length(list string) string {
	switch d {
	case DuckDB:
		return "len(" + list + ")"
	case Spark:
		return "size(" + list + ")"
	}
	return "cardinality(" + list + ")"
}

// listMax is the largest element of a list (NULL for an empty one).
func (d Dialect) listMax(list string) string {
	if d == DuckDB {
		return "list_max(" + list + ")"
	}
	return "array_max(" + list + ")"
}

// strings is a literal list of strings.
func (d Dialect) strings(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = d.literal(v)
	}
	switch d {
	case DuckDB:
		return "[" + strings.Join(q, ", ") + "]"
	case Spark:
		return "array(" + strings.Join(q, ", ") + ")"
	}
	return "ARRAY[" + strings.Join(q, ", ") + "]"
}

// overlaps is true when the two lists share an element (NULL when either
// is NULL).
func (d Dialect) overlaps(list string, values []string) string {
	if d == DuckDB {
		return "list_has_any(" + list + ", " + d.strings(values) + ")"
	}
	return "arrays_overlap(" + list + ", " + d.strings(values) + ")"
}

// intersect is the sorted list of the elements of list among values.
func (d Dialect) intersect(list string, values []string) string {
	switch d {
	case DuckDB:
		return "list_sort(list_intersect(" + list + ", " + d.strings(values) + "))"
	}
	return "array_sort(array_intersect(" + list + ", " + d.strings(values) + "))"
}

// emptyStrings is an empty list of strings.
func (d Dialect) emptyStrings() string {
	switch d {
	case DuckDB:
		return "CAST([] AS VARCHAR[])"
	case Spark:
		return "CAST(array() AS ARRAY<STRING>)"
	}
	return "CAST(ARRAY[] AS ARRAY(VARCHAR))"
}

// sortedList aggregates a column into an ascending list. DuckDB's
// ordered aggregate uses its sort engine and is about twice as fast as
// list_sort over list (measured on 10 million rows); Spark's collect_list
// takes no ORDER BY.
func (d Dialect) sortedList(col string) string {
	switch d {
	case DuckDB:
		return "list(" + col + " ORDER BY " + col + ")"
	case Spark:
		return "sort_array(collect_list(" + col + "))"
	}
	return "array_agg(" + col + " ORDER BY " + col + ")"
}

// countedList aggregates the columns value and c (its count) into a list
// of (value, c) ordered by value.
func (d Dialect) countedList() string {
	switch d {
	case DuckDB:
		return "list({'value': value, 'c': c} ORDER BY value)"
	case Spark:
		return "sort_array(collect_list(named_struct('value', value, 'c', c)))"
	}
	return "array_agg(CAST(ROW(value, c) AS ROW(value DOUBLE, c BIGINT)) ORDER BY value)"
}

// cumulativeFold folds a countedList in order: the first value at which
// the float64 running sum of c/n reaches p, or NULL. The lambda reads
// only its state and element: n and p travel in the state, because
// DuckDB 1.5.6's list_reduce gave other rows' answers when its lambda
// read columns of the row (seen on the interop dataset; a filter on one
// run hid it).
func (d Dialect) cumulativeFold(list, n, p string) string {
	step := "acc.cum + CAST(e.c AS DOUBLE) / acc.n"
	switch d {
	case DuckDB:
		return "list_reduce(" + list + ", lambda acc, e: CASE WHEN acc.v IS NOT NULL THEN acc ELSE {'cum': " + step +
			", 'v': CASE WHEN " + step + " >= acc.p THEN e.value END, 'n': acc.n, 'p': acc.p} END, {'cum': CAST(0 AS DOUBLE), 'v': CAST(NULL AS DOUBLE), 'n': CAST(" + n + " AS DOUBLE), 'p': " + p + "}).v"
	case Spark:
		return "aggregate(" + list + ", named_struct('cum', CAST(0 AS DOUBLE), 'v', CAST(NULL AS DOUBLE), 'n', CAST(" + n + " AS DOUBLE), 'p', " + p +
			"), (acc, e) -> CASE WHEN acc.v IS NOT NULL THEN acc ELSE named_struct('cum', " + step +
			", 'v', CASE WHEN " + step + " >= acc.p THEN e.value END, 'n', acc.n, 'p', acc.p) END).v"
	}
	const state = "ROW(cum DOUBLE, v DOUBLE, n DOUBLE, p DOUBLE)"
	return "reduce(" + list + ", CAST(ROW(0, NULL, " + n + ", " + p + ") AS " + state + "), (acc, e) -> CASE WHEN acc.v IS NOT NULL THEN acc ELSE CAST(ROW(" + step +
		", CASE WHEN " + step + " >= acc.p THEN e.value END, acc.n, acc.p) AS " + state + ") END, acc -> acc.v)"
}

// mean is the aggregate mean of a double column. DuckDB's favg sums with
// Kahan's compensation, so its mean is within an ulp or two of the exact
// one, as verdict's pairwise sum is; Spark's and Trino's avg add in plain
// order.
func (d Dialect) mean(col string) string {
	if d == DuckDB {
		return "favg(" + col + ")"
	}
	return "avg(" + col + ")"
}

// unnest joins one row per element of a list column: the element is
// alias.value.
func (d Dialect) unnest(list, alias string) string {
	if d == Spark {
		return "LATERAL VIEW explode(" + list + ") " + alias + " AS value"
	}
	return "CROSS JOIN UNNEST(" + list + ") AS " + alias + "(value)"
}

// literal quotes a string literal. DuckDB and Trino follow the SQL
// standard (a quote is doubled, a backslash is itself); Spark reads
// backslash escapes in literals and takes ” as two adjacent literals, so
// it gets \\ and \'.
func (d Dialect) literal(s string) string {
	if d == Spark {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
