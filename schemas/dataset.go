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
// Partition values are escaped as Hive escapes them (percent-encoding of
// '/', '\\', '%', '=', control characters and a few more; DuckDB,
// Spark and pyarrow decode them), and every path is checked to stay
// inside the dataset, so no run ID or tool name from a bundle can reach
// outside it.
//
// An export is one transaction under an exclusive lock (flock(2) on
// DIR/.verdict.lock; readers take a shared one): the new partitions and
// the new dataset.json are written into DIR/.staging-<random>/, outside
// every table= directory, then a plan listing the moves is committed, and
// only then are the files renamed into place (each a whole file, atomic),
// the runs table last, and dataset.json last of all. A crash before the
// plan leaves the dataset as it was (the staging directory is removed by
// the next export); a crash after it is completed by the next export, or
// by `verdict export --repair`, and until then verdict refuses to read
// the dataset. A glob reader (DuckDB) sees, for each partition, the old
// file or the new one, never a part of either.

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

// Names inside a dataset directory that are not part of its data.
const (
	datasetLock   = ".verdict.lock"
	stagingPrefix = ".staging-"
	planFile      = "PLAN.json"
)

// hiveEscape escapes a partition value as Hive's FileUtils.escapePathName
// does: the bytes below 0x20, 0x7F and "#%'*/:=?\\{[]^ become %XX.
func hiveEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// hiveUnescape reverses hiveEscape (and decodes any %XX, as DuckDB does).
func hiveUnescape(v string) string {
	if !strings.Contains(v, "%") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) {
			if n, err := strconv.ParseUint(v[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// partitionPath is a run's partition directory of a table, relative to
// the dataset, with the values escaped. It fails for a value that is
// empty, or a path that would not stay inside the dataset.
func partitionPath(table, tool, run string) (string, error) {
	if tool == "" || run == "" {
		return "", fmt.Errorf("run %q of tool %q: an empty run ID or tool cannot name a partition", run, tool)
	}
	rel := filepath.Join("table="+hiveEscape(table), "tool="+hiveEscape(tool), "run_id="+hiveEscape(run))
	if !filepath.IsLocal(rel) || strings.Count(rel, string(filepath.Separator)) != 2 {
		return "", fmt.Errorf("run %q of tool %q: partition path %q would leave the dataset", run, tool, rel)
	}
	return rel, nil
}

// inside joins rel to dir and checks that the result stays inside dir.
func inside(dir, rel string) (string, error) {
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: path %q is not inside the dataset", dir, rel)
	}
	return filepath.Join(dir, rel), nil
}

var errLocked = errors.New("locked by another process")

// lockDataset takes the dataset's writer lock, waiting for other writers.
func lockDataset(dir string) (*fileLock, error) {
	l, err := lockFile(filepath.Join(dir, datasetLock), true, true, true)
	if err != nil {
		return nil, fmt.Errorf("%s: locking the dataset: %w", dir, err)
	}
	return l, nil
}

// isDatasetEntry reports whether a name at a dataset's top level is one
// verdict writes.
func isDatasetEntry(name string) bool {
	return name == DatasetFile || name == datasetLock || strings.HasPrefix(name, stagingPrefix) || strings.HasPrefix(name, "table=")
}

// refuseForeign fails when dir is not a dataset and holds entries
// verdict does not write at a dataset's top level, or (with partitions)
// table= directories.
func refuseForeign(dir string, partitions bool) error {
	if IsDataset(dir) {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !isDatasetEntry(e.Name()) || (partitions && strings.HasPrefix(e.Name(), "table=")) {
			return fmt.Errorf("%s is not empty and not a dataset (no %s); refusing to write into it", dir, DatasetFile)
		}
	}
	return nil
}

// A plan is a committed export: the files to move from the staging
// directory into the dataset, in order, and the partitions to remove.
type plan struct {
	Moves  []string `json:"moves"`  // relative paths of files, data tables first, the runs table last
	Remove []string `json:"remove"` // relative paths of partition directories
}

// Export adds the runs of a bundle to the dataset in dir (created when
// missing). Concurrent exports into one dataset wait for each other and
// all their runs are kept.
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
	// Before the lock, refuse a directory holding what verdict never
	// writes, so that no lock file is left in it.
	if err := refuseForeign(dir, false); err != nil {
		return res, err
	}
	lock, err := lockDataset(dir)
	if err != nil {
		return res, err
	}
	defer lock.Unlock()
	if _, err := recoverStaging(dir, true); err != nil {
		return res, err
	}
	// Under the lock, after any committed export was finished: partitions
	// without a dataset file were not written by verdict. Checked before
	// the lock, this saw another process's export halfway through its
	// moves (its partitions moved, its dataset file not yet).
	if err := refuseForeign(dir, true); err != nil {
		return res, err
	}
	idx, err := readIndex(dir) // read under the lock: no other export's runs are lost
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
		for _, t := range b.tables() {
			if _, err := partitionPath(t, r.Tool, r.ID); err != nil {
				return res, err
			}
		}
		tool[r.ID] = r.Tool
	}
	if len(tool) == 0 {
		return res, nil
	}
	staging, err := os.MkdirTemp(dir, stagingPrefix)
	if err != nil {
		return res, err
	}
	committed := false
	defer func() {
		if !committed { // nothing was moved: the dataset is as it was
			os.RemoveAll(staging)
		}
	}()
	rows := map[string]map[string]int64{} // run -> table -> rows
	for _, t := range b.tables() {
		n, err := exportTable(ctx, b, t, staging, tool, mem)
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
	var pl plan
	for _, run := range slices.Sorted(maps.Keys(tool)) {
		if old, ok := idx.Runs[run]; ok {
			for t := range old.Rows {
				if _, still := rows[run][t]; still && old.Tool == tool[run] {
					continue // replaced file by file below
				}
				rel, err := partitionPath(t, old.Tool, run)
				if err != nil {
					return res, err
				}
				pl.Remove = append(pl.Remove, rel)
			}
		}
		idx.Runs[run] = DatasetRun{Tool: tool[run], Bundle: b.Dir, ExportedAt: o.Now, Rows: rows[run]}
		res.Exported = append(res.Exported, run)
	}
	if pl.Moves, err = stagedFiles(staging); err != nil {
		return res, err
	}
	for _, s := range b.Manifest.Sources {
		if !slices.ContainsFunc(idx.Sources, func(x Source) bool { return x.SHA256 == s.SHA256 && x.Path == s.Path }) {
			idx.Sources = append(idx.Sources, s)
		}
	}
	if err := writeJSON(filepath.Join(staging, DatasetFile), idx); err != nil {
		return res, err
	}
	if err := commitPlan(staging, pl); err != nil {
		return res, err
	}
	committed = true
	if err := exportHook("planned"); err != nil {
		return res, err
	}
	return res, applyPlan(dir, staging, pl)
}

// exportHook lets tests stop an export at a step, as a crash would: a
// non-nil error returns at once, leaving everything where it is.
var exportHook = func(step string) error { return nil }

// stagedFiles lists the files under staging's table= directories, the
// runs table's last.
func stagedFiles(staging string) ([]string, error) {
	var data, runs []string
	err := filepath.WalkDir(staging, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		rel, err := filepath.Rel(staging, p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "table="+TableRuns+string(filepath.Separator)) {
			runs = append(runs, rel)
		} else {
			data = append(data, rel)
		}
		return nil
	})
	slices.Sort(data)
	slices.Sort(runs)
	return append(data, runs...), err
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileSync(path, append(data, '\n'))
}

// commitPlan makes the staged export durable, then writes its plan: from
// then on the export is completed, by this process or the next.
func commitPlan(staging string, pl plan) error {
	for _, rel := range pl.Moves {
		if err := syncFile(filepath.Join(staging, rel)); err != nil {
			return err
		}
	}
	tmp := filepath.Join(staging, planFile+".tmp")
	if err := writeJSON(tmp, pl); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(staging, planFile)); err != nil {
		return err
	}
	return syncDir(staging)
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// applyPlan moves a committed export into place; it is idempotent, so a
// plan interrupted at any step is completed by running it again.
func applyPlan(dir, staging string, pl plan) error {
	for i, rel := range pl.Moves {
		src := filepath.Join(staging, rel)
		dst, err := inside(dir, rel)
		if err != nil {
			return err
		}
		if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
			continue // moved before an interruption
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Rename(src, dst); err != nil {
			return err
		}
		if err := exportHook("moved " + strconv.Itoa(i)); err != nil {
			return err
		}
	}
	for _, rel := range pl.Remove {
		p, err := inside(dir, rel)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	if idx := filepath.Join(staging, DatasetFile); fileExists(idx) {
		if err := os.Rename(idx, filepath.Join(dir, DatasetFile)); err != nil {
			return err
		}
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return os.RemoveAll(staging)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// recoverStaging deals with the staging directories of earlier exports,
// under the writer lock: a committed one is completed, an uncommitted
// one (its export stopped before the plan) is removed. With fix false it
// only reports.
func recoverStaging(dir string, fix bool) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(dir, stagingPrefix+"*"))
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, st := range dirs {
		data, err := os.ReadFile(filepath.Join(st, planFile))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			notes = append(notes, fmt.Sprintf("%s: an export that stopped before it committed; nothing of it is in the dataset (removed)", filepath.Base(st)))
			if fix {
				if err := os.RemoveAll(st); err != nil {
					return notes, err
				}
			}
		case err != nil:
			return notes, err
		default:
			var pl plan
			if err := json.Unmarshal(data, &pl); err != nil {
				return notes, fmt.Errorf("%s: %w", filepath.Join(st, planFile), err)
			}
			notes = append(notes, fmt.Sprintf("%s: an export that was interrupted after it committed (%d files; completed)", filepath.Base(st), len(pl.Moves)))
			if fix {
				if err := applyPlan(dir, st, pl); err != nil {
					return notes, err
				}
			}
		}
	}
	return notes, nil
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
					rel, err := partitionPath(table, tool[run], run)
					if err != nil {
						return err
					}
					p := filepath.Join(tmp, rel)
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

// openDataset opens a dataset for reading as a bundle: the files of the
// runs dataset.json lists, read under the readers' lock, so that an
// export in progress is waited for and one interrupted is reported.
func openDataset(dir string) (*Bundle, error) {
	if l, err := lockFile(filepath.Join(dir, datasetLock), false, false, true); err == nil {
		defer l.Unlock()
	} // a dataset without a lock file (or on a read-only mount) is read as it is
	if notes, err := recoverStaging(dir, false); err != nil {
		return nil, err
	} else {
		for _, n := range notes {
			if strings.Contains(n, "after it committed") {
				return nil, fmt.Errorf("%s: %s; run `verdict export --repair --dataset %s` (or any export into it) to complete it", dir, strings.TrimSuffix(n, "; completed)")+")", dir)
			}
		}
	}
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
		table := hiveUnescape(strings.TrimPrefix(filepath.Base(td), "table="))
		var rows int64
		var files []string
		for run, r := range idx.Runs {
			rel, err := partitionPath(table, r.Tool, run)
			if err != nil {
				return nil, err
			}
			parts, _ := filepath.Glob(filepath.Join(dir, rel, "part-*.parquet"))
			if len(parts) > 0 {
				rows += r.Rows[table]
			}
			files = append(files, parts...)
		}
		slices.SortFunc(files, comparePartFiles)
		b.parts[table] = files
		if len(files) > 0 {
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
