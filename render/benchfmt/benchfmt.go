// Package benchfmt writes runs in the Go benchmark format
// (golang.org/x/perf/benchfmt), so that benchstat can re-check a
// comparison verdict made: benchstat old.txt new.txt gives its own medians,
// intervals and Mann-Whitney test over the runs of each side.
//
// It formats finished models (runs and their metric rows); it opens no
// bundle. Each run is a block: its workload as configuration lines
// ("scenario: server"), which benchstat uses to keep runs of different
// workloads in different tables, the run's identity, platform and
// validation verdict as comment lines (benchstat ignores them, so runs of
// one workload on two platforms are compared), then one line per metric
// and source:
//
//	BenchmarkMetric/id=ttft/source=reported 1 0.0512 mean-s 0.048 median-s 0.091 p99-s
//
// Each statistic is its own unit (mean-s, p99-s, value-tokens/s), so that
// benchstat tabulates like with like; the iteration count is 1 (a run is
// one observation of its configuration). Values are in verdict's storage
// units (seconds, tokens, per-second rates).
package benchfmt

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// Run is one run to write.
type Run struct {
	Run     schemas.Run
	Metrics []schemas.Metric
	// Verdict is the run's validation verdict, "" when not validated.
	Verdict string
}

// configKeys are the workload facts written as configuration, in order.
var configKeys = []string{"tool", "scenario", "arrival", "request_rate", "max_concurrency", "burstiness", "streaming", "model"}

// Write writes runs in order.
func Write(w io.Writer, runs []Run) error {
	bw := bufio.NewWriter(w)
	for i, r := range runs {
		if i > 0 {
			bw.WriteString("\n")
		}
		writeRun(bw, r)
	}
	return bw.Flush()
}

func writeRun(w *bufio.Writer, r Run) {
	run := r.Run
	cfg := map[string]string{
		"tool": run.Tool, "scenario": string(run.Scenario), "arrival": string(run.Arrival),
		"request_rate": optFloat(run.RequestRate), "max_concurrency": optInt(run.MaxConcurrency),
		"burstiness": optFloat(run.Burstiness), "model": run.Model,
	}
	if run.Streaming.OK {
		cfg["streaming"] = strconv.FormatBool(run.Streaming.V)
	}
	for _, k := range configKeys {
		v := oneLine(cfg[k])
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(w, "%s: %s\n", k, v)
	}
	fmt.Fprintf(w, "# verdict run %s from %s (%s %s)\n", run.ID, oneLine(run.SourcePath), run.Tool, oneLine(run.ToolVersion))
	if r.Verdict != "" {
		fmt.Fprintf(w, "# validation: %s\n", r.Verdict)
	}
	for _, f := range run.SUT.Fields() {
		if f[1] != "" {
			fmt.Fprintf(w, "# sut %s: %s\n", f[0], oneLine(f[1]))
		}
	}
	if len(run.Flags) > 0 {
		fmt.Fprintf(w, "# flags: %s\n", strings.Join(run.Flags, ", "))
	}
	for _, line := range metricLines(r.Metrics) {
		w.WriteString(line + "\n")
	}
}

// metricLines groups the rows by definition and source, one line each, in
// registry order.
func metricLines(ms []schemas.Metric) []string {
	type key struct {
		id     schemas.MetricID
		source string
	}
	groups := map[key][]schemas.Metric{}
	var keys []key
	for _, m := range ms {
		if !m.Value.OK || math.IsNaN(m.Value.V) || math.IsInf(m.Value.V, 0) || m.Stat == schemas.StatObservation {
			continue
		}
		k := key{m.MetricID, m.Source}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	order := map[schemas.MetricID]int{}
	for i, d := range schemas.Registry() {
		order[d.ID] = i
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		if c := order[a.id] - order[b.id]; c != 0 {
			return c
		}
		return strings.Compare(b.source, a.source) // reported before computed
	})
	var out []string
	for _, k := range keys {
		var b strings.Builder
		fmt.Fprintf(&b, "BenchmarkMetric/id=%s/source=%s 1", k.id, k.source)
		seen := map[string]bool{}
		for _, m := range groups[k] {
			u := statName(m) + "-" + unitName(m.Unit)
			if seen[u] {
				continue // one value per unit on a line
			}
			seen[u] = true
			fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(m.Value.V, 'g', -1, 64), u)
		}
		out = append(out, b.String())
	}
	return out
}

func statName(m schemas.Metric) string {
	if m.Stat == schemas.StatP && m.Percentile.OK {
		return "p" + strconv.FormatFloat(m.Percentile.V, 'g', -1, 64)
	}
	return m.Stat
}

// unitName keeps a unit one field: no spaces.
func unitName(u string) string {
	if u == "" {
		return "1"
	}
	return strings.ReplaceAll(u, " ", "_")
}

func optFloat(o schemas.Opt[float64]) string {
	if !o.OK {
		return ""
	}
	if math.IsInf(o.V, 1) {
		return "inf"
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

func optInt(o schemas.Opt[int64]) string {
	if !o.OK {
		return ""
	}
	return strconv.FormatInt(o.V, 10)
}

// oneLine keeps untrusted text on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
