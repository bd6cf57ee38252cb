package mlperf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// One run, two logs (docs/formats/mlperf.md, "One run, two logs"): LoadGen
// writes mlperf_log_summary.txt and mlperf_log_detail.txt of one run into
// one directory (a submission keeps them in <benchmark>/<Scenario>/
// performance/run_1/). Given together they are one run: the detail log's
// numbers (full precision), completed by what only the summary says, and
// the two must agree on the scenario, the mode, the SUT and the result.

var _ ingest.GroupFormat = Format{}

const formatPair = "mlperf-logs" // a summary and a detail log of one run

func fileKind(c *ingest.Candidate) (string, string, bool) {
	kind, suffix := formatDetail, "mlperf_log_detail.txt"
	if isSummary(c.Head) {
		kind, suffix = formatSummary, "mlperf_log_summary.txt"
	} else if isAccuracySummary(c.Head) {
		return "", "", false
	}
	stem, ok := ingest.Stem(c.Path, suffix)
	if !ok {
		return "", "", false
	}
	return kind, stem, true
}

// Group pairs the summary and detail log of each directory and stem.
func (Format) Group(files []*ingest.Candidate) ([][]int, error) {
	gs, err := ingest.GroupByStem(files, fileKind, []string{formatDetail, formatSummary})
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		d, s := files[g[0]], files[g[1]]
		dd, err1 := readCandidate(d, readDetail)
		sd, err2 := readCandidate(s, readSummary)
		if err1 != nil || err2 != nil {
			continue // Read reports what is wrong with the file
		}
		if err := agree(d.Path, s.Path, dd, sd); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// readCandidate reads a candidate with a reader, keeping nothing else.
func readCandidate(c *ingest.Candidate, read func(context.Context, string, io.Reader, ingest.Sink) (*logData, error)) (*logData, error) {
	rc, err := c.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return read(context.Background(), c.Path, rc, ingest.Discard)
}

// agree checks that a detail log and a summary describe one run.
func agree(detail, summary string, d, s *logData) error {
	for _, c := range []struct{ what, a, b string }{
		{"scenario", d.scenario, s.scenario},
		{"SUT name", d.labels["sut_name"], s.labels["sut_name"]},
		{"mode", d.labels["effective_test_mode"], s.labels["test_mode"]},
		{"validity", d.labels["result_validity"], s.labels["result_validity"]},
	} {
		if c.a != "" && c.b != "" && c.a != c.b {
			return ingest.GroupMismatch(detail, summary, c.what, c.a, c.b)
		}
	}
	for _, sm := range s.metrics {
		if sm.Stat != schemas.StatValue || !sm.Value.OK {
			continue
		}
		for _, dm := range d.metrics {
			if dm.MetricID == sm.MetricID && dm.Stat == schemas.StatValue && dm.Value.OK && !roundsTo(dm.Value.V, sm.Value.V) {
				return ingest.GroupMismatch(detail, summary, string(sm.MetricID), strconv.FormatFloat(dm.Value.V, 'g', -1, 64),
					strconv.FormatFloat(sm.Value.V, 'g', -1, 64))
			}
		}
	}
	return nil
}

// roundsTo reports whether the summary's printed value (two decimals, or
// six significant digits) is the detail log's, rounded.
func roundsTo(detail, summary float64) bool {
	return math.Abs(detail-summary) <= math.Max(5e-4*math.Abs(detail), 0.0051)
}

// fileSink names its file in the warnings and rejections of the second
// file of a pair.
type fileSink struct {
	ingest.Sink
	name string
}

func (s fileSink) Warn(msg string) { s.Sink.Warn(s.name + ": " + msg) }
func (s fileSink) Reject(r schemas.Rejection) {
	if r.Record == "" {
		r.Record = s.name
	}
	s.Sink.Reject(r)
}

// ReadGroup reads a detail log and its summary as one run.
func (Format) ReadGroup(ctx context.Context, files []*ingest.Input, sink ingest.Sink) error {
	if len(files) != 2 {
		return fmt.Errorf("mlperf: a group is a detail log and its summary, got %d files", len(files))
	}
	read := func(in *ingest.Input, r func(context.Context, string, io.Reader, ingest.Sink) (*logData, error)) (*logData, error) {
		rc, err := in.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return r(ctx, in.Path, rc, fileSink{sink, filepath.Base(in.Path)})
	}
	d, err := read(files[0], readDetail)
	if err != nil {
		return err
	}
	s, err := read(files[1], readSummary)
	if err != nil {
		return err
	}
	merge(d, s, files[1].Path, sink)
	d.format = formatPair
	return emit(files[0], d, sink)
}

// merge completes the detail log's data with what only the summary has,
// and warns where a statistic both give differs beyond the summary's
// rounding.
func merge(d, s *logData, summaryPath string, sink ingest.Sink) {
	var differ []string
	for _, sm := range s.metrics {
		pct := sm.Percentile.V
		i := slices.IndexFunc(d.metrics, func(m schemas.Metric) bool {
			return m.MetricID == sm.MetricID && m.Stat == sm.Stat && (m.Stat != schemas.StatP || m.Percentile.V == pct)
		})
		if i < 0 {
			sm.Note = strings.TrimPrefix(sm.Note+"; from the summary", "; ")
			d.metrics = append(d.metrics, sm)
			continue
		}
		dm := d.metrics[i]
		tol := 0.0 // nanosecond latencies print in full
		if sm.Unit != schemas.UnitSeconds {
			tol = math.Max(5e-4*math.Abs(dm.Value.V), 0.0051)
		}
		if dm.Value.OK && sm.Value.OK && math.Abs(dm.Value.V-sm.Value.V) > tol {
			differ = append(differ, fmt.Sprintf("%s %s (detail) against %s (summary)", sm.NativeName,
				strconv.FormatFloat(dm.Value.V, 'g', -1, 64), strconv.FormatFloat(sm.Value.V, 'g', -1, 64)))
		}
	}
	if len(differ) > 0 {
		ex := differ[:min(3, len(differ))]
		sink.Warn(fmt.Sprintf("%s: %d statistics differ from the detail log's beyond the summary's rounding; the detail log's are kept; e.g. %s",
			summaryPath, len(differ), strings.Join(ex, "; ")))
	}
	for k, v := range s.labels {
		if _, ok := d.labels[k]; !ok {
			d.labels[k] = v
		}
	}
	for _, f := range s.flags {
		d.flag(f)
	}
	if !d.token.OK {
		d.token = s.token
	}
}

// isAccuracySummary recognises the summary of an AccuracyOnly run: LoadGen
// logs no performance summary in that mode (RunAccuracyMode), so the file
// holds only the warning and error counts.
func isAccuracySummary(head []byte) bool {
	n := 0
	for line := range bytes.Lines(head) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if !reCount.Match(t) {
			return false
		}
		n++
	}
	return n > 0
}
