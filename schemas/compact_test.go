package schemas

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
)

// compactFixture is a dataset of three runs of two tools (one run's
// requests spanning several row groups) and its compacted copy.
func compactFixture(t *testing.T, o CompactOptions) (ds, dest string, idx CompactIndex) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	runs := sampleRuns()
	r3 := runs[1]
	r3.ID, r3.Tool = "aiperf-000000000003", "aiperf"
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeBundle(t, a, []Run{runs[1]}, 20) // BatchRows 7: three row groups
	writeBundle(t, b, []Run{r3, runs[0]}, 15)
	ds = filepath.Join(dir, "ds")
	for _, bundle := range []string{b, a} {
		bb, err := OpenBundle(bundle)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Export(ctx, bb, ds, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dest = filepath.Join(dir, "compact")
	idx, err := Compact(ctx, ds, dest, o)
	if err != nil {
		t.Fatal(err)
	}
	return ds, dest, idx
}

// readRequests decodes every request row of the given files, in order.
func readRequests(t *testing.T, files []string) ([]Request, *arrow.Schema) {
	t.Helper()
	b := &Bundle{mem: memory.DefaultAllocator}
	var out []Request
	var d RequestDecoder
	var sch *arrow.Schema
	for _, f := range files {
		err := b.fileRecords(context.Background(), f, nil, func(rec arrow.RecordBatch) error {
			sch = rec.Schema()
			d.Reset(rec)
			for i := range int(rec.NumRows()) {
				q := *d.Row(i)
				q.ChunkGapsS = slices.Clone(q.ChunkGapsS)
				out = append(out, q)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out, sch
}

// TestCompact checks the copy row for row against the dataset, its order,
// its metadata (the stored Arrow schema with the definition IDs), the
// bloom filter and sort order declared on run_id, and one run per row
// group.
func TestCompact(t *testing.T) {
	ds, dest, idx := compactFixture(t, CompactOptions{RowGroupRows: 32})
	src, err := OpenBundle(ds)
	if err != nil {
		t.Fatal(err)
	}
	var want []Request
	for _, f := range byRun(src.files(TableRequests)) {
		rows, _ := readRequests(t, []string{f})
		want = append(want, rows...)
	}
	var files []string
	for _, f := range idx.Tables[TableRequests].Files {
		files = append(files, filepath.Join(dest, "table="+TableRequests, f))
	}
	got, sch := readRequests(t, files)
	if len(want) != 50 || !reflect.DeepEqual(got, want) {
		t.Fatalf("compacted requests differ from the dataset's: %d rows, want %d", len(got), len(want))
	}
	if !slices.IsSortedFunc(got, func(a, b Request) int { return strings.Compare(a.RunID, b.RunID) }) {
		t.Error("the copy is not sorted by run_id")
	}
	if f, _ := sch.FieldsByName("ttft_s"); len(f) != 1 || f[0].Metadata.FindKey(MetaMetric) < 0 {
		t.Error("the definition metadata of ttft_s did not survive")
	}
	if slices.Compare(idx.Runs, []string{"aiperf-000000000003", "vllm-000000000001", "vllm-000000000002"}) != 0 || idx.Tables[TableRequests].Rows != 50 {
		t.Errorf("index %+v", idx)
	}
	for _, table := range []string{TableRuns, TableRequests, TableMetrics} {
		if _, ok := idx.Tables[table]; !ok {
			t.Errorf("no %s in the copy", table)
		}
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, c := range pf.Schema().Columns() {
		if c[0] == "run_id" {
			col = i
		}
	}
	// The two 15-row runs share a row group of at most 32; the 20-row run
	// cannot join them.
	var sizes []int64
	for _, rg := range pf.RowGroups() {
		sizes = append(sizes, rg.NumRows())
	}
	if len(pf.RowGroups()) != idx.Tables[TableRequests].RowGroups || !slices.Equal(sizes, []int64{30, 20}) {
		t.Errorf("row groups of %v rows, want [30 20]", sizes)
	}
	var offset int64
	for i, rg := range pf.RowGroups() {
		cc := rg.ColumnChunks()[col]
		if cc.BloomFilter() == nil {
			t.Errorf("row group %d: no bloom filter on run_id", i)
		}
		if s := rg.SortingColumns(); len(s) != 1 || s[0].Path()[0] != "run_id" || s[0].Descending() {
			t.Errorf("row group %d: sorting columns %v", i, s)
		}
		// The page bounds of run_id are whole run IDs.
		ci, err := cc.ColumnIndex()
		if err != nil {
			t.Fatal(err)
		}
		for p := range ci.NumPages() {
			for _, v := range []string{string(ci.MinValue(p).ByteArray()), string(ci.MaxValue(p).ByteArray())} {
				if !slices.Contains(idx.Runs, v) {
					t.Errorf("row group %d page %d: bound %q is not a run ID", i, p, v)
				}
			}
		}
		// The bloom filter holds the row group's runs, and rejects
		// (nearly) every other ID.
		bf := cc.BloomFilter()
		for _, q := range got[offset : offset+rg.NumRows()] {
			if ok, err := bf.Check(parquet.ValueOf(q.RunID)); err != nil || !ok {
				t.Errorf("row group %d: the bloom filter misses %s (%v)", i, q.RunID, err)
			}
		}
		rejected := 0
		for k := range 20 {
			if ok, _ := bf.Check(parquet.ValueOf(fmt.Sprintf("absent-%02d", k))); !ok {
				rejected++
			}
		}
		if rejected < 15 {
			t.Errorf("row group %d: the bloom filter rejects %d of 20 absent IDs", i, rejected)
		}
		offset += rg.NumRows()
	}
}

func TestCompactDestination(t *testing.T) {
	ds, dest, _ := compactFixture(t, CompactOptions{})
	ctx := context.Background()
	if _, err := Compact(ctx, ds, dest, CompactOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("compacting onto a copy without Replace: %v", err)
	}
	if _, err := Compact(ctx, ds, dest, CompactOptions{Replace: true, RowsPerFile: 10}); err != nil {
		t.Fatal(err)
	}
	idx := CompactIndex{}
	data, _ := os.ReadFile(filepath.Join(dest, CompactFile))
	if err := json.Unmarshal(data, &idx); err != nil || len(idx.Tables[TableRequests].Files) != 3 {
		t.Errorf("RowsPerFile 10 gave %d request files (want one per run): %v", len(idx.Tables[TableRequests].Files), err)
	}
	if _, err := Compact(ctx, ds, ds, CompactOptions{Replace: true}); err == nil || !strings.Contains(err.Error(), "not a compacted dataset") {
		t.Errorf("compacting onto the dataset itself: %v", err)
	}
	if _, err := Compact(ctx, dest, filepath.Join(t.TempDir(), "x"), CompactOptions{}); err == nil || !strings.Contains(err.Error(), "not a dataset") {
		t.Errorf("compacting a compacted copy: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".compact.tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}
