package schemas

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ScanOptions configure ScanDataset.
type ScanOptions struct {
	// Tools, when not empty, keeps only these tools' partitions: the
	// others are pruned by path, never opened.
	Tools []string
	// KeepRun, when not nil, is asked about each run after the runs table
	// is read; the metrics partitions of runs it refuses are not opened.
	KeepRun func(*Run) bool
	// MetricColumns are the metrics columns read (projection); nil means
	// ScanMetricColumns.
	MetricColumns []string
	// Dimensions keeps metric rows with a Dimension (e.g. one Locust
	// endpoint); by default they are skipped.
	Dimensions bool
	// KeepMetric, when not nil, keeps only the metric rows it accepts.
	KeepMetric func(*Metric) bool
}

// ScanMetricColumns are the metrics columns a trend needs.
var ScanMetricColumns = []string{"run_id", "metric_id", "stat", "percentile", "value", "unit", "method", "source", "n", "dimension"}

// A ScannedRun is one run of a dataset with its (kept) metric rows.
type ScannedRun struct {
	Run     Run
	Metrics []Metric
}

// ScanDataset reads the runs and metrics tables of a Hive-partitioned
// dataset, whoever wrote it: verdict export, or DuckDB, Spark or Trino
// writing it back (COPY ... PARTITION_BY (tool, run_id), which leaves the
// partition columns out of the files). It reads nothing else: the
// requests and samples tables, which hold nearly all the bytes, are never
// opened, only the metrics columns named in the options are decoded, and
// partitions are pruned by path (tool, then run after the runs table).
//
// It walks DIR/table=runs and DIR/table=metrics as DuckDB and Spark do:
// every key=value directory below them is a partition, its value
// percent-decoded as Hive escapes it (docs: README, "Bundles and
// datasets"), files and directories whose names start with "." or "_"
// (DIR/.staging-*, _SUCCESS, .crc files) are skipped, and a path that
// leaves DIR (a symbolic link out of it) is an error. Partition values
// fill run_id and tool where the files lack them. When DIR has a
// dataset.json (verdict's index), the scan takes the readers' lock, refuses
// a dataset with an interrupted export as OpenBundle does, and keeps only
// the runs the index lists.
func ScanDataset(ctx context.Context, dir string, o ScanOptions) ([]ScannedRun, error) {
	var listed map[string]DatasetRun
	if IsDataset(dir) {
		b, err := openDataset(dir) // the lock and the interrupted-export check
		if err != nil {
			return nil, err
		}
		idx, err := readIndex(b.Dir)
		if err != nil {
			return nil, err
		}
		listed = idx.Runs
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	runFiles, err := partitionFiles(root, TableRuns, o.Tools)
	if err != nil {
		return nil, err
	}
	var out []ScannedRun
	index := map[string]int{}
	for _, pf := range runFiles {
		err := readPartitionFile(ctx, pf.path, nil, func(rec arrow.RecordBatch) error {
			for _, r := range DecodeRuns(rec) {
				pf.fill(&r.ID, &r.Tool)
				if listed != nil {
					if _, ok := listed[r.ID]; !ok {
						continue
					}
				}
				if o.KeepRun != nil && !o.KeepRun(&r) {
					continue
				}
				if _, dup := index[r.ID]; dup {
					return fmt.Errorf("%s: run %s appears twice in the runs table", dir, r.ID)
				}
				index[r.ID] = len(out)
				out = append(out, ScannedRun{Run: r})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	metricFiles, err := partitionFiles(root, TableMetrics, o.Tools)
	if err != nil {
		return nil, err
	}
	cols := o.MetricColumns
	if cols == nil {
		cols = ScanMetricColumns
	}
	for _, pf := range metricFiles {
		if id, ok := pf.values["run_id"]; ok {
			if _, want := index[id]; !want {
				continue // pruned by path
			}
		}
		err := readPartitionFile(ctx, pf.path, cols, func(rec arrow.RecordBatch) error {
			for _, m := range DecodeMetrics(rec) {
				pf.fill(&m.RunID, nil)
				i, ok := index[m.RunID]
				if !ok || (m.Dimension != "" && !o.Dimensions) || (o.KeepMetric != nil && !o.KeepMetric(&m)) {
					continue
				}
				out[i].Metrics = append(out[i].Metrics, m)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// A partFile is one data file of a table with its partition values.
type partFile struct {
	path   string
	values map[string]string
}

func (p partFile) fill(runID, tool *string) {
	if v, ok := p.values["run_id"]; ok && *runID == "" {
		*runID = v
	}
	if v, ok := p.values["tool"]; ok && tool != nil && *tool == "" {
		*tool = v
	}
}

// hidden reports whether a file or directory name is one engines skip.
func hidden(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

// partitionFiles lists the Parquet files under root/table=TABLE in path
// order, pruning tools not in tools (when given).
func partitionFiles(root, table string, tools []string) ([]partFile, error) {
	top := filepath.Join(root, "table="+hiveEscape(table))
	if _, err := os.Stat(top); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []partFile
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != top && hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		values := map[string]string{}
		for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator))[1:] {
			if k, v, ok := strings.Cut(part, "="); ok {
				values[hiveUnescape(k)] = hiveUnescape(v)
			}
		}
		if d.IsDir() {
			if k, v, ok := strings.Cut(d.Name(), "="); ok && hiveUnescape(k) == "tool" && len(tools) > 0 && !slices.Contains(tools, hiveUnescape(v)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".parquet") {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return err
			}
			if r, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(r) {
				return fmt.Errorf("%s: %s links outside the dataset; refusing to read it", root, rel)
			}
		}
		if v, ok := values["tool"]; ok && len(tools) > 0 && !slices.Contains(tools, v) {
			return nil
		}
		out = append(out, partFile{path: p, values: values})
		return nil
	})
	return out, err
}

// readPartitionFile reads the named columns of one file (all when nil),
// with timestamps in any unit given as nanoseconds, as the decoders read
// them (DuckDB and Spark write microseconds).
func readPartitionFile(ctx context.Context, path string, columns []string, fn func(arrow.RecordBatch) error) error {
	b := &Bundle{mem: memory.DefaultAllocator}
	return b.fileRecords(ctx, path, columns, func(rec arrow.RecordBatch) error {
		fixed, changed := nanosecondTimes(rec)
		if changed {
			defer fixed.Release()
		}
		return fn(fixed)
	})
}

// nanosecondTimes converts timestamp columns of another unit to
// nanoseconds.
func nanosecondTimes(rec arrow.RecordBatch) (arrow.RecordBatch, bool) {
	var cols []arrow.Array
	var fields []arrow.Field
	changed := false
	for i, f := range rec.Schema().Fields() {
		col := rec.Column(i)
		if ts, ok := col.(*array.Timestamp); ok && f.Type.(*arrow.TimestampType).Unit != arrow.Nanosecond {
			unit := f.Type.(*arrow.TimestampType).Unit
			typ := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
			bld := array.NewTimestampBuilder(memory.DefaultAllocator, typ)
			mult := map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3}[unit]
			for j := 0; j < ts.Len(); j++ {
				if ts.IsNull(j) {
					bld.AppendNull()
				} else {
					bld.Append(arrow.Timestamp(int64(ts.Value(j)) * mult))
				}
			}
			col = bld.NewArray()
			defer col.Release()
			f.Type = typ
			changed = true
		}
		cols = append(cols, col)
		fields = append(fields, f)
	}
	if !changed {
		return rec, false
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), true
}
