package mlperf

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Summary sections.
const (
	secHeader = iota
	secAdditional
	secParams
)

var (
	// "90th percentile latency (ns)" (before 2025-02) or "90.0th ..."
	reSumTarget     = regexp.MustCompile(`^(\d+(?:\.\d+)?)th percentile latency \(ns\)$`)
	reSumTargetTTFT = regexp.MustCompile(`^(\d+(?:\.\d+)?)th first token percentile latency \(ns\)$`)
	reSumLatP       = regexp.MustCompile(`^(\d+\.\d+) percentile latency \(ns\)$`)
	reSumTTFTP      = regexp.MustCompile(`^(\d+\.\d+) percentile first token latency \(ns\)$`)
	reSumTPOTP      = regexp.MustCompile(`^(\d+\.\d+) percentile time (to|per) output token \(ns\)$`)
	reSumTPOT       = regexp.MustCompile(`^(min|max|mean) time (to|per) output token \(ns\)$`)
	reSumTTFT       = regexp.MustCompile(`^(min|max|mean) first token latency \(ns\)$`)
	reSumLat        = regexp.MustCompile(`^(min|max|mean) latency \(ns\)$`)
	reESEstimate    = regexp.MustCompile(`^\* Early stopping (\d+(?:\.\d+)?)th percentile estimate: (-?\d+)$`)
	reESProcessed   = regexp.MustCompile(`^\* Processed at least (\d+) queries \((\d+)\)\.$`)
	reESDiscard     = regexp.MustCompile(`^\* Would discard (\d+) highest latency queries\.$`)
	reCount         = regexp.MustCompile(`^(No|\d+) (warnings|errors) encountered`)
)

// summaryRates are the header and Additional Stats lines that are run-level
// values in their definition's unit.
var summaryRates = map[string]schemas.MetricID{
	"completed samples per second": schemas.SampleThroughputCompleted,
	"scheduled samples per second": schemas.SampleThroughputScheduled,
	"samples per second":           schemas.OfflineSampleThroughput,
	"tokens per second":            schemas.OfflineOutputTokenThroughput,
	"completed tokens per second":  schemas.OutputTokenThroughputCompleted,
	"qps w/ loadgen overhead":      schemas.SampleThroughputIssued,
	"qps w/o loadgen overhead":     schemas.SampleRateInverseMeanLatency,
	"tps w/ loadgen overhead":      schemas.OutputTokenThroughputIssued,
	"tps w/o loadgen overhead":     schemas.OutputTokenRatePerLatency,
}

// summaryEra dates the summary text's LoadGen from its wording.
type summaryEra struct{ lo, hi string }

func (e summaryEra) String() string {
	switch {
	case e.lo == "" && e.hi == "":
		return "LoadGen (summary text; version not recorded)"
	case e.lo == "":
		return "LoadGen before " + e.hi + " (summary text)"
	case e.hi == "":
		return "LoadGen " + e.lo + " or later (summary text)"
	}
	return "LoadGen " + e.lo + ".." + e.hi + " (summary text)"
}

// A summaryReader reads mlperf_log_summary.txt line by line into logData.
type summaryReader struct {
	path string
	sink ingest.Sink
	d    *logData

	line      int
	sec       int
	block     string // current "* ..." block: early stopping or recommendations
	blockText map[string][]string
	esDiscard map[string]int
	esQueries map[string]int
	perQuery  bool
	era       summaryEra
	title     bool
}

// readSummary reads mlperf_log_summary.txt.
func readSummary(ctx context.Context, path string, r io.Reader, sink ingest.Sink) (*logData, error) {
	s := &summaryReader{path: path, sink: sink, d: newLogData(formatSummary), sec: secHeader,
		blockText: map[string][]string{}, esDiscard: map[string]int{}, esQueries: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		s.line++
		if s.line&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := s.readLine(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &ingest.Error{File: path, Line: s.line + 1, Err: err}
	}
	if !s.title {
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("no %q title found", summaryTitle)}
	}
	s.finish()
	return s.d, nil
}

func (s *summaryReader) bound(lo, hi string) {
	if lo != "" && lo > s.era.lo {
		s.era.lo = lo
	}
	if hi != "" && (s.era.hi == "" || hi < s.era.hi) {
		s.era.hi = hi
	}
}

func (s *summaryReader) reject(col int, field, reason string) {
	s.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: s.line, Column: col, Field: field, Reason: reason})
}

// value parses a number after a label; LoadGen prints integers for
// nanoseconds and up to six significant digits for rates.
func (s *summaryReader) value(label, text string, col int) (float64, bool) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		s.reject(col, label, fmt.Sprintf("expected a number, found %q", truncate(text, 60)))
		return 0, false
	}
	return f, true
}

func (s *summaryReader) latency(label, text string, col int, id schemas.MetricID, stat string, pct float64, method string) {
	f, ok := s.value(label, text, col)
	if !ok {
		return
	}
	if f < 0 && id != schemas.TPOTLoadGen {
		s.reject(col, label, "negative latency "+text)
		return
	}
	if f < 0 {
		s.d.flag("negative_tpot")
	}
	if s.d.has(id, stat, pct) {
		return // the header's target percentile repeats in Additional Stats
	}
	s.d.addNS(id, stat, pct, method, label, f)
}

// readLine reads one line of the summary.
func (s *summaryReader) readLine(raw string) error {
	t := strings.TrimSpace(raw)
	switch {
	case t == "":
		s.perQuery = false
		return nil
	case strings.Trim(t, "=") == "":
		return nil
	case t == summaryTitle:
		s.title = true
		s.sec = secHeader
		return nil
	case t == "Additional Stats":
		s.sec, s.block = secAdditional, ""
		return nil
	case t == "Test Parameters Used":
		s.sec, s.block = secParams, ""
		return nil
	}
	if !s.title {
		return &ingest.Error{File: s.path, Line: s.line, Err: fmt.Errorf("not an MLPerf LoadGen summary: %q before the %q title", truncate(t, 60), summaryTitle)}
	}
	if strings.HasPrefix(t, "*") {
		s.blockLine(t)
		return nil
	}
	if strings.HasSuffix(t, ":") && !strings.Contains(strings.TrimSuffix(t, ":"), ":") {
		// A block heading: "Early Stopping Result:", "Recommendations:",
		// "Per-query latency:".
		s.block = strings.TrimSuffix(t, ":")
		if strings.EqualFold(s.block, "Per-query latency") {
			s.perQuery, s.block = true, ""
		}
		return nil
	}
	if s.noticeLine(t) {
		return nil
	}
	labelRaw, val, ok := strings.Cut(t, ":")
	if !ok {
		if s.block != "" {
			// LoadGen wraps some early-stopping and recommendation
			// sentences over several lines.
			s.blockText[s.block] = append(s.blockText[s.block], t)
			return nil
		}
		if s.sec == secParams {
			return nil // the continuation of a WARNING paragraph
		}
		s.reject(1, "", "not a 'label : value' line: "+truncate(t, 60))
		return nil
	}
	label := strings.Join(strings.Fields(labelRaw), " ")
	val = strings.TrimSpace(val)
	col := strings.Index(raw, val) + 1
	if s.sec == secParams {
		s.param(label, val)
		return nil
	}
	s.block = ""
	low := strings.ToLower(label)
	if s.headerField(low, val) || s.rate(low, label, val, col) || s.latencyLine(low, label, val, col) {
		return nil
	}
	// Unknown lines are kept as labels rather than lost.
	s.d.labels[strings.ReplaceAll(low, " ", "_")] = val
	s.sink.Warn(fmt.Sprintf("line %d: unknown summary line %q kept as a label", s.line, truncate(t, 80)))
	return nil
}

// blockLine reads a "* ..." line of an early-stopping or recommendation
// block.
func (s *summaryReader) blockLine(t string) {
	if s.block == "" {
		s.block = "notes"
	}
	s.blockText[s.block] = append(s.blockText[s.block], strings.TrimSpace(strings.TrimPrefix(t, "*")))
	if g := reESEstimate.FindStringSubmatch(t); g != nil {
		s.estimate(g[1], g[2])
	}
	if g := reESProcessed.FindStringSubmatch(t); g != nil {
		s.esQueries[s.block], _ = strconv.Atoi(g[2])
	}
	if g := reESDiscard.FindStringSubmatch(t); g != nil {
		s.esDiscard[s.block], _ = strconv.Atoi(g[1])
	}
}

// estimate reads an early-stopping percentile estimate.
func (s *summaryReader) estimate(pct, ns string) {
	p, ok := pctLabel(pct)
	if !ok {
		s.reject(1, s.block, "bad percentile "+pct)
		return
	}
	if strings.Contains(pct, ".") {
		s.bound("2025-02", "")
	} else {
		s.bound("", "2025-02")
	}
	f, _ := strconv.ParseFloat(ns, 64)
	id := schemas.E2EScheduledEarlyStopping
	switch {
	case s.block == "TTFT Early Stopping Result":
		id = schemas.TTFTScheduledEarlyStopping
	case s.block == "TPOT Early Stopping Result":
		id = schemas.TPOTLoadGenEarlyStopping
	case s.d.scenario == scMultiStream:
		id = schemas.QueryLatencyScheduledEarlyStopping
	}
	if !s.d.has(id, schemas.StatP, p) {
		s.d.addNS(id, schemas.StatP, p, methodEarlyStopping, "Early stopping "+pct+"th percentile estimate", f)
	}
}

// noticeLine reads the warning and error counts and WARNING lines.
func (s *summaryReader) noticeLine(t string) bool {
	if g := reCount.FindStringSubmatch(t); g != nil {
		n := g[1]
		if n == "No" {
			n = "0"
		}
		s.d.labels[g[2]] = n
		if g[2] == "errors" && n != "0" {
			s.d.flag("loadgen_errors")
		}
		return true
	}
	if strings.HasPrefix(t, "WARNING:") {
		if strings.Contains(t, "sample_concatenate_permutation") {
			s.d.flag("sample_concatenate_permutation")
		}
		return true
	}
	return false
}

// param reads a line of Test Parameters Used.
func (s *summaryReader) param(label, val string) {
	key := strings.NewReplacer(" (ns)", "_ns", " (ms)", "_ms", " ", "_").Replace(label)
	s.d.labels[key] = val
	switch key {
	case "target_qps":
		if f, err := strconv.ParseFloat(val, 64); err == nil && f > 0 {
			s.d.targetQPS = schemas.Some(f)
		}
	case "samples_per_query":
		if n, err := strconv.ParseInt(val, 10, 64); err == nil && n > 0 {
			s.d.samplesPerQuery = schemas.Some(n)
		}
	}
}

// headerField reads the SUT name, scenario, mode and validity lines.
func (s *summaryReader) headerField(low, val string) bool {
	d := s.d
	switch low {
	case "sut name":
		d.labels["sut_name"] = val
	case "scenario":
		d.scenario = val
	case "mode":
		d.labels["test_mode"] = val
	case "result is":
		d.labels["result_validity"] = val
		if val == "INVALID" {
			d.flag("result_invalid")
		}
	case "performance constraints satisfied", "min duration satisfied", "min queries satisfied", "early stopping satisfied":
		d.labels[strings.ReplaceAll(low, " ", "_")] = val
		if val == "NO" {
			d.flag(map[string]string{"performance constraints satisfied": "perf_constraints_not_met", "min duration satisfied": "min_duration_not_met",
				"min queries satisfied": "min_queries_not_met", "early stopping satisfied": "early_stopping_not_met"}[low])
		}
	default:
		return false
	}
	return true
}

// rate reads a rate line of the header or Additional Stats.
func (s *summaryReader) rate(low, label, val string, col int) bool {
	id, ok := summaryRates[low]
	if !ok {
		return false
	}
	f, ok := s.value(label, val, col)
	if !ok {
		return true
	}
	if f < 0 {
		s.reject(col, label, "negative rate "+val)
		return true
	}
	if strings.Contains(string(id), "token") {
		s.d.token = schemas.Some(true)
	}
	if !s.d.has(id, schemas.StatValue, 0) {
		s.d.addValue(id, label, f, "")
	}
	return true
}

// latencyLine reads a latency statistic line.
func (s *summaryReader) latencyLine(low, label, val string, col int) bool {
	nr := string(stats.NearestRankFloor)
	latID := schemas.E2EScheduled
	if s.perQuery || s.d.scenario == scMultiStream {
		latID = schemas.QueryLatencyScheduled
	}
	if g := reSumTarget.FindStringSubmatch(low); g != nil {
		if strings.Contains(g[1], ".") {
			s.bound("2025-02", "")
		} else {
			s.bound("", "2025-02")
		}
		if p, ok := pctLabel(g[1]); ok {
			s.latency(label, val, col, latID, schemas.StatP, p, nr)
			return true
		}
	}
	if g := reSumTargetTTFT.FindStringSubmatch(low); g != nil {
		if p, ok := pctLabel(g[1]); ok {
			s.d.token = schemas.Some(true)
			s.latency(label, val, col, schemas.TTFTScheduled, schemas.StatP, p, nr)
			return true
		}
	}
	if g := reSumLat.FindStringSubmatch(low); g != nil {
		s.latency(label, val, col, latID, statOf[g[1]], 0, statMethod(g[1]))
		return true
	}
	if g := reSumLatP.FindStringSubmatch(low); g != nil {
		if p, ok := pctLabel(g[1]); ok {
			s.latency(label, val, col, latID, schemas.StatP, p, nr)
			return true
		}
	}
	if g := reSumTTFT.FindStringSubmatch(low); g != nil {
		s.d.token = schemas.Some(true)
		s.latency(label, val, col, schemas.TTFTScheduled, statOf[g[1]], 0, statMethod(g[1]))
		return true
	}
	if g := reSumTTFTP.FindStringSubmatch(low); g != nil {
		if p, ok := pctLabel(g[1]); ok {
			s.latency(label, val, col, schemas.TTFTScheduled, schemas.StatP, p, nr)
			return true
		}
	}
	if g := reSumTPOT.FindStringSubmatch(low); g != nil {
		tpotWording(g[2], s.bound)
		s.latency(label, val, col, schemas.TPOTLoadGen, statOf[g[1]], 0, statMethod(g[1]))
		return true
	}
	if g := reSumTPOTP.FindStringSubmatch(low); g != nil {
		tpotWording(g[2], s.bound)
		if p, ok := pctLabel(g[1]); ok {
			s.latency(label, val, col, schemas.TPOTLoadGen, schemas.StatP, p, nr)
			return true
		}
	}
	return false
}

// finish turns the blocks into labels, checks the early-stopping text and
// settles the scenario's settings.
func (s *summaryReader) finish() {
	d := s.d
	for b, lines := range s.blockText {
		key := map[string]string{"Early Stopping Result": "early_stopping_result", "TTFT Early Stopping Result": "early_stopping_ttft_result",
			"TPOT Early Stopping Result": "early_stopping_tpot_result", "Recommendations": "result_invalid_reason"}[b]
		if key == "" {
			key = strings.ToLower(strings.ReplaceAll(b, " ", "_"))
		}
		d.labels[key] = strings.Join(lines, " ")
	}
	// The early-stopping text must agree with LoadGen's arithmetic.
	for b, q := range s.esQueries {
		if disc, ok := s.esDiscard[b]; ok {
			p := 0.9
			if d.scenario == scMultiStream {
				p = 0.99
			}
			if err := checkEarlyStopping(q, disc, p); err != nil {
				s.sink.Warn(err.Error())
			}
		}
		if d.scenario == scSingleStream || d.scenario == scMultiStream {
			d.queries = schemas.Some(int64(q))
		}
	}
	s.limits()
	if d.scenario == scOffline && d.labels["sample_concatenate_permutation"] == "" && containsFlag(d.flags, "sample_concatenate_permutation") {
		// samples_per_query in the summary is the setting, not what ran.
		d.samplesPerQuery = schemas.Opt[int64]{}
	}
	if d.scenario == scOffline && !containsFlag(d.flags, "sample_concatenate_permutation") && d.samplesPerQuery.OK {
		d.queries = schemas.Some(int64(1))
	}
	if d.scenario != scServer {
		d.targetQPS = schemas.Opt[float64]{}
	}
	d.serverChecks(s.sink)
	d.version = s.era.String()
}

// limits reads a Server run's latency constraints from the parameters.
func (s *summaryReader) limits() {
	d := s.d
	if d.scenario == scServer && d.token.OK && d.token.V {
		for _, k := range []struct {
			label string
			id    schemas.MetricID
		}{{"ttft_latency_ns", schemas.TTFTScheduledLimit}, {"tpot_latency_ns", schemas.TPOTLoadGenLimit}} {
			if v, err := strconv.ParseFloat(d.labels[k.label], 64); err == nil && v > 0 {
				d.limit(k.id, strings.Replace(k.label, "_ns", " (ns)", 1), v, 0.99)
			}
		}
	} else if d.scenario == scServer {
		if v, err := strconv.ParseFloat(d.labels["target_latency_ns"], 64); err == nil && v > 0 {
			d.limit(schemas.E2EScheduledLimit, "target_latency (ns)", v, 0.99)
		}
	}
}

// tpotWording dates the summary by its TPOT label: "Time to Output Token"
// until PR #2360 (2025-10), "Time per Output Token" after.
func tpotWording(w string, bound func(lo, hi string)) {
	if w == "to" {
		bound("", "2025-10")
	} else {
		bound("2025-10", "")
	}
}

func containsFlag(flags []string, f string) bool { return slicesContains(flags, f) }
