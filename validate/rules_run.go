package validate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// meanOf returns the mean of a metric, preferring the tool's reported row.
func meanOf(d *RunData, id schemas.MetricID) (schemas.Metric, bool) {
	var found *schemas.Metric
	for i := range d.Metrics {
		m := &d.Metrics[i]
		if m.MetricID != id || m.Stat != schemas.StatMean || !m.Value.OK {
			continue
		}
		if found == nil || (found.Source != schemas.SourceReported && m.Source == schemas.SourceReported) {
			found = m
		}
	}
	if found == nil {
		return schemas.Metric{}, false
	}
	return *found, true
}

func hasValue(d *RunData, ids ...schemas.MetricID) bool {
	for _, m := range d.Metrics {
		if m.Value.OK && slices.Contains(ids, m.MetricID) {
			return true
		}
	}
	return false
}

func checkChunking(c *checker, s subject) outcome {
	d := s.runs[0]
	var o outcome
	checked := false
	if rs := d.Requests; rs != nil && rs.GapChunks > 0 {
		checked = true
		tpc := float64(rs.GapTokens) / float64(rs.GapChunks)
		if tpc > c.th.TokensPerChunk {
			f := s.finding(fmt.Sprintf("chunks carry %s output tokens on average (%d tokens in %d chunks of the successful requests, policy limit %s): speculative decoding or server-side coalescing; per-chunk ITL is not a per-token time%s",
				sig(tpc), rs.GapTokens, rs.GapChunks, sig(c.th.TokensPerChunk), specDecodeNote(d)))
			f.Metric, f.Fields, f.Values = "itl_chunk", []string{"tokens per chunk"}, []string{sig(tpc)}
			o.add(f)
		} else {
			o.note(fmt.Sprintf("%s output tokens per chunk", sig(tpc)))
		}
	}
	itl, okI := meanOf(d, schemas.ITLChunk)
	var tpot schemas.Metric
	okT := false
	for _, id := range []schemas.MetricID{schemas.TPOT, schemas.TPOTAnswer} {
		if tpot, okT = meanOf(d, id); okT {
			break
		}
	}
	if okI && okT && tpot.Value.V > 0 && itl.Value.V > 0 {
		checked = true
		ratio := itl.Value.V / tpot.Value.V
		vals := []string{"itl_chunk mean " + quantity(itl.Value.V, schemas.UnitSeconds), string(tpot.MetricID) + " mean " + quantity(tpot.Value.V, schemas.UnitSeconds)}
		switch {
		case ratio > c.th.ITLTPOTRatio:
			f := s.finding(fmt.Sprintf("mean per-chunk ITL (%s) is %s times the mean %s (%s), above the policy's %s: chunks carry several tokens (speculative decoding or coalescing), so ITL is not a per-token latency and tokens per second must not be derived from it%s",
				quantity(itl.Value.V, schemas.UnitSeconds), sig(ratio), tpot.MetricID, quantity(tpot.Value.V, schemas.UnitSeconds), sig(c.th.ITLTPOTRatio), specDecodeNote(d)))
			f.Metric, f.Fields, f.Values = "itl_chunk", []string{"itl_chunk", string(tpot.MetricID)}, vals
			o.add(f)
		case ratio < 1/c.th.ITLTPOTRatio:
			f := s.finding(fmt.Sprintf("mean per-chunk ITL (%s) is only %s of the mean %s (%s): many chunks carry no token (role, usage or empty deltas), so ITL understates the time per token",
				quantity(itl.Value.V, schemas.UnitSeconds), percent(ratio), tpot.MetricID, quantity(tpot.Value.V, schemas.UnitSeconds)))
			f.Metric, f.Fields, f.Values = "itl_chunk", []string{"itl_chunk", string(tpot.MetricID)}, vals
			o.add(f)
		default:
			o.note(fmt.Sprintf("mean ITL / mean %s = %s", tpot.MetricID, sig(ratio)))
		}
	}
	if !checked {
		return skipped("neither chunk gaps with token counts nor both mean ITL and mean TPOT are known")
	}
	return o
}

func specDecodeNote(d *RunData) string {
	for _, m := range d.Metrics {
		if m.MetricID == schemas.SpecDecodeAcceptanceLength && m.Value.OK {
			return fmt.Sprintf("; the server reports a speculative-decoding acceptance length of %s tokens per step", sig(m.Value.V))
		}
	}
	return ""
}

// streamedIDs are definitions that only a streamed response can measure.
var streamedIDs = []schemas.MetricID{schemas.TTFT, schemas.TTFTAnswer, schemas.TTST, schemas.ITLChunk, schemas.ITLChunkPerToken, schemas.TPOT, schemas.TPOTAnswer}

func checkNotStreaming(c *checker, s subject) outcome {
	d := s.runs[0]
	rs := d.Requests
	hasTTFTRows := hasValue(d, streamedIDs...)
	hasTTFTReqs := rs != nil && rs.TTFTAndE2E > 0
	if !hasTTFTRows && !hasTTFTReqs && (rs == nil || rs.WithGaps == 0) {
		return skipped("the run reports no TTFT, ITL or TPOT")
	}
	var o outcome
	if d.Run.Streaming.OK && !d.Run.Streaming.V && hasTTFTRows {
		var ids []string
		for _, m := range d.Metrics {
			if m.Value.OK && slices.Contains(streamedIDs, m.MetricID) && !slices.Contains(ids, string(m.MetricID)) {
				ids = append(ids, string(m.MetricID))
			}
		}
		f := s.finding(fmt.Sprintf("the run was not streamed (streaming: no) yet reports %s: these are not streaming measurements", joinAnd(ids)))
		f.Metric, f.Fields, f.Values = strings.Join(ids, ", "), []string{"streaming"}, []string{"no"}
		o.add(f)
	}
	if hasTTFTReqs {
		frac := float64(rs.TTFTEqualsE2E) / float64(rs.TTFTAndE2E)
		if frac >= c.th.NotStreamingFraction {
			f := s.finding(fmt.Sprintf("TTFT equals E2E latency for %d of %d successful requests (%s, policy %s): the responses arrived in one piece, so TTFT, ITL and TPOT are not streaming measurements",
				rs.TTFTEqualsE2E, rs.TTFTAndE2E, percent(frac), percent(c.th.NotStreamingFraction)))
			f.Metric, f.Fields, f.Values = "ttft", []string{"ttft", "e2e"}, []string{fmt.Sprintf("%d of %d requests", rs.TTFTEqualsE2E, rs.TTFTAndE2E)}
			o.add(f)
		} else {
			o.note(fmt.Sprintf("TTFT < E2E for %d of %d requests", rs.TTFTAndE2E-rs.TTFTEqualsE2E, rs.TTFTAndE2E))
		}
	} else if hasTTFTRows {
		ttft, ok1 := meanOf(d, schemas.TTFT)
		e2e, ok2 := meanOf(d, schemas.E2E)
		if ok1 && ok2 && ttft.Source == e2e.Source && e2e.Value.V > 0 && multiTokenOutput(d) {
			if math.Abs(e2e.Value.V-ttft.Value.V) <= 1e-3*e2e.Value.V {
				f := s.finding(fmt.Sprintf("mean TTFT (%s) equals mean E2E latency (%s): the responses arrived in one piece, so TTFT, ITL and TPOT are not streaming measurements",
					quantity(ttft.Value.V, schemas.UnitSeconds), quantity(e2e.Value.V, schemas.UnitSeconds)))
				f.Metric, f.Fields, f.Values = "ttft", []string{"ttft mean", "e2e mean"}, []string{quantity(ttft.Value.V, schemas.UnitSeconds), quantity(e2e.Value.V, schemas.UnitSeconds)}
				o.add(f)
			} else {
				o.note("mean TTFT below mean E2E")
			}
		}
	}
	if rs != nil && rs.WithGaps > 0 {
		frac := float64(rs.OneChunk) / float64(rs.WithGaps)
		if frac >= c.th.NotStreamingFraction {
			f := s.finding(fmt.Sprintf("%d of %d successful multi-token requests arrived in a single chunk (%s, policy %s): the responses were not streamed token by token",
				rs.OneChunk, rs.WithGaps, percent(frac), percent(c.th.NotStreamingFraction)))
			f.Metric, f.Fields, f.Values = "itl_chunk", []string{"chunks per request"}, []string{fmt.Sprintf("%d of %d requests in one chunk", rs.OneChunk, rs.WithGaps)}
			o.add(f)
		} else {
			o.note(fmt.Sprintf("%d of %d multi-token requests arrived in several chunks", rs.WithGaps-rs.OneChunk, rs.WithGaps))
		}
	}
	return o
}

// multiTokenOutput reports whether the run's mean output length is known
// and above one token (with one token, TTFT equals E2E by nature).
func multiTokenOutput(d *RunData) bool {
	m, ok := meanLength(d, schemas.OutputTokens)
	return ok && m > 1
}

func checkWarmup(c *checker, s subject) outcome {
	d := s.runs[0]
	var o outcome
	wr := d.Run.SUT.WarmupRequests
	rs := d.Requests
	warmRows := rs != nil && rs.Warmup > 0
	label, lv, hasLabel := warmupLabel(d)
	switch {
	case warmRows:
		note := fmt.Sprintf("%d warm-up requests recorded and kept apart", rs.Warmup)
		if rs.Cooldown > 0 {
			note += fmt.Sprintf(", and %d cool-down requests", rs.Cooldown)
		}
		o.note(note)
	case wr.OK && wr.V == 0:
		f := s.finding("no warm-up requests were sent (inventory warmup_requests: 0): the first requests pay one-time costs (graph capture, compilation, empty caches) inside the measurement")
		f.Fields, f.Values = []string{"sut.warmup_requests"}, []string{"0"}
		o.add(f)
	case wr.OK:
		o.note(fmt.Sprintf("%d warm-up requests recorded in the inventory", wr.V))
	case hasLabel && lv == 0:
		f := s.finding(fmt.Sprintf("no warm-up was done (the tool recorded %s: 0): the first requests pay one-time costs (graph capture, compilation, empty caches) inside the measurement", label))
		f.Fields, f.Values = []string{"label " + label}, []string{"0"}
		o.add(f)
	case hasLabel:
		o.note(fmt.Sprintf("warm-up recorded by the tool (%s: %s)", label, sig(lv)))
	default:
		f := s.finding("whether warm-up requests were sent and excluded is not recorded (no warm-up phase rows, no inventory warmup_requests, no warm-up label from the tool)")
		f.Unverified, f.Fields, f.Values = true, []string{"sut.warmup_requests"}, []string{unknown}
		o.add(f)
	}
	if rs := completeRequests(d); rs != nil && rs.FirstLatency.OK && len(rs.Latencies) >= c.th.MinOutlierRequests {
		sorted := slices.Clone(rs.Latencies)
		slices.Sort(sorted)
		med := stats.Median(sorted)
		first := rs.FirstLatency.V
		if med > 0 && first > c.th.WarmupOutlierFactor*med {
			f := s.finding(fmt.Sprintf("the first request (index %d) has a %s of %s, %s times the median %s over %d requests (policy %s): a cold start is likely inside the measurement",
				rs.FirstIndex, strings.ToUpper(rs.LatencyMetric), quantity(first, schemas.UnitSeconds), sig(first/med), quantity(med, schemas.UnitSeconds), len(sorted), sig(c.th.WarmupOutlierFactor)))
			f.Metric, f.Fields, f.Values = rs.LatencyMetric, []string{"first request " + rs.LatencyMetric, "median " + rs.LatencyMetric},
				[]string{quantity(first, schemas.UnitSeconds), quantity(med, schemas.UnitSeconds)}
			o.add(f)
		} else if med > 0 {
			o.note(fmt.Sprintf("first request's %s is %s times the median", rs.LatencyMetric, sig(first/med)))
		}
	}
	return o
}

// warmupLabels are run labels by which tools record their warm-up: a
// request count or, for GuideLLM, a duration in seconds.
var warmupLabels = []string{"warmup_request_count", "warmup_records", "num_warmups", "warmup_duration_s"}

// warmupLabel returns the first warm-up label of a run with a numeric value.
func warmupLabel(d *RunData) (string, float64, bool) {
	for _, k := range warmupLabels {
		if v, ok := d.Run.Labels[k]; ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 {
				return k, f, true
			}
		}
	}
	return "", 0, false
}

func hasFlag(d *RunData, flag string) bool { return slices.Contains(d.Run.Flags, flag) }

// completeRequests returns the run's request summary when its rows are
// every request of the run, and nil when there are none or they are a
// sample (GuideLLM keeps a sample by default: flag requests_sampled).
func completeRequests(d *RunData) *RequestStats {
	if d.Requests == nil || hasFlag(d, "requests_sampled") {
		return nil
	}
	return d.Requests
}

func checkFailures(c *checker, s subject) outcome {
	d := s.runs[0]
	completed, failed := d.Run.Completed, d.Run.Failed
	source := "the run"
	if rs := completeRequests(d); rs != nil && rs.UnknownStatus == 0 && rs.OK+rs.Failed > 0 && (!completed.OK || !failed.OK) {
		if !completed.OK {
			completed = schemas.Some(rs.OK)
		}
		if !failed.OK {
			failed = schemas.Some(rs.Failed)
		}
		source = "the request rows"
	}
	derived := ""
	if hasFlag(d, "failed_derived_from_num_prompts") {
		derived = " (failed derived as num_prompts - completed)"
	}
	var o outcome
	switch {
	case hasFlag(d, "no_successful_requests") || (completed.OK && completed.V == 0):
		f := s.finding(fmt.Sprintf("no request succeeded (completed %s, failed %s%s): every statistic of the run is missing or meaningless, whatever the file's zeros say",
			intText(completed), intText(failed), derived))
		f.Fields, f.Values = []string{"completed", "failed"}, []string{intText(completed), intText(failed)}
		o.add(f)
	case !failed.OK:
		f := s.finding(fmt.Sprintf("the source does not report failed requests (failed unknown, completed %s): the failure rate, and with it the bias of the latency statistics, cannot be verified",
			intText(completed)))
		f.Unverified, f.Fields, f.Values = true, []string{"failed"}, []string{unknown}
		o.add(f)
	default:
		total := failed.V
		if completed.OK {
			total += completed.V
		} else if d.Run.NumPrompts.OK {
			total = d.Run.NumPrompts.V
		} else {
			f := s.finding(fmt.Sprintf("%d requests failed and the number of successful ones is unknown, so the failure rate cannot be verified", failed.V))
			f.Unverified, f.Fields, f.Values = true, []string{"completed"}, []string{unknown}
			o.add(f)
			return o
		}
		frac := 0.0
		if total > 0 {
			frac = float64(failed.V) / float64(total)
		}
		if frac > c.th.MaxFailedFraction {
			f := s.finding(fmt.Sprintf("%d of %d requests failed (%s, policy limit %s)%s: latency statistics over the surviving requests are biased",
				failed.V, total, percent(frac), percent(c.th.MaxFailedFraction), derived))
			f.Fields, f.Values = []string{"failed"}, []string{fmt.Sprintf("%d of %d", failed.V, total)}
			o.add(f)
		} else {
			o.note(fmt.Sprintf("%d of %d requests failed (%s, from %s)", failed.V, total, percent(frac), source))
		}
	}
	return o
}

// observations returns how many observations a statistic covers, when
// known: the row's n, or for request-level metrics the run's successful
// requests.
func observations(d *RunData, m schemas.Metric) (int64, bool) {
	if m.N.OK {
		return m.N.V, true
	}
	def, ok := schemas.Lookup(m.MetricID)
	if !ok || def.Level != schemas.LevelRequest {
		return 0, false
	}
	if d.Run.Completed.OK {
		return d.Run.Completed.V, true
	}
	if rs := completeRequests(d); rs != nil && rs.UnknownStatus == 0 && rs.OK > 0 {
		return rs.OK, true
	}
	return 0, false
}

func checkSampleSize(c *checker, s subject) outcome {
	d := s.runs[0]
	type claim struct {
		p   float64
		ids []string
		n   []int64
	}
	var claims []*claim
	find := func(p float64) *claim {
		for _, cl := range claims {
			if cl.p == p {
				return cl
			}
		}
		cl := &claim{p: p}
		claims = append(claims, cl)
		return cl
	}
	// best[id/p] is the largest n over the rows of one metric and
	// percentile (a computed row may know n where the reported one does
	// not).
	best := map[string]int64{}
	var order []string
	pcts := map[string]float64{}
	idOf := map[string]schemas.MetricID{}
	anyKnown := false
	for _, m := range d.Metrics {
		if !m.Value.OK {
			continue
		}
		var p float64
		switch {
		case m.Stat == schemas.StatP && m.Percentile.OK:
			p = m.Percentile.V
		case m.Stat == schemas.StatMedian:
			p = 50
		default:
			continue
		}
		if !(p > 0 && p < 100) {
			continue
		}
		if def, ok := schemas.Lookup(m.MetricID); ok && def.Direction == schemas.NoDirection {
			continue // a descriptive percentile (lengths, counts), not a claim about performance
		}
		n, ok := observations(d, m)
		if !ok {
			continue
		}
		anyKnown = true
		k := string(m.MetricID) + "/" + strconv.FormatFloat(p, 'g', -1, 64)
		if _, seen := best[k]; !seen {
			order = append(order, k)
			pcts[k], idOf[k] = p, m.MetricID
		}
		if n > best[k] {
			best[k] = n
		}
	}
	if !anyKnown {
		return skipped("no percentile with a known number of observations")
	}
	for _, k := range order {
		p, n := pcts[k], best[k]
		need := int64(stats.EarlyStoppingH(1, p/100) + 1)
		if n < need {
			cl := find(p)
			cl.ids = append(cl.ids, string(idOf[k]))
			cl.n = append(cl.n, n)
		}
	}
	slices.SortFunc(claims, func(x, y *claim) int {
		switch {
		case x.p < y.p:
			return -1
		case x.p > y.p:
			return 1
		}
		return 0
	})
	var o outcome
	if len(claims) == 0 {
		o.note(fmt.Sprintf("%d percentile claims have enough samples", len(order)))
		return o
	}
	var parts, values, metrics []string
	for _, cl := range claims {
		need := stats.EarlyStoppingH(1, cl.p/100) + 1
		var over []string
		for i, id := range cl.ids {
			over = append(over, fmt.Sprintf("%s over %d", id, cl.n[i]))
			values = append(values, fmt.Sprintf("%s %s: n=%d < %d", pctText(cl.p), id, cl.n[i], need))
			if !slices.Contains(metrics, id) {
				metrics = append(metrics, id)
			}
		}
		parts = append(parts, fmt.Sprintf("%s needs %d (%s)", pctText(cl.p), need, strings.Join(over, ", ")))
	}
	f := s.finding(fmt.Sprintf("percentiles claimed with fewer samples than MLPerf early stopping needs to bound them at 99%% confidence: %s; such a percentile is little more than the largest values seen",
		strings.Join(parts, "; ")))
	f.Metric, f.Values = strings.Join(metrics, ", "), values
	o.add(f)
	return o
}

func checkUnverified(c *checker, s subject) outcome {
	d := s.runs[0]
	var o outcome
	r := d.Run

	// Inventory, field by field.
	var missing []string
	known := 0
	for _, f := range inventoryFields(r.SUT) {
		if f.Value != "" {
			known++
		}
	}
	for _, name := range c.policy.RequiredInventory {
		if inventoryValue(r.SUT, name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		lead := "the system-under-test inventory lacks"
		if known == 0 {
			lead = "no system-under-test inventory was supplied; unknown"
		}
		f := s.finding(fmt.Sprintf("%s %s (supply %s with verdict ingest --sut FILE): the result cannot be tied to a system",
			lead, strings.Join(missing, ", "), pick(len(missing) == 1, "it", "them")))
		f.Unverified, f.Fields = true, prefixed("sut.", missing)
		f.Values = repeat(unknown, len(missing))
		o.add(f)
	}

	// Window.
	var win []string
	if r.WindowKind == "" {
		win = append(win, "window_kind")
	}
	if !r.DurationS.OK {
		win = append(win, "duration_s")
	}
	if len(win) > 0 {
		f := s.finding(fmt.Sprintf("the measurement window is unknown (%s): the run's rates cannot be tied to a window", strings.Join(win, ", ")))
		f.Unverified, f.Fields, f.Values = true, win, repeat(unknown, len(win))
		o.add(f)
	}

	// Load settings.
	var load []string
	if scenarioUnknown(r.Scenario) {
		load = append(load, "scenario")
	}
	if arrivalUnknown(r.Arrival) {
		load = append(load, "arrival")
	}
	if len(load) > 0 {
		f := s.finding(fmt.Sprintf("how load was offered is unknown (%s): the run cannot be placed on a load curve", strings.Join(load, ", ")))
		f.Unverified, f.Fields, f.Values = true, load, repeat(unknown, len(load))
		o.add(f)
	}

	// Definitions this build does not know.
	var unknownIDs []string
	for _, m := range d.Metrics {
		if _, ok := schemas.Lookup(m.MetricID); !ok && !slices.Contains(unknownIDs, string(m.MetricID)) {
			unknownIDs = append(unknownIDs, string(m.MetricID))
		}
	}
	if len(unknownIDs) > 0 {
		f := s.finding(fmt.Sprintf("metric definitions unknown to this verdict: %s (a newer bundle, or a registry entry missing)", strings.Join(unknownIDs, ", ")))
		f.Unverified, f.Metric, f.Fields, f.Values = true, strings.Join(unknownIDs, ", "), []string{"metric_id"}, unknownIDs
		o.add(f)
	}

	// Flags saying a definition is uncertain.
	var flags, notes []string
	for _, fl := range r.Flags {
		if uncertainFlag(fl) {
			flags = append(flags, fl)
			_, note := effectOfFlag(fl)
			notes = append(notes, fl+": "+note)
		}
	}
	if len(flags) > 0 {
		f := s.finding(fmt.Sprintf("the source leaves a definition uncertain (%s)", strings.Join(notes, "; ")))
		f.Unverified, f.Fields, f.Values = true, []string{"flags"}, flags
		o.add(f)
	}
	if len(o.findings) == 0 {
		o.note("inventory, window, load settings and definitions recorded")
	}
	return o
}

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// unmaintainedTools maps a tool (schemas.Run.Tool) to its successor.
var unmaintainedTools = map[string]string{
	"genai-perf": "AIPerf (github.com/ai-dynamo/aiperf), which NVIDIA names as GenAI-Perf's successor; its TTFT and output lengths count reasoning tokens, so re-measure rather than convert",
}

func checkUnmaintained(c *checker, s subject) outcome {
	d := s.runs[0]
	var o outcome
	if succ, ok := unmaintainedTools[d.Run.Tool]; ok {
		f := s.finding(fmt.Sprintf("the run comes from %s, which is no longer maintained; its known bugs stay unfixed. Successor: %s", d.Run.Tool, succ))
		f.Fields, f.Values = []string{"tool"}, []string{d.Run.Tool}
		o.add(f)
	} else {
		o.note(orUnknown(d.Run.Tool) + " is not known to be unmaintained")
	}
	return o
}

// defectFlags are run flags by which the source tool declares the run
// invalid, or by which an ingestor marks numbers a known tool bug corrupts.
var defectFlags = []struct{ flag, meaning string }{
	{"result_invalid", "MLPerf LoadGen declared the result INVALID"},
	{"min_duration_not_met", "the run was shorter than LoadGen's minimum duration"},
	{"min_queries_not_met", "the run issued fewer queries than LoadGen's minimum"},
	{"early_stopping_not_met", "LoadGen's early-stopping criterion was not met"},
	{"perf_constraints_not_met", "the scenario's latency constraints were not met"},
	{"loadgen_errors", "LoadGen reported errors"},
	{"negative_tpot", "LoadGen reported a negative TPOT"},
	{"run_cancelled", "the run was cancelled before it finished (AIPerf was_cancelled)"},
	{"streaming_osl_inflated", "GenAI-Perf 0.0.8-0.0.9 streaming output lengths are about 5x the requested ones (perf_analyzer#298): miscounted, they make output throughput about 5x too large and ITL about 5x too small; really generated, the workload is not the one asked for"},
}

func checkDefects(c *checker, s subject) outcome {
	d := s.runs[0]
	var flags, meanings []string
	for _, df := range defectFlags {
		if hasFlag(d, df.flag) {
			flags = append(flags, df.flag)
			meanings = append(meanings, df.meaning+" ("+df.flag+")")
		}
	}
	var o outcome
	if len(flags) == 0 {
		o.note("no flag of a tool-declared invalid run or a known defect")
		return o
	}
	f := s.finding(fmt.Sprintf("the source marks this run as unusable: %s", strings.Join(meanings, "; ")))
	f.Fields, f.Values = []string{"flags"}, flags
	o.add(f)
	return o
}
