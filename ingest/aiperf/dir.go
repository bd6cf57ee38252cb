package aiperf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// An artifacts directory is artifacts/<model>-<service>-<endpoint>-<stimulus>/
// with profile_export.jsonl, profile_export_aiperf.json and .csv,
// profile_export_aiperf_timeslices.*, gpu_telemetry_export.jsonl and
// files verdict does not read (inputs.json, profile_export_raw.jsonl,
// server metrics, logs/). Files are recognized by content, so
// --profile-export-prefix names are found. A directory of such
// directories (a sweep) is read set by set.

type artifactSet struct {
	dir                                     string
	summary, csv, records, slices, sliceCSV string
	telemetry                               string
	others                                  []string
	// asFiles holds the inputs of a set given as files (see group.go),
	// by path; nil for a directory.
	asFiles map[string]*ingest.Input
}

// input opens one file of the set.
func (s artifactSet) input(path string) (*ingest.Input, error) {
	if in, ok := s.asFiles[path]; ok {
		return in, nil
	}
	return fileInput(path)
}

// files lists the set's files that are read, in reading order.
func (s artifactSet) files() []string {
	var out []string
	csv, sliceCSV := s.csv, s.sliceCSV
	if s.summary != "" {
		csv = "" // not read: it repeats the JSON
	}
	if s.slices != "" {
		sliceCSV = ""
	}
	for _, p := range []string{s.summary, csv, s.records, s.telemetry, s.slices, sliceCSV} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func fileInput(path string) (*ingest.Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, &ingest.Error{File: path, Err: err}
	}
	if n == 0 {
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("empty file")}
	}
	return ingest.NewInput(path, n, hex.EncodeToString(h.Sum(nil)), func(off int64) (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}), nil
}

func fileHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, ingest.HeadSize)
	n, _ := io.ReadFull(f, b)
	return b[:n]
}

func scanSet(dir string) (artifactSet, bool) {
	s := artifactSet{dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s, false
	}
	pick := func(cur *string, p, preferred string) bool {
		if *cur == "" || filepath.Base(p) == preferred {
			if *cur != "" {
				s.others = append(s.others, *cur)
			}
			*cur = p
			return true
		}
		return false
	}
	for _, de := range entries {
		if !de.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, de.Name())
		kind, _ := kindOf(fileHead(p))
		ok := false
		switch kind {
		case kindSummary:
			ok = pick(&s.summary, p, "profile_export_aiperf.json")
		case kindCSV:
			ok = pick(&s.csv, p, "profile_export_aiperf.csv")
		case kindRecords:
			ok = pick(&s.records, p, "profile_export.jsonl")
		case kindTimeslices:
			ok = pick(&s.slices, p, "profile_export_aiperf_timeslices.json")
		case kindSliceCSV:
			ok = pick(&s.sliceCSV, p, "profile_export_aiperf_timeslices.csv")
		case kindTelemetry:
			ok = pick(&s.telemetry, p, "gpu_telemetry_export.jsonl")
		}
		if !ok {
			s.others = append(s.others, p)
		}
	}
	return s, s.summary != "" || s.csv != "" || s.records != "" || s.slices != "" || s.sliceCSV != "" || s.telemetry != ""
}

// sets finds the artifact sets in dir: dir itself, or its subdirectories.
func sets(dir string) []artifactSet { return ingest.ArtifactSets(dir, scanSet) }

// DetectDir recognizes an AIPerf artifacts directory (or a directory of
// them) by the content of its files.
func (Format) DetectDir(dir string) int {
	if len(sets(dir)) > 0 {
		return 90
	}
	return 0
}

// ReadDir reads an artifacts directory: per set, the summary (JSON, else
// CSV) gives the run and its reported statistics, the records its requests
// and recomputed statistics (compared with the summary's), the telemetry
// its GPU samples, and the timeslices one run per slice.
func (Format) ReadDir(ctx context.Context, dir string, sink ingest.Sink) error {
	ss := sets(dir)
	if len(ss) == 0 {
		return &ingest.Error{File: dir, Err: fmt.Errorf("no AIPerf exports in the directory")}
	}
	v, err := ingest.ReadSets(ctx, ss, func(s artifactSet) (string, error) { return readSet(ctx, s, sink) })
	if err != nil {
		return err
	}
	sink.Describe(kindDir, "aiperf", v)
	return nil
}

func readSet(ctx context.Context, s artifactSet, sink ingest.Sink) (string, error) {
	var main *summaryRun
	summaryPath := firstNonEmpty(s.summary, s.csv)
	if summaryPath != "" {
		in, err := s.input(summaryPath)
		if err != nil {
			return "", err
		}
		kind := kindSummary
		if summaryPath == s.csv {
			kind = kindCSV
		}
		if main, err = readSummaryFile(in, kind, sink); err != nil {
			return "", err
		}
		main.run.Format = kindDir
		if s.asFiles != nil {
			main.run.Format = kindFiles
		} else {
			main.label("artifact_dir", filepath.Base(s.dir))
		}
		if fs := s.files(); len(fs) > 1 {
			main.run.SourceFiles = fs
		}
		if s.summary != "" && s.csv != "" {
			sink.Warn(fmt.Sprintf("%s not read: it repeats %s with rounded values", s.csv, filepath.Base(s.summary)))
		}
	}
	var standalone *schemas.Run
	runID := ""
	if main != nil {
		runID = main.run.ID
	}
	if s.records != "" {
		in, err := s.input(s.records)
		if err != nil {
			return "", err
		}
		if runID == "" {
			runID = ingest.RunID("aiperf", in.SHA256(), 0)
		}
		r := newRecordReader(ctx, in, sink, runID, true)
		if err := r.read(); err != nil {
			r.close()
			return "", err
		}
		var reported []schemas.Metric
		if main != nil {
			reported = main.reported
			r.summaryCount = main.run.Completed
			mergeRecords(main, r, sink)
		} else {
			standalone = r.standaloneRun()
		}
		if err := r.emitComputed(reported); err != nil {
			return "", err
		}
	}
	if s.telemetry != "" {
		in, err := s.input(s.telemetry)
		if err != nil {
			return "", err
		}
		if runID == "" {
			runID = ingest.RunID("aiperf", in.SHA256(), 0)
		}
		t := &telemetryReader{in: in, sink: sink, runID: runID}
		if err := t.read(ctx); err != nil {
			return "", err
		}
		if main == nil && standalone == nil {
			standalone = t.standaloneRun()
		}
	}
	version := ""
	switch {
	case main != nil:
		version = main.run.ToolVersion
		if err := main.emitRun(sink); err != nil {
			return "", err
		}
	case standalone != nil:
		version = standalone.ToolVersion
		if fs := s.files(); len(fs) > 1 {
			standalone.SourceFiles = fs
		}
		if err := sink.Run(standalone); err != nil {
			return "", err
		}
	}
	for _, p := range []struct{ path, kind string }{{s.slices, kindTimeslices}, {s.sliceCSV, kindSliceCSV}} {
		if p.path == "" || (p.kind == kindSliceCSV && s.slices != "") {
			continue
		}
		in, err := s.input(p.path)
		if err != nil {
			return "", err
		}
		runs, v, err := readTimeslices(in, p.kind, sink, runID)
		if err != nil {
			return "", err
		}
		if version == "" {
			version = v
		}
		for _, r := range runs {
			if err := r.emitRun(sink); err != nil {
				return "", err
			}
		}
	}
	if s.slices != "" && s.sliceCSV != "" {
		sink.Warn(fmt.Sprintf("%s not read: it repeats %s with rounded values", s.sliceCSV, filepath.Base(s.slices)))
	}
	for _, o := range s.others {
		sink.Warn(fmt.Sprintf("%s not read: not an export verdict ingests", o))
	}
	return version, nil
}

// mergeRecords completes a summary's run with what only the records know
// exactly: the window in integer nanoseconds.
func mergeRecords(main *summaryRun, r *recordReader, sink ingest.Sink) {
	c := &r.rc
	if c.ok == 0 || c.maxEnd <= c.minStart {
		return
	}
	run := &main.run
	d := float64(c.maxEnd-c.minStart) / 1e9
	span := ""
	if run.DurationS.OK && math.Abs(run.DurationS.V-d) > 1e-6*d {
		span = fmt.Sprintf("benchmark_duration %g s differs from the records' span %g s", run.DurationS.V, d)
	}
	// Records fewer than the summary counts (a trimmed records file) are
	// one cause: its count and the span it changes are one warning (and the
	// statistics it changes another, from recordReader.check).
	if run.Completed.OK && run.Completed.V != c.ok {
		msg := fmt.Sprintf("%s: request_count is %d, the records hold %d successful profiling requests", run.SourcePath, run.Completed.V, c.ok)
		if span != "" {
			msg += "; so " + span
		}
		sink.Warn(msg)
	} else if span != "" {
		sink.Warn(run.SourcePath + ": " + span)
	}
	run.WindowStart = schemas.Some(time.Unix(0, c.minStart).UTC())
	run.WindowEnd = schemas.Some(time.Unix(0, c.maxEnd).UTC())
	run.Flags = slices.DeleteFunc(run.Flags, func(f string) bool { return f == "window_times_rounded_by_float64" })
	main.label("request_times", "unix epoch seconds (AIPerf wall clock, request_start_ns)")
	if c.warmup > 0 {
		main.label("warmup_records", fmt.Sprint(c.warmup))
	}
}
