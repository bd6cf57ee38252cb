package schemas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// A dataset is the long-term home of many bundles' runs: Hive-partitioned
// Parquet that DuckDB, Spark, Trino or pandas read with one glob,
//
//	DIR/dataset.json
//	DIR/table=<table>/tool=<tool>/run_id=<run>/part-<n>.parquet
//
// one partition per run and table, so that runs are added (or replaced)
// one at a time. Every file keeps the stored Arrow schema, so the metric
// definitions in field metadata survive; dataset.json lists the runs that
// were completely exported and the sources they came from. verdict reads a
// dataset wherever it reads a bundle (OpenBundle).
//
// Partitions are written into a temporary directory and renamed into
// place, then dataset.json is rewritten atomically; files of runs that
// dataset.json does not list (left by an interrupted export) are ignored by
// verdict and removed by the next export of that run.

// DatasetFile is the name of a dataset's index.
const DatasetFile = "dataset.json"

// DatasetIndex is the content of dataset.json.
type DatasetIndex struct {
	SchemaVersion int                   `json:"schema_version"`
	Kind          string                `json:"kind"` // "verdict-dataset"
	Runs          map[string]DatasetRun `json:"runs"`
	Sources       []Source              `json:"sources"`
}

// DatasetRun records one exported run.
type DatasetRun struct {
	Tool       string    `json:"tool"`
	Bundle     string    `json:"bundle"` // the bundle it was exported from
	ExportedAt time.Time `json:"exported_at"`
	// Rows per table.
	Rows map[string]int64 `json:"rows"`
}

// ExportOptions configure Export.
type ExportOptions struct {
	// Replace re-exports runs the dataset already has; otherwise they are
	// skipped.
	Replace bool
	// Now stamps the export; zero means time.Now.
	Now time.Time
	// Allocator for Arrow buffers; nil means the default.
	Allocator memory.Allocator
}

// ExportResult says what Export did.
type ExportResult struct {
	Exported []string // run IDs written
	Skipped  []string // run IDs already in the dataset
	Rows     map[string]int64
}

// IsDataset reports whether dir is a dataset.
func IsDataset(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, DatasetFile))
	return err == nil
}

func readIndex(dir string) (DatasetIndex, error) {
	data, err := os.ReadFile(filepath.Join(dir, DatasetFile))
	if errors.Is(err, fs.ErrNotExist) {
		return DatasetIndex{SchemaVersion: SchemaVersion, Kind: "verdict-dataset", Runs: map[string]DatasetRun{}}, nil
	}
	if err != nil {
		return DatasetIndex{}, err
	}
	var idx DatasetIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		return DatasetIndex{}, fmt.Errorf("%s: %w", filepath.Join(dir, DatasetFile), err)
	}
	if idx.SchemaVersion != SchemaVersion {
		return DatasetIndex{}, fmt.Errorf("%s has schema version %d, and this verdict reads version %d: %w", dir, idx.SchemaVersion, SchemaVersion, ErrSchemaVersion)
	}
	if idx.Runs == nil {
		idx.Runs = map[string]DatasetRun{}
	}
	return idx, nil
}

// partitionPath is a run's partition directory of a table, relative to
// the dataset.
func partitionPath(table, tool, run string) string {
	return filepath.Join("table="+table, "tool="+tool, "run_id="+run)
}

// Export adds the runs of a bundle to the dataset in dir (created when
// missing).
func Export(ctx context.Context, b *Bundle, dir string, o ExportOptions) (ExportResult, error) {
	res := ExportResult{Rows: map[string]int64{}}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC().Truncate(time.Second)
	}
	mem := o.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	if !IsDataset(dir) {
		entries, _ := os.ReadDir(dir)
		if len(entries) > 0 {
			return res, fmt.Errorf("%s is not empty and not a dataset (no %s); refusing to write into it", dir, DatasetFile)
		}
	}
	idx, err := readIndex(dir)
	if err != nil {
		return res, err
	}
	runs, err := b.Runs(ctx)
	if err != nil {
		return res, err
	}
	tool := map[string]string{}
	for _, r := range runs {
		if _, ok := idx.Runs[r.ID]; ok && !o.Replace {
			res.Skipped = append(res.Skipped, r.ID)
			continue
		}
		tool[r.ID] = r.Tool
	}
	if len(tool) == 0 {
		return res, nil
	}
	tmp, err := os.MkdirTemp(dir, ".export-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(tmp)
	rows := map[string]map[string]int64{} // run -> table -> rows
	for _, t := range b.tables() {
		n, err := exportTable(ctx, b, t, tmp, tool, mem)
		if err != nil {
			return res, fmt.Errorf("exporting %s: %w", t, err)
		}
		for run, k := range n {
			if rows[run] == nil {
				rows[run] = map[string]int64{}
			}
			rows[run][t] = k
			res.Rows[t] += k
		}
	}
	// Move each run's partitions into place, replacing old ones.
	for _, run := range slices.Sorted(maps.Keys(tool)) {
		for _, t := range b.tables() {
			rel := partitionPath(t, tool[run], run)
			dst := filepath.Join(dir, rel)
			if err := os.RemoveAll(dst); err != nil {
				return res, err
			}
			src := filepath.Join(tmp, rel)
			if _, err := os.Stat(src); err != nil {
				continue // the run has no rows in this table
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return res, err
			}
			if err := os.Rename(src, dst); err != nil {
				return res, err
			}
		}
		idx.Runs[run] = DatasetRun{Tool: tool[run], Bundle: b.Dir, ExportedAt: o.Now, Rows: rows[run]}
		res.Exported = append(res.Exported, run)
	}
	for _, s := range b.Manifest.Sources {
		if !slices.ContainsFunc(idx.Sources, func(x Source) bool { return x.SHA256 == s.SHA256 && x.Path == s.Path }) {
			idx.Sources = append(idx.Sources, s)
		}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return res, err
	}
	tmpIdx := filepath.Join(tmp, DatasetFile)
	if err := writeFileSync(tmpIdx, append(data, '\n')); err != nil {
		return res, err
	}
	if err := os.Rename(tmpIdx, filepath.Join(dir, DatasetFile)); err != nil {
		return res, err
	}
	return res, syncDir(dir)
}

// exportTable splits a table of the bundle by run into partition files
// under tmp, streaming batch by batch, and returns the rows per run.
func exportTable(ctx context.Context, b *Bundle, table, tmp string, tool map[string]string, mem memory.Allocator) (map[string]int64, error) {
	writers := map[string]*pqarrow.FileWriter{}
	rows := map[string]int64{}
	closeAll := func() error {
		var first error
		for _, w := range writers {
			if err := w.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	schema, err := b.fileSchema(table)
	if err != nil {
		return nil, err
	}
	err = b.Records(ctx, table, func(rec arrow.RecordBatch) error {
		col, ok := rec.Column(rec.Schema().FieldIndices("run_id")[0]).(*array.String)
		if !ok {
			return fmt.Errorf("%s: run_id is not a string column", table)
		}
		n := int(rec.NumRows())
		for i := 0; i < n; {
			run := col.Value(i)
			j := i + 1
			for j < n && col.Value(j) == run {
				j++
			}
			if _, want := tool[run]; want {
				w := writers[run]
				if w == nil {
					p := filepath.Join(tmp, partitionPath(table, tool[run], run))
					if err := os.MkdirAll(p, 0o755); err != nil {
						return err
					}
					f, err := os.Create(filepath.Join(p, "part-0.parquet"))
					if err != nil {
						return err
					}
					props, aprops := writerProps(mem, 1<<16, schema)
					if w, err = pqarrow.NewFileWriter(schema, f, props, aprops); err != nil {
						f.Close()
						return err
					}
					writers[strings.Clone(run)] = w
				}
				slice := rec.NewSlice(int64(i), int64(j))
				err := w.Write(slice)
				slice.Release()
				if err != nil {
					return err
				}
				rows[strings.Clone(run)] += int64(j - i)
			}
			i = j
		}
		return nil
	})
	if cerr := closeAll(); err == nil {
		err = cerr
	}
	return rows, err
}

// fileSchema returns the Arrow schema of a table as stored in its first
// file, with its schema-level metadata.
func (b *Bundle) fileSchema(table string) (*arrow.Schema, error) {
	files := b.files(table)
	if len(files) == 0 {
		if s, ok := SchemaOf(table); ok {
			return s, nil
		}
		return nil, fmt.Errorf("no %s table", table)
	}
	rdr, err := file.OpenParquetFile(files[0], false)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, b.mem)
	if err != nil {
		return nil, err
	}
	return fr.Schema()
}

// openDataset opens a dataset for reading as a bundle.
func openDataset(dir string) (*Bundle, error) {
	idx, err := readIndex(dir)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Dir: dir, mem: memory.DefaultAllocator, parts: map[string][]string{}}
	b.Manifest = Manifest{SchemaVersion: idx.SchemaVersion, Sources: idx.Sources}
	tables, err := filepath.Glob(filepath.Join(dir, "table=*"))
	if err != nil {
		return nil, err
	}
	for _, td := range tables {
		table := strings.TrimPrefix(filepath.Base(td), "table=")
		var rows int64
		files, _ := filepath.Glob(filepath.Join(td, "tool=*", "run_id=*", "part-*.parquet"))
		slices.SortFunc(files, comparePartFiles)
		for _, f := range files {
			run := strings.TrimPrefix(filepath.Base(filepath.Dir(f)), "run_id=")
			r, listed := idx.Runs[run]
			if !listed {
				continue // left by an interrupted export
			}
			b.parts[table] = append(b.parts[table], f)
			if filepath.Base(f) == "part-0.parquet" {
				rows += r.Rows[table]
			}
		}
		if len(b.parts[table]) > 0 {
			b.Manifest.Tables = append(b.Manifest.Tables, TableFile{Name: table, File: filepath.Join("table="+table, "**", "*.parquet"), Rows: rows})
		}
	}
	// Tables every bundle has are present even when empty.
	for _, t := range []string{TableRuns, TableRequests, TableMetrics} {
		if !b.HasTable(t) {
			b.Manifest.Tables = append(b.Manifest.Tables, TableFile{Name: t})
		}
	}
	return b, nil
}

// comparePartFiles orders partition files by directory, then part number.
func comparePartFiles(a, b string) int {
	if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
		return c
	}
	num := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "part-"), ".parquet"))
		return n
	}
	return num(a) - num(b)
}
