package vllm

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// A `vllm bench sweep serve` directory (docs/formats/vllm-bench.md
// section 1) holds one directory per combination of serve and bench
// settings, SERVE--<serve settings>-BENCH--<bench settings>, each with its
// run=<i>.json files (a `vllm bench serve` result plus run_number and the
// swept settings), a summary.json that repeats the successful runs, and
// at the top a summary.csv of every run. The runs of a sweep are read as
// runs, the swept settings as labels (sweep.serve.<key>, sweep.bench.<key>)
// with the combination and run number; summary.json and summary.csv are
// checked against the run files rather than read twice.

var (
	runFile    = regexp.MustCompile(`^run=(\d+)\.json$`)
	settingKey = regexp.MustCompile(`(?:^|-)([A-Za-z_][A-Za-z0-9_.]*)=`)
)

// combo is one combination directory.
type combo struct {
	dir          string
	serve, bench []string // swept setting names
	runs         []string // run=<i>.json, in run order
	summary      string
	failures     []string
	warmup       string // warmup.json: the warm-up run, not a run of the sweep
}

func scanCombo(dir string) (combo, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return combo{}, false
	}
	c := combo{dir: dir}
	var nums []int
	byNum := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		switch m := runFile.FindStringSubmatch(name); {
		case e.IsDir():
		case m != nil:
			n, _ := strconv.Atoi(m[1])
			nums, byNum[n] = append(nums, n), filepath.Join(dir, name)
		case name == "summary.json":
			c.summary = filepath.Join(dir, name)
		case name == "warmup.json":
			c.warmup = filepath.Join(dir, name)
		case strings.HasSuffix(name, ".failure.json"):
			c.failures = append(c.failures, filepath.Join(dir, name))
		}
	}
	sort.Ints(nums)
	for _, n := range nums {
		c.runs = append(c.runs, byNum[n])
	}
	c.serve, c.bench = comboSettings(filepath.Base(dir))
	return c, len(c.runs) > 0
}

// comboSettings splits a combination's name, SERVE--<a=1-b=2>-BENCH--<c=3>
// (either side may be missing), into the names of its swept settings.
func comboSettings(name string) (serve, bench []string) {
	rest := name
	if i := strings.Index(rest, "BENCH--"); i >= 0 {
		bench, rest = settingNames(rest[i+len("BENCH--"):]), rest[:i]
	}
	if strings.HasPrefix(rest, "SERVE--") {
		serve = settingNames(strings.TrimSuffix(rest[len("SERVE--"):], "-"))
	}
	return serve, bench
}

func settingNames(s string) []string {
	var out []string
	for _, m := range settingKey.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// sweepCombos finds the combinations of dir: dir itself, or its
// subdirectories.
func sweepCombos(dir string) []combo {
	return ingest.ArtifactSets(dir, scanCombo)
}

var _ ingest.DirFormat = Format{}

// DetectDir recognizes a sweep directory or one of its combinations.
func (Format) DetectDir(dir string) int {
	if len(sweepCombos(dir)) > 0 {
		return 80
	}
	return 0
}

// ReadDir reads a sweep: every run file of every combination.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	combos := sweepCombos(dir)
	if len(combos) == 0 {
		return &ingest.Error{File: dir, Err: errors.New("no vllm bench sweep runs (run=<i>.json) in this directory or its combination directories")}
	}
	s := &sweepSink{Sink: sink, reported: map[string][]schemas.Metric{}}
	versions := map[string]bool{}
	for _, c := range combos {
		for _, path := range c.runs {
			if err := ctx.Err(); err != nil {
				return err
			}
			in, err := ingest.FileInput(path)
			if err != nil {
				return err
			}
			s.begin(c, path)
			if err := (Format{}).Read(ctx, in, s); err != nil {
				return err
			}
			versions[s.version] = true
		}
		for _, f := range c.failures {
			sink.Warn(f + ": a failed run of the sweep (--continue-on-error); it has no results")
		}
		if c.warmup != "" {
			// docs/formats/vllm-bench.md section 1: with
			// --warmup-num-prompts the sweep writes the warm-up's result
			// beside the runs; it is not a run, and every input is read or
			// reported.
			sink.Warn(c.warmup + ": the warm-up of the combination (--warmup-num-prompts), not a run of the sweep; not read")
		}
		if c.summary != "" {
			if err := checkSummaryJSON(ctx, c, s); err != nil {
				return err
			}
		}
	}
	if csvPath := filepath.Join(dir, "summary.csv"); fileExists(csvPath) {
		if err := checkSummaryCSV(csvPath, s); err != nil {
			return err
		}
	}
	version := "several (see each run's tool_version)"
	if len(versions) == 1 {
		for v := range versions {
			version = v
		}
	}
	sink.Describe("vllm-sweep", "vllm", version)
	return nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// sweepSink labels each run of a combination with its swept settings and
// keeps the reported rows, to check the summaries against.
type sweepSink struct {
	ingest.Sink
	combo    combo
	path     string
	version  string
	reported map[string][]schemas.Metric // by run file
	runs     map[string]schemas.Run
}

func (s *sweepSink) begin(c combo, path string) { s.combo, s.path = c, path }

func (s *sweepSink) Describe(format, tool, version string) { s.version = version }

// Warn drops the unknown-key warning of a swept setting: in a sweep run it
// is expected.
func (s *sweepSink) Warn(msg string) {
	for _, k := range append(append([]string{}, s.combo.serve...), s.combo.bench...) {
		if strings.Contains(msg, fmt.Sprintf("unknown key %q", k)) {
			return
		}
	}
	s.Sink.Warn(msg)
}

func (s *sweepSink) Metric(m *schemas.Metric) error {
	if m.Source == schemas.SourceReported {
		s.reported[s.path] = append(s.reported[s.path], *m)
	}
	return s.Sink.Metric(m)
}

func (s *sweepSink) Run(r *schemas.Run) error {
	run := *r
	labels := map[string]string{"sweep.experiment": filepath.Base(filepath.Dir(s.combo.dir)), "sweep.combination": filepath.Base(s.combo.dir)}
	for k, v := range r.Labels {
		labels[k] = v
	}
	for _, side := range []struct {
		name string
		keys []string
	}{{"serve", s.combo.serve}, {"bench", s.combo.bench}} {
		for _, k := range side.keys {
			if v, ok := r.Labels[k]; ok {
				labels["sweep."+side.name+"."+k] = v
				delete(labels, k)
			} else {
				labels["sweep."+side.name+"."+k] = settingValue(s.combo.dir, k)
			}
		}
	}
	if n, ok := labels["run_number"]; ok {
		labels["sweep.run_number"] = n
		delete(labels, "run_number")
	}
	run.Labels = labels
	if s.runs == nil {
		s.runs = map[string]schemas.Run{}
	}
	s.runs[s.path] = run
	return s.Sink.Run(&run)
}

// settingValue reads a swept setting's value from the combination's
// name, for settings the run file does not repeat (serve settings).
func settingValue(dir, key string) string {
	name := filepath.Base(dir)
	i := strings.Index(name, key+"=")
	if i < 0 {
		return ""
	}
	v := name[i+len(key)+1:]
	if j := settingKey.FindStringIndex(v); j != nil {
		v = v[:j[0]]
	}
	return strings.TrimSuffix(strings.SplitN(v, "-BENCH--", 2)[0], "-")
}

// checkSummaryJSON reads a combination's summary.json (a JSON array of the
// successful runs) into a collector and checks that each of its runs
// repeats its run file.
func checkSummaryJSON(ctx context.Context, c combo, s *sweepSink) error {
	in, err := ingest.FileInput(c.summary)
	if err != nil {
		return err
	}
	col := &collect{Sink: ingest.Discard}
	if err := (Format{}).Read(ctx, in, col); err != nil {
		return err
	}
	byRun := map[string]string{}
	for _, p := range c.runs {
		if r, ok := s.runs[p]; ok {
			byRun[r.Labels["sweep.run_number"]] = p
		}
	}
	for _, r := range col.runs {
		path, ok := byRun[r.Labels["run_number"]]
		if !ok {
			s.Sink.Warn(fmt.Sprintf("%s: run_number %s has no run file; the summary's copy is not ingested", c.summary, r.Labels["run_number"]))
			continue
		}
		for _, d := range diffRows(col.metrics[r.ID], s.reported[path]) {
			s.Sink.Warn(fmt.Sprintf("%s: run_number %s differs from %s: %s", c.summary, r.Labels["run_number"], filepath.Base(path), d))
		}
	}
	return nil
}

// collect is a sink that keeps runs and their reported rows, for checks;
// the rest goes to ingest.Discard.
type collect struct {
	ingest.Sink
	runs    []schemas.Run
	metrics map[string][]schemas.Metric
}

func (c *collect) Run(r *schemas.Run) error { c.runs = append(c.runs, *r); return nil }
func (c *collect) Metric(m *schemas.Metric) error {
	if c.metrics == nil {
		c.metrics = map[string][]schemas.Metric{}
	}
	if m.Source == schemas.SourceReported {
		c.metrics[m.RunID] = append(c.metrics[m.RunID], *m)
	}
	return nil
}

// diffRows compares two runs' reported rows by native name.
func diffRows(a, b []schemas.Metric) []string {
	idx := map[string]schemas.Metric{}
	for _, m := range b {
		idx[m.NativeName+"/"+m.Stat] = m
	}
	var out []string
	for _, m := range a {
		o, ok := idx[m.NativeName+"/"+m.Stat]
		if !ok || o.Value.OK != m.Value.OK || (m.Value.OK && !near(o.Value.V, m.Value.V)) {
			out = append(out, fmt.Sprintf("%s %v vs %v", m.NativeName, m.Value, o.Value))
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// checkSummaryCSV checks summary.csv (pandas DataFrame.to_csv of every
// run: an unnamed index column, then the payload's keys) against the run
// files: each row is matched by date and run_number, and each column that
// is a reported statistic must hold its value (ms columns in ms).
func checkSummaryCSV(path string, s *sweepSink) error {
	f, err := os.Open(path)
	if err != nil {
		return &ingest.Error{File: path, Err: err}
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return &ingest.Error{File: path, Line: 1, Err: fmt.Errorf("malformed CSV: %v", err)}
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	runs := map[string]string{} // date/run_number -> run file
	for p, r := range s.runs {
		runs[r.ToolDate+"/"+r.Labels["sweep.run_number"]] = p
	}
	checked, line := 0, 1
	for {
		rec, err := cr.Read()
		line++
		if err == io.EOF {
			break
		}
		if err != nil {
			return &ingest.Error{File: path, Line: line, Err: fmt.Errorf("malformed CSV: %v", err)}
		}
		get := func(k string) string {
			if i, ok := col[k]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		p, ok := runs[get("date")+"/"+get("run_number")]
		if !ok {
			s.Sink.Warn(fmt.Sprintf("%s:%d: no run file with date %s and run_number %s", path, line, get("date"), get("run_number")))
			continue
		}
		for _, m := range s.reported[p] {
			text := get(m.NativeName)
			v, err := strconv.ParseFloat(text, 64)
			if text == "" || err != nil || !m.Value.OK || m.Stat == schemas.StatObservation {
				continue
			}
			if strings.HasSuffix(m.NativeName, "_ms") {
				v /= 1000
			}
			checked++
			if !near(v, m.Value.V) {
				s.Sink.Warn(fmt.Sprintf("%s:%d: %s is %s, the run file gives %v", path, line, m.NativeName, text, m.Value.V))
			}
		}
	}
	if checked == 0 {
		s.Sink.Warn(path + ": no value of summary.csv could be checked against the run files")
	}
	return nil
}
