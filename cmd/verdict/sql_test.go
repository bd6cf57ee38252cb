package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQL writes the script for a dataset of the demo bundle in each
// dialect; DuckDB runs it in the interop module.
func TestSQL(t *testing.T) {
	dir := t.TempDir()
	bundle, ds := filepath.Join(dir, "a.bundle"), filepath.Join(dir, "history")
	if code, _, errs := runCLI(t, "ingest", "-o", bundle, demo+"platform-a.json"); code != 0 {
		t.Fatalf("ingest: %s", errs)
	}
	if code, _, errs := runCLI(t, "export", "--dataset", ds, bundle); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--dataset", ds}, []string{"read_parquet('" + ds + "/table=requests/**/*.parquet'", "CREATE OR REPLACE VIEW verdict_stats AS", "favg(value)"}},
		{[]string{"--dialect", "spark", "--dataset", "s3a://b/h", "--slo", "ttft=200ms"}, []string{"USING parquet OPTIONS (path 's3a://b/h/table=runs'", "verdict_goodput", "q.ttft_s <= 2e-01"}},
		{[]string{"--dialect", "trino", "--dataset", "s3://b/h", "--trino-schema", "lake.bench", "--method", "nearest_rank_floor", "--percentiles", "99"},
			[]string{"CREATE OR REPLACE VIEW lake.bench.verdict_ttft AS", "CALL lake.system.sync_partition_metadata", "(9.9e+01, 9.9e-01)"}},
		{[]string{"--dataset", ds, "--metric", "ttft,ttst"}, []string{"value FROM verdict_ttst;", "--metric ttft,ttst"}},
	} {
		code, out, errs := runCLI(t, append([]string{"sql"}, c.args...)...)
		if code != 0 {
			t.Errorf("sql %v: exit %d: %s", c.args, code, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("sql %v: no %q in the script", c.args, w)
			}
		}
	}
	out := filepath.Join(dir, "v.sql")
	if code, _, errs := runCLI(t, "sql", "--dataset", ds, "-o", out); code != 0 {
		t.Fatalf("sql -o: %s", errs)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.HasPrefix(string(b), "-- verdict's metric definitions as duckdb SQL") {
		t.Errorf("sql -o wrote %.80q, %v", b, err)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--dialect", "postgres"}, "use duckdb, spark or trino"},
		{[]string{"--method", "locust_buckets"}, "no SQL form"},
		{[]string{"--metric", "ttft_scheduled"}, "LoadGen"},
		{[]string{"--metric", "request_throughput"}, "not a request-level definition"},
		{[]string{"--dataset", dir}, "not a verdict dataset"},
		{[]string{"--slo", "ttft=fast"}, "--slo"},
		{[]string{"extra-arg"}, "takes no arguments"},
	} {
		code, _, errs := runCLI(t, append([]string{"sql"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("sql %v: exit %d, %q; want 2 and %q", c.args, code, errs, c.msg)
		}
	}
}

// TestExportCompact compacts a dataset from the command line and writes
// the SQL over the copy.
func TestExportCompact(t *testing.T) {
	dir := t.TempDir()
	bundle, ds, dest := filepath.Join(dir, "a.bundle"), filepath.Join(dir, "history"), filepath.Join(dir, "compact")
	if code, _, errs := runCLI(t, "ingest", "-o", bundle, demo+"platform-a.json"); code != 0 {
		t.Fatalf("ingest: %s", errs)
	}
	code, out, errs := runCLI(t, "export", "--dataset", ds, "--compact", dest, bundle)
	if code != 0 || !strings.Contains(out, "1 runs compacted (240 requests in 1 files, 1 row groups)") {
		t.Fatalf("export --compact: %d %q %s", code, out, errs)
	}
	if code, _, errs = runCLI(t, "export", "--dataset", ds, "--compact", dest); code != 2 || !strings.Contains(errs, "already exists") {
		t.Errorf("compacting again without --replace: %d %s", code, errs)
	}
	if code, _, errs = runCLI(t, "export", "--dataset", ds, "--compact", dest, "--replace"); code != 0 {
		t.Errorf("--replace: %d %s", code, errs)
	}
	if code, out, errs = runCLI(t, "sql", "--dataset", dest); code != 0 || !strings.Contains(out, dest+"/table=requests/**/*.parquet") {
		t.Errorf("sql over the copy: %d %s", code, errs)
	}
	if code, _, errs = runCLI(t, "sql", "--dialect", "trino", "--dataset", dest); code != 2 || !strings.Contains(errs, "compacted copy") {
		t.Errorf("trino over the copy: %d %s", code, errs)
	}
}
