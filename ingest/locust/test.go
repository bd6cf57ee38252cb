package locust

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// A test is one Locust test (one locust --csv PREFIX run) as the files
// given of it describe it: one run, reported once every file is read.
type test struct {
	sink     ingest.Sink
	run      schemas.Run
	kinds    []string // of the files read, in order
	versions []string
	notes    []string

	haveStats      bool
	endpoints      []string // stats entries other than Aggregated
	endpointReqs   int64    // their requests and failures, summed
	endpointFails  int64
	failureEntries []string // entries of failures.csv rows
	failuresTotal  schemas.Opt[int64]
	historyWindow  [2]int64 // first and last history row, Unix seconds; zero when none
	historyReqs    schemas.Opt[int64]
	historyFails   schemas.Opt[int64]
	maxUsers       int64
}

// newTest starts the test whose identity comes from in.
func newTest(in *ingest.Input, sink ingest.Sink) *test {
	return &test{sink: sink, run: schemas.Run{
		ID: ingest.RunID("locust", in.SHA256(), 0), Tool: "locust", SourcePath: in.Path, SourceSHA256: in.SHA256(),
		Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalClosedLoop,
		Labels: map[string]string{"locust_prefix": prefix(in.Path)},
	}}
}

func (t *test) note(s string) { t.notes = append(t.notes, s) }

func (t *test) flag(f string) {
	if !slices.Contains(t.run.Flags, f) {
		t.run.Flags = append(t.run.Flags, f)
	}
}

// emit completes the run from what the files said and reports it.
func (t *test) emit() error {
	run := &t.run
	run.Format = kindTest
	if len(t.kinds) == 1 {
		run.Format = t.kinds[0]
	}
	run.ToolVersion = t.versions[0]
	for _, v := range t.versions[1:] {
		if v != run.ToolVersion && strings.Contains(v, "2.44") {
			run.ToolVersion = v // the failures file's columns date it most narrowly
		}
	}
	if w := t.historyWindow; w[1] > 0 {
		run.DurationS = schemas.Some(float64(w[1] - w[0]))
		run.WindowStart = schemas.Some(time.Unix(w[0], 0).UTC())
		run.WindowEnd = schemas.Some(time.Unix(w[1], 0).UTC())
		run.Labels["window"] = "first to last history row (1-second resolution)"
	}
	if t.maxUsers > 0 {
		run.Labels["max_users"] = strconv.FormatInt(t.maxUsers, 10)
	}
	if !t.haveStats {
		run.NumPrompts, run.Failed = t.historyReqs, t.historyFails
		if run.NumPrompts.OK && run.Failed.OK && run.Failed.V <= run.NumPrompts.V {
			run.Completed = schemas.Some(run.NumPrompts.V - run.Failed.V)
		}
		if !run.Failed.OK {
			run.Failed = t.failuresTotal
		}
	}
	if len(t.endpoints) > 0 {
		run.Labels["endpoints"] = strconv.Itoa(len(t.endpoints))
		if !run.NumPrompts.OK && t.haveStats {
			// No Aggregated row: Locust's is the sum of the entries.
			run.NumPrompts, run.Failed = schemas.Some(t.endpointReqs), schemas.Some(t.endpointFails)
			run.Completed = schemas.Some(t.endpointReqs - t.endpointFails)
			run.Labels["counts"] = "sum of the endpoints (no Aggregated row)"
		}
	}
	if len(t.notes) == len(t.kinds) {
		run.Flags = append(run.Flags, "no_rows")
		run.Labels["note"] = strings.Join(t.notes, "; ")
	}
	t.crossCheck()
	slices.Sort(run.Flags)
	return t.sink.Run(run)
}

// crossCheck warns where the files of one test disagree in what can only
// agree: the failures file's total with the stats' failure count, and the
// history's last totals, which run up to the stats' final ones.
func (t *test) crossCheck() {
	run := &t.run
	if t.haveStats && t.failuresTotal.OK && run.Failed.OK && t.failuresTotal.V != run.Failed.V {
		t.sink.Warn(fmt.Sprintf("the failures file counts %d failures, the stats' Aggregated row %d", t.failuresTotal.V, run.Failed.V))
	}
	if t.haveStats && t.historyReqs.OK && run.NumPrompts.OK && t.historyReqs.V > run.NumPrompts.V {
		t.sink.Warn(fmt.Sprintf("the history's last row counts %d requests, more than the stats' final %d", t.historyReqs.V, run.NumPrompts.V))
	}
}

// One test, several files (docs/formats/locust.md, "One test, four
// files"): locust --csv PREFIX writes PREFIX_stats.csv,
// PREFIX_stats_history.csv, PREFIX_failures.csv and PREFIX_exceptions.csv
// into one directory. The files of one PREFIX and directory are one test;
// their contents must agree: every entry of the failures is an entry of
// the stats, and the failures' total is the stats' failure count.

var _ ingest.GroupFormat = Format{}

const kindTest = "locust-test" // several files of one test

// suffixes of each kind's file name.
var suffixes = map[string]string{
	kindStats: "_stats.csv", kindHistory: "_stats_history.csv", kindFailures: "_failures.csv", kindExceptions: "_exceptions.csv",
}

func fileKind(c *ingest.Candidate) (string, string, bool) {
	kind := headerOf(c.Head).kind()
	suf, ok := suffixes[kind]
	if !ok {
		return "", "", false
	}
	stem, ok := ingest.Stem(c.Path, suf)
	if !ok {
		return "", "", false
	}
	return kind, stem, true
}

// Group puts the files of one test together.
func (Format) Group(files []*ingest.Candidate) ([][]int, error) {
	gs, err := ingest.GroupByStem(files, fileKind, []string{kindStats, kindHistory, kindFailures, kindExceptions})
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if err := confirmTest(files, g); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// confirmTest reads a group's stats and failures files (small: one row
// per entry) and checks that they describe one test.
func confirmTest(files []*ingest.Candidate, g []int) error {
	var stats, failures *ingest.Candidate
	for _, i := range g {
		switch k, _, _ := fileKind(files[i]); k {
		case kindStats:
			stats = files[i]
		case kindFailures:
			failures = files[i]
		}
	}
	if stats == nil || failures == nil {
		return nil
	}
	st, err := readTestFiles(stats)
	if err != nil {
		return nil // Read reports what is wrong with the file
	}
	fl, err := readTestFiles(failures)
	if err != nil {
		return nil
	}
	for _, e := range fl.failureEntries {
		if !slices.Contains(st.endpoints, e) && e != "Aggregated" {
			return ingest.GroupMismatch(stats.Path, failures.Path, "endpoints", strings.Join(st.endpoints, ", "), e)
		}
	}
	if fl.failuresTotal.OK && st.run.Failed.OK && fl.failuresTotal.V > st.run.Failed.V {
		return ingest.GroupMismatch(stats.Path, failures.Path, "failure count",
			strconv.FormatInt(st.run.Failed.V, 10)+" in the stats", strconv.FormatInt(fl.failuresTotal.V, 10)+" in the failures")
	}
	return nil
}

// readTestFiles reads candidates into a test whose records are discarded.
func readTestFiles(cs ...*ingest.Candidate) (*test, error) {
	t := &test{sink: ingest.Discard}
	for _, c := range cs {
		if err := t.read(context.Background(), c.Input()); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ReadGroup reads the files of one test as one run.
func (Format) ReadGroup(ctx context.Context, files []*ingest.Input, sink ingest.Sink) error {
	t := newTest(files[0], sink)
	for _, in := range files {
		if err := t.read(ctx, in); err != nil {
			return err
		}
	}
	if err := t.emit(); err != nil {
		return err
	}
	sink.Describe(kindTest, "locust", t.run.ToolVersion)
	return nil
}
