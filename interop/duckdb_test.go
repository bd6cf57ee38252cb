package interop

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/schemas"
)

const demo = "../testdata/demo/"

// fixture ingests the two demo platforms into bundles and exports both into
// a dataset.
func fixture(t *testing.T) (a, b, ds string) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	a, b, ds = filepath.Join(dir, "a.bundle"), filepath.Join(dir, "b.bundle"), filepath.Join(dir, "history")
	for _, x := range [][2]string{{a, "platform-a.json"}, {b, "platform-b.json"}} {
		if _, err := ingest.ToBundle(ctx, []string{demo + x[1]}, x[0], ingest.Options{Formats: all.Formats(),
			Labels: map[string]string{"platform": strings.TrimSuffix(strings.TrimPrefix(x[1], "platform-"), ".json")}}); err != nil {
			t.Fatal(err)
		}
		bb, err := schemas.OpenBundle(x[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schemas.Export(ctx, bb, ds, schemas.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, ds
}

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryRow(t *testing.T, db *sql.DB, q string, dst ...any) {
	t.Helper()
	if err := db.QueryRow(q).Scan(dst...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestBundleInDuckDB opens a bundle's Parquet files in DuckDB: row counts,
// column types, the metric-definition metadata and a percentile that must
// equal `verdict stats`.
func TestBundleInDuckDB(t *testing.T) {
	a, _, _ := fixture(t)
	db := open(t)
	req := filepath.Join(a, "requests.parquet")

	var n int64
	queryRow(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", req), &n)
	if n != 240 {
		t.Errorf("%d request rows, want 240", n)
	}
	queryRow(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", filepath.Join(a, "runs.parquet")), &n)
	if n != 1 {
		t.Errorf("%d runs", n)
	}

	types := map[string]string{}
	rows, err := db.Query(fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", req))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c, ty string
		rows.Scan(&c, &ty)
		types[c] = ty
	}
	rows.Close()
	for c, want := range map[string]string{"run_id": "VARCHAR", "index": "BIGINT", "ttft_s": "DOUBLE", "e2e_s": "DOUBLE",
		"output_tokens": "BIGINT", "chunk_gaps_s": "DOUBLE[]", "status": "VARCHAR"} {
		if types[c] != want {
			t.Errorf("column %s: %q, want %q", c, types[c], want)
		}
	}
	runTypes := map[string]string{}
	rows, _ = db.Query(fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", filepath.Join(a, "runs.parquet")))
	for rows.Next() {
		var c, ty string
		rows.Scan(&c, &ty)
		runTypes[c] = ty
	}
	rows.Close()
	for c, want := range map[string]string{"request_rate": "DOUBLE", "labels": "MAP(VARCHAR, VARCHAR)", "flags": "VARCHAR[]",
		"window_start": "TIMESTAMP WITH TIME ZONE", "streaming": "BOOLEAN"} {
		if runTypes[c] != want {
			t.Errorf("runs column %s: %q, want %q", c, runTypes[c], want)
		}
	}
	var platform string
	queryRow(t, db, fmt.Sprintf("SELECT labels['platform'] FROM read_parquet('%s')", filepath.Join(a, "runs.parquet")), &platform)
	if platform != "a" {
		t.Errorf("label platform %q", platform)
	}

	// The definitions are visible to the engine as key/value metadata.
	meta := map[string]string{}
	rows, err = db.Query(fmt.Sprintf("SELECT decode(key), decode(value) FROM parquet_kv_metadata('%s')", req))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		rows.Scan(&k, &v)
		meta[k] = v
	}
	rows.Close()
	for k, want := range map[string]string{"verdict.schema_version": "1", "verdict.table": "requests", "verdict.metric.ttft_s": "ttft",
		"verdict.metric.chunk_gaps_s": "itl_chunk", "verdict.metric.e2e_s": "e2e"} {
		if meta[k] != want {
			t.Errorf("kv metadata %s = %q, want %q", k, meta[k], want)
		}
	}
	if _, ok := meta["ARROW:schema"]; !ok {
		t.Error("the stored Arrow schema is missing")
	}

	// The same percentile job in both: DuckDB's quantile_cont is linear
	// interpolation, verdict's default method.
	var duck float64
	queryRow(t, db, fmt.Sprintf("SELECT quantile_cont(ttft_s, 0.99) FROM read_parquet('%s') WHERE status = 'ok' AND phase = 'profiling'", req), &duck)
	o := analysis.DefaultStats
	o.Metrics, o.Percentiles, o.Confidence = []schemas.MetricID{schemas.TTFT}, []float64{99}, 0
	res, err := analysis.ComputeStats(context.Background(), []string{a}, o)
	if err != nil {
		t.Fatal(err)
	}
	rs := res.Runs
	v := rs[0].Metrics[0].Quantiles[0].Value
	if math.Abs(v-duck) > 1e-12*math.Abs(duck) {
		t.Errorf("p99 TTFT: verdict %v, DuckDB %v", v, duck)
	}
	// Chunk gaps unnest to the pooled ITL.
	queryRow(t, db, fmt.Sprintf("SELECT quantile_cont(g, 0.5) FROM (SELECT unnest(chunk_gaps_s) AS g FROM read_parquet('%s') WHERE status = 'ok')", req), &duck)
	o.Metrics, o.Percentiles = []schemas.MetricID{schemas.ITLChunk}, []float64{50}
	res, _ = analysis.ComputeStats(context.Background(), []string{a}, o)
	rs = res.Runs
	if v := rs[0].Metrics[0].Quantiles[0].Value; math.Abs(v-duck) > 1e-12*math.Abs(duck) {
		t.Errorf("median ITL: verdict %v, DuckDB %v", v, duck)
	}
}

// TestDatasetInDuckDB reads the whole dataset with one glob and Hive
// partitioning.
func TestDatasetInDuckDB(t *testing.T) {
	_, _, ds := fixture(t)
	db := open(t)
	glob := func(table string) string {
		return fmt.Sprintf("read_parquet('%s', hive_partitioning = true)", filepath.Join(ds, "table="+table, "**", "*.parquet"))
	}
	var n, runs int64
	queryRow(t, db, "SELECT count(*), count(DISTINCT run_id) FROM "+glob("requests"), &n, &runs)
	if n != 480 || runs != 2 {
		t.Errorf("%d rows over %d runs, want 480 over 2", n, runs)
	}
	var tool string
	queryRow(t, db, "SELECT DISTINCT tool FROM "+glob("runs"), &tool)
	if tool != "vllm" {
		t.Errorf("tool partition %q", tool)
	}
	// Per-platform p99 TTFT from the dataset equals verdict stats on it.
	rows, err := db.Query(fmt.Sprintf(`SELECT r.labels['platform'], quantile_cont(q.ttft_s, 0.99)
		FROM %s q JOIN %s r USING (run_id) WHERE q.status = 'ok' GROUP BY 1 ORDER BY 1`, glob("requests"), glob("runs")))
	if err != nil {
		t.Fatal(err)
	}
	duck := map[string]float64{}
	for rows.Next() {
		var p string
		var v float64
		rows.Scan(&p, &v)
		duck[p] = v
	}
	rows.Close()
	o := analysis.DefaultStats
	o.Metrics, o.Percentiles, o.Confidence = []schemas.MetricID{schemas.TTFT}, []float64{99}, 0
	res, err := analysis.ComputeStats(context.Background(), []string{ds}, o)
	if err != nil {
		t.Fatal(err)
	}
	rs := res.Runs
	if len(rs) != 2 || len(duck) != 2 {
		t.Fatalf("verdict %d runs, DuckDB %d platforms", len(rs), len(duck))
	}
	for _, r := range rs {
		p := r.Run.Labels["platform"]
		if v := r.Metrics[0].Quantiles[0].Value; math.Abs(v-duck[p]) > 1e-12*duck[p] {
			t.Errorf("platform %s: verdict %v, DuckDB %v", p, v, duck[p])
		}
	}
}

// TestDatasetEscapingAndStaging checks, in DuckDB, what the dataset's
// crash safety and escaping rely on: DuckDB percent-decodes Hive partition
// values (a run ID with '/' and '%' comes back whole, and equal to the run
// ID inside the file), its ** glob does read dot- and underscore-prefixed
// directories and files below table=... (so verdict stages exports at the
// dataset's top level, outside every table= directory), and the README's
// per-table glob never reads the staging directory.
func TestDatasetEscapingAndStaging(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "a.bundle")
	if _, err := ingest.ToBundle(ctx, []string{demo + "platform-a.json"}, src, ingest.Options{Formats: all.Formats()}); err != nil {
		t.Fatal(err)
	}
	b, err := schemas.OpenBundle(src)
	if err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "history")
	if _, err := schemas.Export(ctx, b, ds, schemas.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	db := open(t)
	glob := func(table string) string {
		return fmt.Sprintf("read_parquet('%s', hive_partitioning = true)", filepath.Join(ds, "table="+table, "**", "*.parquet"))
	}
	var before int64
	queryRow(t, db, "SELECT count(*) FROM "+glob("requests"), &before)
	// A file where an interrupted export stages its partitions.
	part, _ := filepath.Glob(filepath.Join(ds, "table=requests", "*", "*", "part-0.parquet"))
	data, err := os.ReadFile(part[0])
	if err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(ds, ".staging-1", "table=requests", "tool=vllm", "run_id=zz", "part-0.parquet")
	os.MkdirAll(filepath.Dir(staged), 0o755)
	os.WriteFile(staged, data, 0o644)
	var after int64
	queryRow(t, db, "SELECT count(*) FROM "+glob("requests"), &after)
	if after != before {
		t.Errorf("the README's glob read the staging directory: %d rows, then %d", before, after)
	}
	// The same file in a hidden directory below table=requests is read.
	hidden := filepath.Join(ds, "table=requests", "tool=vllm", ".run_id=zz", "part-0.parquet")
	os.MkdirAll(filepath.Dir(hidden), 0o755)
	os.WriteFile(hidden, data, 0o644)
	var files int64
	queryRow(t, db, fmt.Sprintf("SELECT count(*) FROM glob('%s')", filepath.Join(ds, "table=requests", "**", "*.parquet")), &files)
	if files != 2 {
		t.Errorf("DuckDB's ** glob saw %d files with a hidden directory beside the partition, want 2 (it reads hidden paths)", files)
	}
	os.RemoveAll(filepath.Dir(hidden))

	// A run ID with '/', '%' and '=' is escaped in the path and decoded
	// by DuckDB to the ID stored in the file.
	var rows []schemas.Run
	rows, err = b.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	weird := "x/../y%41=z"
	w, err := schemas.CreateBundle(filepath.Join(dir, "weird.bundle"), schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	r.ID = weird
	w.AddRun(r)
	w.AddRequest(&schemas.Request{RunID: weird, Status: schemas.StatusOK, TTFTS: schemas.Some(0.25)})
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	wb, _ := schemas.OpenBundle(filepath.Join(dir, "weird.bundle"))
	ds2 := filepath.Join(dir, "weird-history")
	if _, err := schemas.Export(ctx, wb, ds2, schemas.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	var got, inFile string
	queryRow(t, db, fmt.Sprintf("SELECT run_id FROM read_parquet('%s', hive_partitioning = true)", filepath.Join(ds2, "table=requests", "**", "*.parquet")), &got)
	queryRow(t, db, fmt.Sprintf("SELECT run_id FROM read_parquet('%s', hive_partitioning = false)", filepath.Join(ds2, "table=requests", "**", "*.parquet")), &inFile)
	if got != weird || inFile != weird {
		t.Errorf("run ID from the partition %q, from the file %q, want %q", got, inFile, weird)
	}
}
