package schemas

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeBundle writes a bundle with the given runs and n requests per run.
func writeBundle(t *testing.T, dest string, runs []Run, n int) {
	t.Helper()
	w, err := CreateBundle(dest, BundleOptions{BatchRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		w.AddRun(r)
		w.AddMetric(Metric{RunID: r.ID, MetricID: TTFT, Stat: StatMean, Value: Some(0.1), Unit: UnitSeconds, Source: SourceReported})
	}
	// Interleave runs in the requests table, as a multi-run file would not,
	// to exercise splitting batches by run.
	for i := range n * len(runs) {
		r := runs[i%len(runs)]
		q := Request{RunID: r.ID, Index: int64(i / len(runs)), Status: StatusOK, TTFTS: Some(float64(i)), ChunkGapsS: []float64{0.01}}
		if err := w.AddRequest(&q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(Manifest{Sources: []Source{{Path: dest + ".json", SHA256: strings.Repeat("0", 64)}}}); err != nil {
		t.Fatal(err)
	}
}

func TestDataset(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	runs := sampleRuns()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeBundle(t, a, runs[:1], 20)
	r2 := runs[1]
	r3 := runs[1]
	r3.ID, r3.Tool = "aiperf-000000000003", "aiperf"
	writeBundle(t, b, []Run{r2, r3}, 15)
	ds := filepath.Join(dir, "ds")
	export := func(bundle string, o ExportOptions) ExportResult {
		t.Helper()
		bb, err := OpenBundle(bundle)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Export(ctx, bb, ds, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := export(a, ExportOptions{}); len(res.Exported) != 1 || res.Rows[TableRequests] != 20 {
		t.Fatalf("export a: %+v", res)
	}
	if res := export(b, ExportOptions{}); len(res.Exported) != 2 || res.Rows[TableRequests] != 30 {
		t.Fatalf("export b: %+v", res)
	}
	if res := export(b, ExportOptions{}); len(res.Skipped) != 2 || len(res.Exported) != 0 {
		t.Fatalf("re-export without Replace: %+v", res)
	}
	if res := export(b, ExportOptions{Replace: true}); len(res.Exported) != 2 {
		t.Fatalf("re-export with Replace: %+v", res)
	}
	// The Hive layout.
	for _, p := range []string{
		"table=requests/tool=vllm/run_id=vllm-000000000001/part-0.parquet",
		"table=requests/tool=aiperf/run_id=aiperf-000000000003/part-0.parquet",
		"table=runs/tool=vllm/run_id=vllm-000000000002/part-0.parquet",
		"table=metrics/tool=vllm/run_id=vllm-000000000002/part-0.parquet",
		DatasetFile,
	} {
		if _, err := os.Stat(filepath.Join(ds, p)); err != nil {
			t.Errorf("missing %s", p)
		}
	}
	// An interrupted export's files are ignored.
	orphan := filepath.Join(ds, "table=requests/tool=vllm/run_id=vllm-99/part-0.parquet")
	os.MkdirAll(filepath.Dir(orphan), 0o755)
	src, _ := os.ReadFile(filepath.Join(ds, "table=requests/tool=vllm/run_id=vllm-000000000001/part-0.parquet"))
	os.WriteFile(orphan, src, 0o644)

	d, err := OpenBundle(ds)
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsDataset() {
		t.Fatal("not opened as a dataset")
	}
	got, err := d.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if strings.Join(ids, " ") != "aiperf-000000000003 vllm-000000000001 vllm-000000000002" {
		t.Errorf("runs %v", ids)
	}
	per := map[string]int{}
	if err := d.Requests(ctx, func(q *Request) error { per[q.RunID]++; return nil }); err != nil {
		t.Fatal(err)
	}
	if per["vllm-000000000001"] != 20 || per["vllm-000000000002"] != 15 || per["aiperf-000000000003"] != 15 || len(per) != 3 {
		t.Errorf("requests per run %v", per)
	}
	ms, _ := d.Metrics(ctx)
	if len(ms) != 3 {
		t.Errorf("%d metrics", len(ms))
	}
	if len(d.Manifest.Sources) != 2 {
		t.Errorf("sources %+v", d.Manifest.Sources)
	}
	// Exporting a dataset into another dataset works too.
	ds2 := filepath.Join(dir, "ds2")
	if res, err := Export(ctx, d, ds2, ExportOptions{}); err != nil || len(res.Exported) != 3 {
		t.Fatalf("dataset to dataset: %+v %v", res, err)
	}
	// A non-empty directory that is not a dataset is refused.
	if _, err := Export(ctx, d, a, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "not a dataset") {
		t.Errorf("export into a bundle: %v", err)
	}
}

func TestWriteCosts(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "b")
	writeBundle(t, dir, sampleRuns()[:1], 3)
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	rows := []CostRow{
		{RunID: "vllm-000000000001", Source: "bill", Sort: "allocation", Item: "bill.csv:2", Currency: "USD", Basis: "effective",
			Amount: "49.1600", AmountValue: Some(49.16), Included: true, Rule: "prorated", Granularity: "hourly",
			OverlapS: Some(1800.0), PeriodS: Some(3600.0), ResourceID: "i-1", PeriodStart: Some(at), PeriodEnd: Some(at.Add(time.Hour))},
		{RunID: "vllm-000000000001", Source: "quote", Sort: "total", Item: "TOTAL_COST", Currency: "USD", Amount: "16.571369863014",
			AmountValue: Some(16.571369863014), Formula: "GPU_COST + OTHER_LISTED_COST"},
	}
	for round := range 2 { // the second write replaces the first
		if err := WriteCosts(dir, rows[:1+round]); err != nil {
			t.Fatal(err)
		}
	}
	b, err := OpenBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Costs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("costs differ:\n got %+v\nwant %+v", got, rows)
	}
	n := 0
	for _, tf := range b.Manifest.Tables {
		if tf.Name == TableCosts {
			n++
			if tf.Rows != 2 {
				t.Errorf("manifest rows %d", tf.Rows)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d costs entries in the manifest", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 { // manifest + 4 tables
		t.Errorf("bundle holds %d files", len(entries))
	}
	// The costs travel into a dataset.
	ds := filepath.Join(t.TempDir(), "ds")
	if _, err := Export(ctx, b, ds, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	d, _ := OpenBundle(ds)
	if got, _ := d.Costs(ctx); len(got) != 2 {
		t.Errorf("dataset costs %d", len(got))
	}
	if err := WriteCosts(ds, rows); err == nil {
		t.Error("costs written into a dataset")
	}
}
