package schemas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func openOrFatal(t *testing.T, dir string) *Bundle {
	t.Helper()
	b, err := OpenBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runIDs(t *testing.T, b *Bundle) []string {
	t.Helper()
	runs, err := b.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestExportTraversal: run IDs and tools with ../ segments (issue 15:
// export removed a directory outside the dataset and created one there)
// are escaped as Hive escapes them, stay inside the dataset, and read back
// as they were.
func TestExportTraversal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644)
	r := sampleRuns()[1]
	r.ID = "x/../../../../victim"
	r2 := sampleRuns()[1]
	r2.ID, r2.Tool = "vllm-2", "../../../victim2"
	bundle := filepath.Join(dir, "evil.bundle")
	writeBundle(t, bundle, []Run{r, r2}, 3)
	ds := filepath.Join(dir, "ds")
	for _, replace := range []bool{false, true, true} {
		res, err := Export(ctx, openOrFatal(t, bundle), ds, ExportOptions{Replace: replace})
		if err != nil || len(res.Exported) != 2 {
			t.Fatalf("replace=%v: %+v %v", replace, res, err)
		}
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("the directory outside the dataset was touched: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "ds evil.bundle victim" {
		t.Errorf("export wrote outside the dataset: %v", names)
	}
	want := "table=requests/tool=vllm/run_id=x%2F..%2F..%2F..%2F..%2Fvictim/part-0.parquet"
	if _, err := os.Stat(filepath.Join(ds, want)); err != nil {
		t.Errorf("escaped partition: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ds, "table=runs/tool=..%2F..%2F..%2Fvictim2/run_id=vllm-2/part-0.parquet")); err != nil {
		t.Errorf("escaped tool: %v", err)
	}
	if got := runIDs(t, openOrFatal(t, ds)); !slices.Equal(got, []string{"vllm-2", "x/../../../../victim"}) {
		t.Errorf("runs read back %q", got)
	}
	if probs, err := CheckDataset(ctx, ds, false); err != nil || len(probs) != 0 {
		t.Errorf("check: %v %v", probs, err)
	}
	for _, v := range []string{"", "a", "x/../y", "%2F", "a=b", "\x00\r\n", "é/ü", `\..\`} {
		if got := hiveUnescape(hiveEscape(v)); got != v || strings.ContainsAny(hiveEscape(v), `/\`) {
			t.Errorf("escape %q: %q -> %q", v, hiveEscape(v), got)
		}
	}
	if _, err := partitionPath(TableRuns, "", "r"); err == nil {
		t.Error("empty tool accepted")
	}
}

// TestHelperExport is not a test: TestConcurrentExports runs the test
// binary with VERDICT_TEST_EXPORT=bundle,dataset to export from another
// process.
func TestHelperExport(t *testing.T) {
	spec := os.Getenv("VERDICT_TEST_EXPORT")
	if spec == "" {
		t.Skip("helper process of TestConcurrentExports")
	}
	bundle, ds, _ := strings.Cut(spec, ",")
	b, err := OpenBundle(bundle)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if _, err := Export(context.Background(), b, ds, ExportOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	os.Exit(0)
}

// TestConcurrentExports: several processes export into one dataset at
// once, into a new one and into an existing one; every run of every
// process is listed afterwards (issue 15: 10 of 10 trials lost a run).
func TestConcurrentExports(t *testing.T) {
	const procs, trials = 4, 3
	dir := t.TempDir()
	var bundles []string
	for i := range procs {
		r := sampleRuns()[1]
		r.ID = fmt.Sprintf("vllm-%d", i)
		p := filepath.Join(dir, fmt.Sprintf("b%d.bundle", i))
		writeBundle(t, p, []Run{r}, 50)
		bundles = append(bundles, p)
	}
	for trial := range trials {
		for _, fresh := range []bool{true, false} {
			ds := filepath.Join(dir, fmt.Sprintf("ds-%d-%v", trial, fresh))
			want := []string{}
			if !fresh { // an existing dataset with a run of its own
				r := sampleRuns()[0]
				seed := filepath.Join(dir, fmt.Sprintf("seed-%d.bundle", trial))
				writeBundle(t, seed, []Run{r}, 5)
				if _, err := Export(context.Background(), openOrFatal(t, seed), ds, ExportOptions{}); err != nil {
					t.Fatal(err)
				}
				want = append(want, r.ID)
			}
			var wg sync.WaitGroup
			errs := make([]error, procs)
			for i, b := range bundles {
				want = append(want, fmt.Sprintf("vllm-%d", i))
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(os.Args[0], "-test.run=^TestHelperExport$")
					cmd.Env = append(os.Environ(), "VERDICT_TEST_EXPORT="+b+","+ds)
					if out, err := cmd.CombinedOutput(); err != nil {
						errs[i] = fmt.Errorf("%v: %s", err, out)
					}
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			slices.Sort(want)
			if got := runIDs(t, openOrFatal(t, ds)); !slices.Equal(got, want) {
				t.Errorf("trial %d (new dataset %v): runs %v, want %v", trial, fresh, got, want)
			}
			if probs, err := CheckDataset(context.Background(), ds, false); err != nil || len(probs) != 0 {
				t.Errorf("trial %d: check %v %v", trial, probs, err)
			}
		}
	}
}

// TestInterruptedExport stops an export --replace after it committed and
// after each move, as a crash would: every listed run keeps whole
// partitions for a glob reader, verdict refuses to read the half-moved
// dataset and says how to finish it, and the next export (or --repair)
// completes it.
func TestInterruptedExport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	runs := sampleRuns()
	a := filepath.Join(dir, "a.bundle")
	writeBundle(t, a, runs, 10)
	b2 := filepath.Join(dir, "b.bundle") // the same runs with other requests
	writeBundle(t, b2, runs, 20)
	for _, stop := range []string{"planned", "moved 0", "moved 2", "moved 4"} {
		for _, finish := range []string{"export", "repair"} {
			ds := filepath.Join(dir, "ds-"+strings.ReplaceAll(stop, " ", "")+"-"+finish)
			if _, err := Export(ctx, openOrFatal(t, a), ds, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			crash := errors.New("crash")
			exportHook = func(step string) error {
				if step == stop {
					return crash
				}
				return nil
			}
			_, err := Export(ctx, openOrFatal(t, b2), ds, ExportOptions{Replace: true})
			exportHook = func(string) error { return nil }
			if !errors.Is(err, crash) {
				t.Fatalf("%s: %v", stop, err)
			}
			// Every listed run still has whole request and runs files.
			for _, r := range runs {
				for _, table := range []string{TableRequests, TableRuns, TableMetrics} {
					rel, _ := partitionPath(table, r.Tool, r.ID)
					if _, err := os.Stat(filepath.Join(ds, rel, "part-0.parquet")); err != nil {
						t.Errorf("%s: run %s lost its %s: %v", stop, r.ID, table, err)
					}
				}
			}
			if _, err := OpenBundle(ds); err == nil || !strings.Contains(err.Error(), "export --repair") {
				t.Errorf("%s: opened a half-moved dataset: %v", stop, err)
			}
			probs, err := CheckDataset(ctx, ds, false)
			if err != nil || len(probs) != 1 || !strings.Contains(probs[0].String(), "completed by --repair") {
				t.Errorf("%s: check %v %v", stop, probs, err)
			}
			if finish == "repair" {
				_, err = CheckDataset(ctx, ds, true)
			} else {
				_, err = Export(ctx, openOrFatal(t, a), filepath.Join(ds), ExportOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			d := openOrFatal(t, ds)
			n := 0
			d.Requests(ctx, func(*Request) error { n++; return nil })
			if n != 40 {
				t.Errorf("%s/%s: %d requests after completion, want the new 40", stop, finish, n)
			}
			if probs, err := CheckDataset(ctx, ds, false); err != nil || len(probs) != 0 {
				t.Errorf("%s/%s: still %v %v", stop, finish, probs, err)
			}
		}
	}
}

// TestCheckRepair: leftovers that older exports left (a staging
// directory without a plan, partitions of an unlisted run, a listed run
// without its requests) are found, and repaired.
func TestCheckRepair(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	runs := sampleRuns()
	a := filepath.Join(dir, "a.bundle")
	writeBundle(t, a, runs, 10)
	ds := filepath.Join(dir, "ds")
	if _, err := Export(ctx, openOrFatal(t, a), ds, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ds, stagingPrefix+"123", "table=runs"), 0o755)
	orphan := filepath.Join(ds, "table=requests/tool=vllm/run_id=vllm-99")
	os.MkdirAll(orphan, 0o755)
	os.WriteFile(filepath.Join(orphan, "part-0.parquet"), []byte("x"), 0o644)
	rel, _ := partitionPath(TableRequests, runs[1].Tool, runs[1].ID)
	os.RemoveAll(filepath.Join(ds, rel))
	probs, err := CheckDataset(ctx, ds, false)
	if err != nil || len(probs) != 3 {
		t.Fatalf("check: %v %v", probs, err)
	}
	for i, want := range []string{"stopped before it committed", "does not list", "requests partition is missing"} {
		if !strings.Contains(probs[i].Problem, want) {
			t.Errorf("problem %d: %v, want %q", i, probs[i], want)
		}
	}
	if _, err := CheckDataset(ctx, ds, true); err != nil {
		t.Fatal(err)
	}
	if probs, err := CheckDataset(ctx, ds, false); err != nil || len(probs) != 0 {
		t.Errorf("after repair: %v %v", probs, err)
	}
	if got := runIDs(t, openOrFatal(t, ds)); !slices.Equal(got, []string{runs[0].ID}) {
		t.Errorf("runs after repair %v", got)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("orphan partition kept")
	}
}

// TestConcurrentWriteCosts: costs written into one bundle at once leave a
// manifest that counts the rows of the costs.parquet beside it, and no
// temporary file (issue 15: one fixed temporary manifest name).
func TestConcurrentWriteCosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	writeBundle(t, dir, sampleRuns()[:1], 3)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows := make([]CostRow, i+1)
			for j := range rows {
				rows[j] = CostRow{RunID: "vllm-000000000001", Source: "quote", Sort: "line", Item: fmt.Sprint(j), Currency: "USD"}
			}
			if err := WriteCosts(dir, rows); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b := openOrFatal(t, dir)
	got, err := b.Costs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range b.Manifest.Tables {
		if tf.Name == TableCosts && tf.Rows != int64(len(got)) {
			t.Errorf("manifest says %d cost rows, costs.parquet holds %d", tf.Rows, len(got))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestHelperReplaceCrash is not a test: TestBundleRecovery runs the test
// binary with VERDICT_TEST_CRASH=dest to replace a bundle and exit between
// the two renames of the fallback, as a crash would.
func TestHelperReplaceCrash(t *testing.T) {
	dest := os.Getenv("VERDICT_TEST_CRASH")
	if dest == "" {
		t.Skip("helper process of TestBundleRecovery")
	}
	exchange = func(a, b string) error { return errors.New("no exchange") }
	bundleHook = func(step string) error {
		if step == "moved aside" {
			os.Exit(7)
		}
		return nil
	}
	r := sampleRuns()[1]
	r.ID = "new-run"
	replaceBundle(t, dest, r)
	os.Exit(0)
}

// replaceBundle writes a bundle of one run over dest.
func replaceBundle(t *testing.T, dest string, r Run) {
	t.Helper()
	w, err := CreateBundle(dest, BundleOptions{Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(r)
	if err := w.Commit(Manifest{}); err != nil {
		t.Fatal(err)
	}
}

// TestBundleRecovery: `ingest --force` that dies between moving the old
// bundle aside and moving the new one in (issue 15: no bundle at the
// destination afterwards) is completed by the next writer; one whose new
// bundle is gone is undone; abandoned temporary directories are removed
// and reported; and with the atomic exchange nothing is left at all.
func TestBundleRecovery(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "a.bundle")
	writeBundle(t, dest, sampleRuns()[:1], 3)
	crash := func() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperReplaceCrash$")
		cmd.Env = append(os.Environ(), "VERDICT_TEST_CRASH="+dest)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 7 {
			t.Fatalf("helper: %v %s", err, out)
		}
		if _, err := os.Stat(dest); err == nil {
			t.Fatal("the crash left the destination in place")
		}
	}
	// Overwrite writes the helper's bundle over the first one.
	writeOverwrite := func(runID string) *BundleWriter {
		w, err := CreateBundle(dest, BundleOptions{Overwrite: true})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	crash()
	w := writeOverwrite("")
	if len(w.Recovered) != 1 || !strings.Contains(w.Recovered[0], "completed an interrupted replacement") {
		t.Errorf("recovered %v", w.Recovered)
	}
	w.Abort()
	if got := runIDs(t, openOrFatal(t, dest)); !slices.Equal(got, []string{"new-run"}) {
		t.Errorf("after roll-forward: %v", got)
	}
	// The same crash with the new bundle gone: the old one is put back.
	crash()
	olds, _ := filepath.Glob(filepath.Join(dir, ".a.bundle.tmp-*.old"))
	os.RemoveAll(strings.TrimSuffix(olds[0], ".old"))
	if _, err := OpenBundle(dest); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("open after the crash: %v", err)
	}
	w = writeOverwrite("")
	if len(w.Recovered) != 1 || !strings.Contains(w.Recovered[0], "restored") {
		t.Errorf("recovered %v", w.Recovered)
	}
	w.Abort()
	if got := runIDs(t, openOrFatal(t, dest)); !slices.Equal(got, []string{"new-run"}) {
		t.Errorf("after roll-back: %v", got)
	}
	// An abandoned temporary directory is removed and reported.
	os.MkdirAll(filepath.Join(dir, ".a.bundle.tmp-123", "x"), 0o755)
	w = writeOverwrite("")
	if len(w.Recovered) != 1 || !strings.Contains(w.Recovered[0], "removed") {
		t.Errorf("recovered %v", w.Recovered)
	}
	w.Abort()
	// A replacement with the exchange leaves nothing beside the bundle.
	replaceBundle(t, dest, sampleRuns()[0])
	if left, _ := filepath.Glob(filepath.Join(dir, ".a.bundle*")); len(left) > 0 {
		t.Errorf("left beside the bundle: %v", left)
	}
}
