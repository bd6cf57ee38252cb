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

// readSummary reads mlperf_log_summary.txt.
func readSummary(ctx context.Context, path string, r io.Reader, sink ingest.Sink) (*logData, error) {
	d := newLogData(formatSummary)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var (
		line      int
		sec       = secHeader
		block     string // current "* ..." block: early stopping or recommendations
		blockText = map[string][]string{}
		esDiscard = map[string]int{}
		esQueries = map[string]int{}
		perQuery  bool
		era       summaryEra
		title     bool
	)
	bound := func(lo, hi string) {
		if lo != "" && lo > era.lo {
			era.lo = lo
		}
		if hi != "" && (era.hi == "" || hi < era.hi) {
			era.hi = hi
		}
	}
	reject := func(col int, field, reason string) {
		sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: line, Column: col, Field: field, Reason: reason})
	}
	// value parses a number after a label; LoadGen prints integers for
	// nanoseconds and up to six significant digits for rates.
	value := func(label, text string, col int) (float64, bool) {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			reject(col, label, fmt.Sprintf("expected a number, found %q", truncate(text, 60)))
			return 0, false
		}
		return f, true
	}
	latency := func(label, text string, col int, id schemas.MetricID, stat string, pct float64, method string) {
		f, ok := value(label, text, col)
		if !ok {
			return
		}
		if f < 0 && id != schemas.TPOTLoadGen {
			reject(col, label, "negative latency "+text)
			return
		}
		if f < 0 {
			d.flag("negative_tpot")
		}
		if d.has(id, stat, pct) {
			return // the header's target percentile repeats in Additional Stats
		}
		d.addNS(id, stat, pct, method, label, f)
	}
	for sc.Scan() {
		line++
		if line&0xff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		raw := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(raw)
		switch {
		case t == "":
			perQuery = false
			continue
		case strings.Trim(t, "=") == "":
			continue
		case t == summaryTitle:
			title = true
			sec = secHeader
			continue
		case t == "Additional Stats":
			sec, block = secAdditional, ""
			continue
		case t == "Test Parameters Used":
			sec, block = secParams, ""
			continue
		}
		if !title {
			return nil, &ingest.Error{File: path, Line: line, Err: fmt.Errorf("not an MLPerf LoadGen summary: %q before the %q title", truncate(t, 60), summaryTitle)}
		}
		if strings.HasPrefix(t, "*") {
			if block == "" {
				block = "notes"
			}
			blockText[block] = append(blockText[block], strings.TrimSpace(strings.TrimPrefix(t, "*")))
			if g := reESEstimate.FindStringSubmatch(t); g != nil {
				p, ok := pctLabel(g[1])
				if !ok {
					reject(1, block, "bad percentile "+g[1])
					continue
				}
				switch {
				case strings.Contains(g[1], "."):
					bound("2025-02", "")
				default:
					bound("", "2025-02")
				}
				f, _ := strconv.ParseFloat(g[2], 64)
				id := schemas.E2EScheduledEarlyStopping
				switch {
				case block == "TTFT Early Stopping Result":
					id = schemas.TTFTScheduledEarlyStopping
				case block == "TPOT Early Stopping Result":
					id = schemas.TPOTLoadGenEarlyStopping
				case d.scenario == scMultiStream:
					id = schemas.QueryLatencyScheduledEarlyStopping
				}
				if !d.has(id, schemas.StatP, p) {
					d.addNS(id, schemas.StatP, p, methodEarlyStopping, "Early stopping "+g[1]+"th percentile estimate", f)
				}
			}
			if g := reESProcessed.FindStringSubmatch(t); g != nil {
				esQueries[block], _ = strconv.Atoi(g[2])
			}
			if g := reESDiscard.FindStringSubmatch(t); g != nil {
				esDiscard[block], _ = strconv.Atoi(g[1])
			}
			continue
		}
		if strings.HasSuffix(t, ":") && !strings.Contains(strings.TrimSuffix(t, ":"), ":") {
			// A block heading: "Early Stopping Result:", "Recommendations:",
			// "Per-query latency:".
			block = strings.TrimSuffix(t, ":")
			if strings.EqualFold(block, "Per-query latency") {
				perQuery, block = true, ""
			}
			continue
		}
		if g := reCount.FindStringSubmatch(t); g != nil {
			n := g[1]
			if n == "No" {
				n = "0"
			}
			d.labels[g[2]] = n
			if g[2] == "errors" && n != "0" {
				d.flag("loadgen_errors")
			}
			continue
		}
		if strings.HasPrefix(t, "WARNING:") {
			if strings.Contains(t, "sample_concatenate_permutation") {
				d.flag("sample_concatenate_permutation")
			}
			continue
		}
		labelRaw, val, ok := strings.Cut(t, ":")
		if !ok {
			if block != "" {
				// LoadGen wraps some early-stopping and recommendation
				// sentences over several lines.
				blockText[block] = append(blockText[block], t)
				continue
			}
			if sec == secParams {
				continue // the continuation of a WARNING paragraph
			}
			reject(1, "", "not a 'label : value' line: "+truncate(t, 60))
			continue
		}
		label := strings.Join(strings.Fields(labelRaw), " ")
		val = strings.TrimSpace(val)
		col := strings.Index(raw, val) + 1
		low := strings.ToLower(label)
		if sec == secParams {
			key := strings.NewReplacer(" (ns)", "_ns", " (ms)", "_ms", " ", "_").Replace(label)
			d.labels[key] = val
			switch key {
			case "target_qps":
				if f, err := strconv.ParseFloat(val, 64); err == nil && f > 0 {
					d.targetQPS = schemas.Some(f)
				}
			case "samples_per_query":
				if n, err := strconv.ParseInt(val, 10, 64); err == nil && n > 0 {
					d.samplesPerQuery = schemas.Some(n)
				}
			}
			continue
		}
		block = ""
		switch low {
		case "sut name":
			d.labels["sut_name"] = val
			continue
		case "scenario":
			d.scenario = val
			continue
		case "mode":
			d.labels["test_mode"] = val
			continue
		case "result is":
			d.labels["result_validity"] = val
			if val == "INVALID" {
				d.flag("result_invalid")
			}
			continue
		case "performance constraints satisfied", "min duration satisfied", "min queries satisfied", "early stopping satisfied":
			d.labels[strings.ReplaceAll(low, " ", "_")] = val
			if val == "NO" {
				d.flag(map[string]string{"performance constraints satisfied": "perf_constraints_not_met", "min duration satisfied": "min_duration_not_met",
					"min queries satisfied": "min_queries_not_met", "early stopping satisfied": "early_stopping_not_met"}[low])
			}
			continue
		}
		if id, ok := summaryRates[low]; ok {
			f, ok := value(label, val, col)
			if !ok {
				continue
			}
			if f < 0 {
				reject(col, label, "negative rate "+val)
				continue
			}
			if strings.Contains(string(id), "token") {
				d.token = schemas.Some(true)
			}
			if !d.has(id, schemas.StatValue, 0) {
				d.addValue(id, label, f, "")
			}
			continue
		}
		latID := schemas.E2EScheduled
		if perQuery || d.scenario == scMultiStream {
			latID = schemas.QueryLatencyScheduled
		}
		if g := reSumTarget.FindStringSubmatch(low); g != nil {
			if strings.Contains(g[1], ".") {
				bound("2025-02", "")
			} else {
				bound("", "2025-02")
			}
			if p, ok := pctLabel(g[1]); ok {
				latency(label, val, col, latID, schemas.StatP, p, string(stats.NearestRankFloor))
				continue
			}
		}
		if g := reSumTargetTTFT.FindStringSubmatch(low); g != nil {
			if p, ok := pctLabel(g[1]); ok {
				d.token = schemas.Some(true)
				latency(label, val, col, schemas.TTFTScheduled, schemas.StatP, p, string(stats.NearestRankFloor))
				continue
			}
		}
		if g := reSumLat.FindStringSubmatch(low); g != nil {
			latency(label, val, col, latID, statOf[g[1]], 0, statMethod(g[1]))
			continue
		}
		if g := reSumLatP.FindStringSubmatch(low); g != nil {
			if p, ok := pctLabel(g[1]); ok {
				latency(label, val, col, latID, schemas.StatP, p, string(stats.NearestRankFloor))
				continue
			}
		}
		if g := reSumTTFT.FindStringSubmatch(low); g != nil {
			d.token = schemas.Some(true)
			latency(label, val, col, schemas.TTFTScheduled, statOf[g[1]], 0, statMethod(g[1]))
			continue
		}
		if g := reSumTTFTP.FindStringSubmatch(low); g != nil {
			if p, ok := pctLabel(g[1]); ok {
				latency(label, val, col, schemas.TTFTScheduled, schemas.StatP, p, string(stats.NearestRankFloor))
				continue
			}
		}
		if g := reSumTPOT.FindStringSubmatch(low); g != nil {
			tpotWording(g[2], bound)
			latency(label, val, col, schemas.TPOTLoadGen, statOf[g[1]], 0, statMethod(g[1]))
			continue
		}
		if g := reSumTPOTP.FindStringSubmatch(low); g != nil {
			tpotWording(g[2], bound)
			if p, ok := pctLabel(g[1]); ok {
				latency(label, val, col, schemas.TPOTLoadGen, schemas.StatP, p, string(stats.NearestRankFloor))
				continue
			}
		}
		// Unknown lines are kept as labels rather than lost.
		d.labels[strings.ReplaceAll(low, " ", "_")] = val
		sink.Warn(fmt.Sprintf("line %d: unknown summary line %q kept as a label", line, truncate(t, 80)))
	}
	if err := sc.Err(); err != nil {
		return nil, &ingest.Error{File: path, Line: line + 1, Err: err}
	}
	if !title {
		return nil, &ingest.Error{File: path, Err: fmt.Errorf("no %q title found", summaryTitle)}
	}
	for b, lines := range blockText {
		key := map[string]string{"Early Stopping Result": "early_stopping_result", "TTFT Early Stopping Result": "early_stopping_ttft_result",
			"TPOT Early Stopping Result": "early_stopping_tpot_result", "Recommendations": "result_invalid_reason"}[b]
		if key == "" {
			key = strings.ToLower(strings.ReplaceAll(b, " ", "_"))
		}
		d.labels[key] = strings.Join(lines, " ")
	}
	// The early-stopping text must agree with LoadGen's arithmetic.
	for b, q := range esQueries {
		if disc, ok := esDiscard[b]; ok {
			p := 0.9
			if d.scenario == scMultiStream {
				p = 0.99
			}
			if err := checkEarlyStopping(q, disc, p); err != nil {
				sink.Warn(err.Error())
			}
		}
		if d.scenario == scSingleStream || d.scenario == scMultiStream {
			d.queries = schemas.Some(int64(q))
		}
	}
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
	d.serverChecks(sink)
	d.version = era.String()
	return d, nil
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
