package interop

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/sqlgen"
)

// allStats reads every row of verdict_stats as sorted text, so that two
// scripts can be compared whole.
func allStats(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT run_id, metric_id, stat, coalesce(CAST(percentile AS VARCHAR), ''), CAST(value AS VARCHAR), source FROM verdict_stats")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b, c, d, e, f string
		var v sql.NullString
		if err := rows.Scan(&a, &b, &c, &d, &v, &f); err != nil {
			t.Fatal(err)
		}
		e = v.String
		out = append(out, fmt.Sprint(a, b, c, d, e, f))
	}
	slices.Sort(out)
	return out
}

var filesRead = regexp.MustCompile(`Total Files Read: (\d+)`)

// pointQuery runs a query for one run over a glob and returns its answer
// and how many files DuckDB read.
func pointQuery(t *testing.T, db *sql.DB, glob, run string) (string, int) {
	t.Helper()
	q := fmt.Sprintf(`SELECT count(*) || ' ' || sum(ttft_s) || ' ' || max(e2e_s) FROM read_parquet('%s', hive_partitioning = false) WHERE run_id = '%s'`, glob, run)
	var answer string
	queryRow(t, db, q, &answer)
	var plan, text string
	rows, err := db.Query("EXPLAIN ANALYZE " + q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		rows.Scan(&plan, &text)
	}
	rows.Close()
	m := filesRead.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no file count in the plan:\n%s", text)
	}
	n, _ := strconv.Atoi(m[1])
	return answer, n
}

// TestCompactedInDuckDB checks the compacted copy of the demo and corpus
// dataset on DuckDB: the SQL views over it give every number the views
// over the dataset give, and a query for one run reads one file instead
// of one per run, and one row group, which its statistics and bloom
// filter on run_id single out.
func TestCompactedInDuckDB(t *testing.T) {
	ds := sqlDataset(t)
	dest := filepath.Join(t.TempDir(), "compact")
	idx, err := schemas.Compact(context.Background(), ds, dest, schemas.CompactOptions{RowGroupRows: 256})
	if err != nil {
		t.Fatal(err)
	}
	o := sqlgen.Options{SLO: testSLO, HasSLO: true}
	o.Dataset = ds
	want := allStats(t, runScript(t, o))
	o.Dataset = dest
	db := runScript(t, o)
	got := allStats(t, db)
	if len(want) < 100 || !slices.Equal(got, want) {
		t.Errorf("verdict_stats over the compacted copy: %d rows, over the dataset %d, or they differ", len(got), len(want))
	}

	src, err := schemas.OpenBundle(ds)
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := src.Runs(context.Background())
	var run string
	var partitions int
	for _, r := range runs {
		if m, _ := filepath.Glob(filepath.Join(ds, "table=requests", "tool="+r.Tool, "run_id="+r.ID, "*.parquet")); len(m) > 0 {
			partitions++
			if run == "" || r.ID > run {
				run = r.ID // the last run in run_id order
			}
		}
	}
	a, fa := pointQuery(t, db, filepath.Join(ds, "table=requests", "**", "*.parquet"), run)
	b, fb := pointQuery(t, db, filepath.Join(dest, "table=requests", "**", "*.parquet"), run)
	if a != b || a == "0  " {
		t.Errorf("run %s: %q from the dataset, %q from the copy", run, a, b)
	}
	if fa != partitions || fb != 1 || len(idx.Tables[schemas.TableRequests].Files) != 1 {
		t.Errorf("the point query read %d files of the dataset (%d partitions) and %d of the copy", fa, partitions, fb)
	}
	// The row groups a reader must open for the run: those whose run_id
	// bounds include it.
	var groups, total int
	queryRow(t, db, fmt.Sprintf(`SELECT count(*) FILTER (stats_min_value <= '%s' AND stats_max_value >= '%s'), count(*)
		FROM parquet_metadata('%s') WHERE path_in_schema = 'run_id'`, run, run, filepath.Join(dest, "table=requests", "*.parquet")), &groups, &total)
	var blooms int
	queryRow(t, db, fmt.Sprintf(`SELECT count(*) FROM parquet_metadata('%s') WHERE path_in_schema = 'run_id' AND bloom_filter_length > 0`,
		filepath.Join(dest, "table=requests", "*.parquet")), &blooms)
	if groups != 1 || blooms != total {
		t.Errorf("run %s: %d of the copy's %d row groups may hold it; %d have a bloom filter", run, groups, total, blooms)
	}
	t.Logf("run %s: dataset %d files; copy 1 file, %d of %d row groups", run, fa, groups, total)
}
