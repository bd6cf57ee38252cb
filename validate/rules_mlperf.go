package validate

import (
	"fmt"
	"math"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// MLPerf Server: the target QPS is the result. A submitter tunes the
// Server scenario's target QPS up to the highest rate at which the run
// still meets the benchmark's latency limits (the TTFT and TPOT bounds at
// p99 for LLMs, the target latency otherwise); LoadGen marks the run
// invalid when it does not. Two Server submissions of one benchmark under
// the same limits are compared by their QPS, not refused for offering
// different rates (docs/formats/mlperf.md, "Server: QPS is the result").

// mlperfServer reports whether a run is an MLPerf LoadGen Server (or
// Interactive) run.
func mlperfServer(d *RunData) bool {
	return d.Run.Tool == "mlperf" && d.Run.Scenario == schemas.ScenarioServer
}

// mlperfLimits are the latency limits a Server run was tuned against.
var mlperfLimits = []struct {
	id   schemas.MetricID
	what string
}{
	{schemas.TTFTScheduledLimit, "TTFT"}, {schemas.TPOTLoadGenLimit, "TPOT"}, {schemas.E2EScheduledLimit, "latency"},
}

// limitOf returns a run's reported limit of one kind.
func limitOf(d *RunData, id schemas.MetricID) (float64, bool) {
	for _, m := range d.Metrics {
		if m.MetricID == id && m.Stat == schemas.StatValue && m.Value.OK {
			return m.Value.V, true
		}
	}
	return 0, false
}

// mlperfBenchmark names the benchmark and scenario of a run ("llama2-70b-99
// Server"), from its submission path.
func mlperfBenchmark(d *RunData) (bench, scenario string) {
	bench = d.Run.Labels["mlperf_benchmark"]
	if bench == "" {
		bench = d.Run.Model
	}
	scenario = d.Run.Labels["mlperf_scenario"]
	if scenario == "" {
		scenario = "Server"
	}
	return bench, scenario
}

// checkMLPerfServer is V002 for two MLPerf Server runs: the benchmark, the
// scenario and the latency limits must be the same, and the QPS is then
// the result, reported as an info finding.
func checkMLPerfServer(s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	var o outcome
	ba, sa := mlperfBenchmark(a)
	bb, sb := mlperfBenchmark(b)
	switch {
	case ba == "" || bb == "":
		f := s.finding("the MLPerf benchmark of " + joinAnd(missingNames(ba == "", a, bb == "", b)) + " is unknown (no <benchmark>/Server/ directory in its path), so whether both QPS results are of one benchmark cannot be verified")
		f.Unverified, f.Fields, f.Values = true, []string{"mlperf_benchmark"}, []string{orUnknown(ba), orUnknown(bb)}
		o.add(f)
	case ba != bb:
		f := s.finding(fmt.Sprintf("the runs are of different MLPerf benchmarks, %s for %s and %s for %s: their QPS results are of different workloads and latency limits", ba, a.Name(), bb, b.Name()))
		f.Fields, f.Values = []string{"mlperf_benchmark"}, []string{ba, bb}
		o.add(f)
	}
	if sa != sb {
		f := s.finding(fmt.Sprintf("the runs are of different MLPerf scenarios, %s for %s and %s for %s (LoadGen logs both as Server; Interactive has tighter latency limits)", sa, a.Name(), sb, b.Name()))
		f.Fields, f.Values = []string{"mlperf_scenario"}, []string{sa, sb}
		o.add(f)
	}
	var same []string
	for _, l := range mlperfLimits {
		va, oka := limitOf(a, l.id)
		vb, okb := limitOf(b, l.id)
		switch {
		case !oka && !okb:
		case oka != okb:
			f := s.finding(fmt.Sprintf("the %s limit is recorded for %s only, so whether both QPS results were tuned to the same limits cannot be verified", l.what, pick(oka, a, b).Name()))
			f.Unverified, f.Metric, f.Fields, f.Values = true, string(l.id), []string{string(l.id)}, []string{limitText(va, oka), limitText(vb, okb)}
			o.add(f)
		case !approxEqual(va, vb):
			f := s.finding(fmt.Sprintf("the %s limits differ: %s for %s, %s for %s; a target QPS is tuned to its limits, so QPS under different limits are not comparable",
				l.what, quantity(va, schemas.UnitSeconds), a.Name(), quantity(vb, schemas.UnitSeconds), b.Name()))
			f.Metric, f.Fields, f.Values = string(l.id), []string{string(l.id)}, []string{quantity(va, schemas.UnitSeconds), quantity(vb, schemas.UnitSeconds)}
			o.add(f)
		default:
			same = append(same, l.what+" "+quantity(va, schemas.UnitSeconds))
		}
	}
	if len(same) == 0 && len(o.findings) == 0 {
		f := s.finding("neither run records its latency limits, so whether both QPS results were tuned to the same limits cannot be verified")
		f.Unverified, f.Fields, f.Values = true, []string{"latency limits"}, []string{unknown, unknown}
		o.add(f)
	}
	if len(o.findings) > 0 {
		return o
	}
	qa, qb := a.Run.RequestRate, b.Run.RequestRate
	msg := fmt.Sprintf("MLPerf Server: the target QPS is the result, each tuned to meet the same limits (%s at p99): %s for %s, %s for %s",
		strings.Join(same, ", "), rateText(qa), a.Name(), rateText(qb), b.Name())
	if qa.OK && qb.OK && qa.V > 0 && !math.IsInf(qa.V, 0) && !math.IsInf(qb.V, 0) {
		msg += fmt.Sprintf(" (%s %+.3g%%)", b.Name(), 100*(qb.V-qa.V)/qa.V)
	}
	f := s.finding(msg)
	f.severity, f.Metric, f.Fields, f.Values = Info, "request_rate", []string{"request_rate"}, []string{rateText(qa), rateText(qb)}
	o.add(f)
	o.note(fmt.Sprintf("benchmark %s, scenario %s, limits %s", ba, sa, strings.Join(same, ", ")))
	return o
}

func limitText(v float64, ok bool) string {
	if !ok {
		return unknown
	}
	return quantity(v, schemas.UnitSeconds)
}

// missingNames lists the runs whose flag is set.
func missingNames(ma bool, a *RunData, mb bool, b *RunData) []string {
	var out []string
	if ma {
		out = append(out, a.Name())
	}
	if mb {
		out = append(out, b.Name())
	}
	return out
}
