package schemas

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// A DatasetProblem is one thing CheckDataset found wrong with a dataset.
type DatasetProblem struct {
	Path    string // relative to the dataset
	Problem string
	Fix     string // what Repair does (or did) about it
}

func (p DatasetProblem) String() string { return p.Path + ": " + p.Problem + " (" + p.Fix + ")" }

// CheckDataset lists what is wrong with the dataset in dir: staging
// directories of interrupted exports, partitions of runs dataset.json does
// not list (left by exports of verdict before 0.x, or put there by hand),
// and listed runs whose partitions are missing or hold other row counts
// than dataset.json says. With repair it fixes each: committed exports are
// completed, uncommitted ones and unlisted partitions removed, and a run
// whose data is not all there is dropped from dataset.json (with its
// remaining partitions), so that no listed run lacks its rows; export it
// again from its bundle. It holds the writer lock throughout.
func CheckDataset(ctx context.Context, dir string, repair bool) ([]DatasetProblem, error) {
	if !IsDataset(dir) {
		return nil, fmt.Errorf("%s is not a dataset (no %s)", dir, DatasetFile)
	}
	lock, err := lockDataset(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	var out []DatasetProblem
	notes, err := recoverStaging(dir, repair)
	for _, n := range notes {
		name, rest, _ := strings.Cut(n, ": ")
		fix := "removed by --repair"
		if strings.Contains(rest, "after it committed") {
			fix = "completed by --repair"
		}
		out = append(out, DatasetProblem{Path: name, Problem: rest[:strings.LastIndex(rest, " (")], Fix: fix})
	}
	if err != nil {
		return out, err
	}
	for _, p := range out {
		if !repair && strings.HasPrefix(p.Fix, "completed") {
			// The partitions are half old, half new until the plan is
			// completed; checking them against dataset.json now would
			// report the move itself.
			return out, nil
		}
	}
	idx, err := readIndex(dir)
	if err != nil {
		return out, err
	}
	unlisted, err := unlistedPartitions(dir, idx)
	if err != nil {
		return out, err
	}
	for _, rel := range unlisted {
		out = append(out, DatasetProblem{Path: rel, Problem: "partition of a run that dataset.json does not list (an interrupted export of an older verdict?); no verdict command reads it, and a glob does", Fix: "removed by --repair"})
		if repair {
			if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
				return out, err
			}
		}
	}
	changed := false
	for _, run := range slices.Sorted(maps.Keys(idx.Runs)) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := idx.Runs[run]
		problem, err := checkRun(dir, run, r)
		if err != nil {
			return out, err
		}
		if problem == "" {
			continue
		}
		out = append(out, DatasetProblem{Path: "run_id=" + hiveEscape(run), Problem: problem,
			Fix: fmt.Sprintf("dropped from dataset.json with its partitions by --repair; export it again from %s", r.Bundle)})
		if repair {
			for _, t := range tablesOf(dir) {
				rel, err := partitionPath(t, r.Tool, run)
				if err != nil {
					return out, err
				}
				if err := os.RemoveAll(filepath.Join(dir, rel)); err != nil {
					return out, err
				}
			}
			delete(idx.Runs, run)
			changed = true
		}
	}
	if changed {
		tmp := filepath.Join(dir, stagingPrefix+"index.json")
		if err := writeJSON(tmp, idx); err != nil {
			return out, err
		}
		if err := os.Rename(tmp, filepath.Join(dir, DatasetFile)); err != nil {
			return out, err
		}
		if err := syncDir(dir); err != nil {
			return out, err
		}
	}
	return out, nil
}

// tablesOf lists the tables that have a table= directory.
func tablesOf(dir string) []string {
	tds, _ := filepath.Glob(filepath.Join(dir, "table=*"))
	var out []string
	for _, td := range tds {
		out = append(out, hiveUnescape(strings.TrimPrefix(filepath.Base(td), "table=")))
	}
	return out
}

// unlistedPartitions lists the run partitions of runs dataset.json does
// not list under that tool.
func unlistedPartitions(dir string, idx DatasetIndex) ([]string, error) {
	parts, err := filepath.Glob(filepath.Join(dir, "table=*", "tool=*", "run_id=*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range parts {
		run := hiveUnescape(strings.TrimPrefix(filepath.Base(p), "run_id="))
		tool := hiveUnescape(strings.TrimPrefix(filepath.Base(filepath.Dir(p)), "tool="))
		if r, ok := idx.Runs[run]; ok && r.Tool == tool {
			continue
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// checkRun compares a listed run's partitions with its row counts.
func checkRun(dir, run string, r DatasetRun) (string, error) {
	for _, t := range slices.Sorted(maps.Keys(r.Rows)) {
		want := r.Rows[t]
		rel, err := partitionPath(t, r.Tool, run)
		if err != nil {
			return "", err
		}
		files, _ := filepath.Glob(filepath.Join(dir, rel, "part-*.parquet"))
		if len(files) == 0 {
			if want > 0 {
				return fmt.Sprintf("listed with %d %s rows, and its %s partition is missing", want, t, t), nil
			}
			continue
		}
		var got int64
		for _, f := range files {
			rdr, err := file.OpenParquetFile(f, false)
			if err != nil {
				return fmt.Sprintf("%s: unreadable: %v", t, err), nil
			}
			got += rdr.NumRows()
			rdr.Close()
		}
		if got != want {
			return fmt.Sprintf("listed with %d %s rows, and its partition holds %d", want, t, got), nil
		}
	}
	return "", nil
}
