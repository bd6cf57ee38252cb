package aiperf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/ingest"
)

// Files of one run given as files (docs/formats/aiperf.md, "One run,
// several files"): AIPerf names them after one stem, profile_export by
// default and --profile-export-prefix P otherwise:
//
//	profile_export.jsonl           P.jsonl                records
//	profile_export_aiperf.json     P.json (P_aiperf.json) summary
//	profile_export_aiperf.csv      P.csv (P_aiperf.csv)   summary, rounded
//	profile_export_aiperf_timeslices.{json,csv}  P_timeslices.{json,csv}
//	gpu_telemetry_export.jsonl     P_gpu_telemetry.jsonl  GPU telemetry
//
// Older AIPerf writes gpu_telemetry_export.jsonl whatever the prefix. The
// files of one directory with one stem (a trailing "profile_export"
// dropped, so that renamed copies like run1_profile_export.jsonl and
// run1_gpu_telemetry_export.jsonl pair up) are one run, read as the
// directory form reads an artifact set. A telemetry export under the
// default name joins the only other run of its directory. The contents
// must agree: the records start inside the summary's window, and the
// telemetry overlaps the run.

var _ ingest.GroupFormat = Format{}

// stemSuffixes are the name suffixes of each kind, longest first.
var stemSuffixes = map[string][]string{
	kindTelemetry:  {"gpu_telemetry_export.jsonl", "_gpu_telemetry.jsonl"},
	kindTimeslices: {"_aiperf_timeslices.json", "_timeslices.json"},
	kindSliceCSV:   {"_aiperf_timeslices.csv", "_timeslices.csv"},
	kindSummary:    {"_aiperf.json", ".json"},
	kindCSV:        {"_aiperf.csv", ".csv"},
	kindRecords:    {".jsonl"},
}

// groupRank orders a group's files: the summary first (the run's identity
// comes from it, as in the directory form).
var groupRank = []string{kindSummary, kindCSV, kindRecords, kindTelemetry, kindTimeslices, kindSliceCSV}

func fileKind(c *ingest.Candidate) (string, string, bool) {
	kind, _ := kindOf(c.Head)
	for _, suf := range stemSuffixes[kind] {
		if stem, ok := ingest.Stem(c.Path, suf); ok {
			stem = strings.TrimRight(strings.TrimSuffix(strings.ToLower(stem), "profile_export"), "_-.")
			return kind, stem, true
		}
	}
	if kind == "" {
		return "", "", false
	}
	// A name without the kind's suffix: its own stem.
	return kind, strings.ToLower(filepath.Base(c.Path)), true
}

// Group pairs the AIPerf files of one run (see above).
func (Format) Group(files []*ingest.Candidate) ([][]int, error) {
	groups, err := ingest.GroupByStem(files, fileKind, groupRank)
	if err != nil {
		return nil, err
	}
	groups = attachTelemetry(files, groups)
	for _, g := range groups {
		if err := confirmSet(files, g); err != nil {
			return nil, err
		}
	}
	return groups, nil
}

// attachTelemetry adds a lone gpu_telemetry_export.jsonl to the only group
// of its directory that has no telemetry.
func attachTelemetry(files []*ingest.Candidate, groups [][]int) [][]int {
	inGroup := map[int]bool{}
	for _, g := range groups {
		for _, i := range g {
			inGroup[i] = true
		}
	}
	for i, c := range files {
		kind, stem, _ := fileKind(c)
		if inGroup[i] || kind != kindTelemetry || stem != "" {
			continue
		}
		dir := filepath.Dir(c.Path)
		var runs []int // candidates for the telemetry: other files' groups or single files of the directory
		for gi, g := range groups {
			if filepath.Dir(files[g[0]].Path) == dir && !hasKind(files, g, kindTelemetry) {
				runs = append(runs, gi)
			}
		}
		var singles []int
		for j, o := range files {
			if k, _, _ := fileKind(o); j != i && !inGroup[j] && filepath.Dir(o.Path) == dir && k != kindTelemetry {
				singles = append(singles, j)
			}
		}
		switch {
		case len(runs) == 1 && len(singles) == 0:
			groups[runs[0]] = append(groups[runs[0]], i)
			inGroup[i] = true
		case len(runs) == 0 && len(singles) == 1:
			groups = append(groups, []int{singles[0], i})
			inGroup[i], inGroup[singles[0]] = true, true
		}
	}
	return groups
}

func hasKind(files []*ingest.Candidate, g []int, kind string) bool {
	for _, i := range g {
		if k, _, _ := fileKind(files[i]); k == kind {
			return true
		}
	}
	return false
}

// confirmSet checks that the files of a group describe one run: the
// records' first request starts inside the summary's window, and the
// telemetry's samples overlap the run (by more than the few seconds before
// and after it that AIPerf scrapes).
func confirmSet(files []*ingest.Candidate, g []int) error {
	var summary, records, telemetry *ingest.Candidate
	for _, i := range g {
		switch k, _, _ := fileKind(files[i]); k {
		case kindSummary:
			summary = files[i]
		case kindRecords:
			records = files[i]
		case kindTelemetry:
			telemetry = files[i]
		}
	}
	var start, end time.Time // the run's window, from the summary or the records
	if summary != nil {
		if w, ok := summaryWindow(summary); ok {
			start, end = w[0], w[1]
		}
	}
	if records != nil {
		if t, ok := firstNS(records.Head, "request_start_ns"); ok {
			if !start.IsZero() && (t.Before(start.Add(-time.Second)) || t.After(end.Add(time.Second))) {
				return ingest.GroupMismatch(summary.Path, records.Path, "time",
					"summary window "+start.Format(time.RFC3339)+" .. "+end.Format(time.RFC3339), "first record at "+t.Format(time.RFC3339))
			}
			if start.IsZero() {
				start, end = t, t
			}
		}
	}
	if telemetry != nil && !start.IsZero() {
		if t, ok := firstNS(telemetry.Head, "timestamp_ns"); ok {
			// AIPerf scrapes from before the warm-up to after the run.
			const slack = 10 * time.Minute
			if t.After(end.Add(slack)) || t.Before(start.Add(-time.Hour)) {
				other := records
				if summary != nil {
					other = summary
				}
				return ingest.GroupMismatch(other.Path, telemetry.Path, "time",
					"run "+start.Format(time.RFC3339)+" .. "+end.Format(time.RFC3339), "first telemetry sample at "+t.Format(time.RFC3339))
			}
		}
	}
	return nil
}

// summaryWindow reads a summary's min_request_timestamp and
// max_response_timestamp by reading the summary as Read does, into a sink
// that keeps nothing.
func summaryWindow(c *ingest.Candidate) ([2]time.Time, bool) {
	s, err := readSummaryFile(c.Input(), kindSummary, ingest.Discard)
	if err != nil || !s.run.WindowStart.OK || !s.run.WindowEnd.OK {
		return [2]time.Time{}, false
	}
	return [2]time.Time{s.run.WindowStart.V, s.run.WindowEnd.V}, true
}

// firstNS reads an integer nanosecond timestamp from the first JSON line of
// head: a top-level key or one under "metadata".
func firstNS(head []byte, key string) (time.Time, bool) {
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, len(head)), len(head)+1)
	if !sc.Scan() {
		return time.Time{}, false
	}
	var line map[string]json.RawMessage
	if json.Unmarshal(sc.Bytes(), &line) != nil {
		return time.Time{}, false
	}
	raw, ok := line[key]
	if !ok {
		var meta map[string]json.RawMessage
		if json.Unmarshal(line["metadata"], &meta) != nil {
			return time.Time{}, false
		}
		raw, ok = meta[key]
	}
	var ns int64
	if !ok || json.Unmarshal(raw, &ns) != nil || ns <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns).UTC(), true
}

// ReadGroup reads the files of one run as the directory form reads an
// artifact set.
func (Format) ReadGroup(ctx context.Context, files []*ingest.Input, sink ingest.Sink) error {
	s := artifactSet{asFiles: map[string]*ingest.Input{}}
	for _, in := range files {
		head, err := readHead(in)
		if err != nil {
			return err
		}
		kind, _ := kindOf(head)
		p := in.Path
		s.asFiles[p] = in
		switch kind {
		case kindSummary:
			s.summary = p
		case kindCSV:
			s.csv = p
		case kindRecords:
			s.records = p
		case kindTimeslices:
			s.slices = p
		case kindSliceCSV:
			s.sliceCSV = p
		case kindTelemetry:
			s.telemetry = p
		default:
			return &ingest.Error{File: p, Err: fmt.Errorf("not an AIPerf export")}
		}
	}
	v, err := readSet(ctx, s, sink)
	if err != nil {
		return err
	}
	sink.Describe(kindFiles, "aiperf", v)
	return nil
}
