package schemas

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScanDataset(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	runs := sampleRuns()
	r3 := runs[1]
	r3.ID, r3.Tool = "a/b=c", "aiperf" // escaped in the partition path
	a := filepath.Join(dir, "a")
	writeBundle(t, a, []Run{runs[0], runs[1], r3}, 3)
	ds := filepath.Join(dir, "ds")
	b, err := OpenBundle(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, b, ds, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	// What engines skip: a staging directory and an underscore file.
	st := filepath.Join(ds, "table=metrics", ".staging-x", "part-0.parquet")
	os.MkdirAll(filepath.Dir(st), 0o755)
	os.WriteFile(st, []byte("not parquet"), 0o644)
	os.WriteFile(filepath.Join(ds, "table=metrics", "_SUCCESS"), nil, 0o644)

	got, err := ScanDataset(ctx, ds, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d runs, want 3", len(got))
	}
	seen := map[string]int{}
	for _, r := range got {
		seen[r.Run.ID] = len(r.Metrics)
		for _, m := range r.Metrics {
			if m.RunID != r.Run.ID || m.MetricID != TTFT || m.NativeName != "" {
				t.Errorf("metric %+v of run %s (native_name is not projected)", m, r.Run.ID)
			}
		}
	}
	if seen["a/b=c"] != 1 || seen[runs[0].ID] != 1 {
		t.Fatalf("runs and metric counts %v", seen)
	}
	// Pruning by tool.
	got, err = ScanDataset(ctx, ds, ScanOptions{Tools: []string{"aiperf"}})
	if err != nil || len(got) != 1 || got[0].Run.ID != "a/b=c" {
		t.Fatalf("tool pruning: %+v %v", got, err)
	}
	// A link out of the dataset is refused.
	outside := filepath.Join(dir, "outside.parquet")
	os.WriteFile(outside, []byte("x"), 0o644)
	link := filepath.Join(ds, "table=metrics", "tool=vllm", "evil.parquet")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(outside, link); err != nil {
		t.Skip(err)
	}
	if _, err := ScanDataset(ctx, ds, ScanOptions{}); err == nil || !strings.Contains(err.Error(), "outside the dataset") {
		t.Fatalf("link outside: %v", err)
	}
}
