// Package mlperf reads MLPerf Inference LoadGen logs: the machine log
// mlperf_log_detail.txt (one ":::MLLOG {json}" line per key, LoadGen 1.0
// and later) and the human summary mlperf_log_summary.txt (every text
// variant: "90th" and "90.0th", "Time to" and "Time per Output Token").
// Each file is one run; a summary and a detail log of one run given
// together are one run (group.go).
//
// LoadGen writes nanoseconds; durations become seconds here, once.
// LoadGen's TTFT and sample latency are timed from the query's scheduled
// time (ttft_scheduled, e2e_scheduled), its TPOT from what the SUT reports
// (tpot_loadgen), and its percentiles are x[floor(n*p)]
// (stats.NearestRankFloor). Early-stopping estimates and the Server
// TTFT/TPOT limits are metric rows of their own definitions; the result's
// validity, its reasons and the early-stopping verdicts are run labels and
// flags; requested_* and effective_* settings are run labels.
//
// result_token_throughput is tokens per nanosecond (a LoadGen bug): it is
// converted to tokens per second and the run is flagged. A Server run found
// under an "Interactive" directory is an Interactive run (LoadGen logs it
// as Server): the path decides, and the run is flagged.
//
// The detail log is parsed leniently, line by line: LoadGen does not escape
// strings, seeds exceed int64 (kept as text), and a line that cannot be
// read is rejected with its line number while the rest is ingested. When a
// key repeats, the first occurrence wins (as in LoadGen's own log_parser).
// Prefer the detail log: it has more precision and stable keys.
package mlperf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
)

// Format is the MLPerf LoadGen ingest format.
type Format struct{}

func (Format) Name() string { return "mlperf" }

func (Format) Description() string {
	return "MLPerf Inference LoadGen mlperf_log_detail.txt (:::MLLOG lines) and mlperf_log_summary.txt"
}

const (
	markerMLLOG  = ":::MLLOG"
	markerENDPTS = ":::ENDPTS" // MLPerf-Endpoints logs use the same line format
	summaryTitle = "MLPerf Results Summary"
)

// Detect recognises a detail log by its first line's marker and a summary
// by its title.
func (Format) Detect(name string, head []byte) int {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if bytes.HasPrefix(t, []byte(markerMLLOG+" {")) || bytes.HasPrefix(t, []byte(markerENDPTS+" {")) {
		return 95
	}
	if isSummary(head) {
		return 95
	}
	if isAccuracySummary(head) {
		return 60 // recognised, to be refused with what it is
	}
	return 0
}

// isSummary looks for the title among the first lines.
func isSummary(head []byte) bool {
	n := 0
	for line := range bytes.Lines(head) {
		if bytes.Equal(bytes.TrimSpace(line), []byte(summaryTitle)) {
			return true
		}
		if n++; n > 5 {
			break
		}
	}
	return false
}

// Read reads one LoadGen log.
func (Format) Read(ctx context.Context, in *ingest.Input, sink ingest.Sink) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(rc, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return &ingest.Error{File: in.Path, Err: err}
	}
	head = head[:n]
	body := io.MultiReader(bytes.NewReader(head), rc)
	var d *logData
	if isAccuracySummary(head) {
		first, _, _ := bytes.Cut(bytes.TrimSpace(head), []byte("\n"))
		return &ingest.Error{File: in.Path, Line: 1, Err: fmt.Errorf("the summary of an MLPerf LoadGen accuracy run (AccuracyOnly mode logs no performance results): found only the warning and error counts (%q), expected the %q block of a performance run, or its mlperf_log_detail.txt",
			bytes.TrimSpace(first), summaryTitle)}
	}
	if isSummary(head) {
		d, err = readSummary(ctx, in.Path, body, sink)
	} else {
		d, err = readDetail(ctx, in.Path, body, sink)
	}
	if err != nil {
		return err
	}
	return emit(in, d, sink)
}

// pathScenario returns the scenario directory and the benchmark directory
// above it in a submission tree
// (<benchmark>/<Scenario>/performance/run_1/mlperf_log_*.txt), or "".
func pathScenario(path string) (scenario, benchmark string) {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		switch parts[i] {
		case "SingleStream", "MultiStream", "Server", "Offline", "Interactive":
			if i > 0 {
				benchmark = parts[i-1]
			}
			return parts[i], benchmark
		}
	}
	return "", ""
}
