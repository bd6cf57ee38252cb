package vllm

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/internal/jsonscan"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// throughput reads a `vllm bench throughput --output-json` object: an
// offline engine run with no notion of failure and no model or date in the
// file.
func (r *runReader) throughput() (string, error) {
	rec := r.rec
	run := schemas.Run{
		ID: ingest.RunID("vllm", r.in.SHA256(), rec.index), Tool: "vllm", Format: kindThroughput,
		ToolVersion: "vllm bench throughput (2024-05-16 or later)", SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(),
		SourceRecord: int64(rec.index), Scenario: schemas.ScenarioOffline, Arrival: schemas.ArrivalAllAtOnce,
		RequestRate: schemas.Some(math.Inf(1)), WindowKind: schemas.WindowKindEngine,
	}
	var err error
	if run.DurationS, err = r.num("elapsed_time"); err != nil {
		return "", err
	}
	if d := run.DurationS; !d.OK || !(d.V > 0) || math.IsInf(d.V, 0) {
		v, _ := rec.get("elapsed_time")
		return "", r.errAt(v, "elapsed_time", "elapsed_time must be a positive number of seconds")
	}
	if run.NumPrompts, err = r.count("num_requests"); err != nil {
		return "", err
	}
	total, err := r.count("total_num_tokens")
	if err != nil {
		return "", err
	}
	if total.OK {
		run.Labels = map[string]string{"total_num_tokens": strconv.FormatInt(total.V, 10)}
	}
	base := schemas.Metric{RunID: run.ID, Stat: schemas.StatValue}
	for _, k := range []struct {
		key string
		id  schemas.MetricID
	}{{"requests_per_second", schemas.OfflineRequestThroughput}, {"tokens_per_second", schemas.OfflineTotalTokenThroughput}} {
		v, err := r.num(k.key)
		if err != nil {
			return "", err
		}
		if !v.OK {
			continue
		}
		m := base
		m.MetricID, m.Unit, m.NativeName, m.Source = k.id, schemas.MustLookup(k.id).Unit, k.key, schemas.SourceReported
		if v.V < 0 || math.IsNaN(v.V) || math.IsInf(v.V, 0) {
			mv, _ := rec.get(k.key)
			r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: mv.pos.Line, Column: mv.pos.Col,
				Record: r.recordName(), Field: k.key, Reason: "rate must be finite and non-negative"})
			continue
		}
		m.Value = v
		if err := r.sink.Metric(&m); err != nil {
			return "", err
		}
	}
	// The file's rates are its counts over its elapsed time; recompute
	// them so a hand-edited or truncated file shows.
	d := run.DurationS.V
	for _, c := range []struct {
		id schemas.MetricID
		n  schemas.Opt[int64]
	}{{schemas.OfflineRequestThroughput, run.NumPrompts}, {schemas.OfflineTotalTokenThroughput, total}} {
		if !c.n.OK {
			continue
		}
		m := base
		m.MetricID, m.Unit, m.Source = c.id, schemas.MustLookup(c.id).Unit, schemas.SourceComputed
		m.Value, m.N = schemas.Some(float64(c.n.V)/d), c.n
		if err := r.sink.Metric(&m); err != nil {
			return "", err
		}
	}
	if err := r.energy(&run); err != nil {
		return "", err
	}
	r.warnUnknown(&run, append([]string{"elapsed_time", "num_requests", "total_num_tokens", "requests_per_second", "tokens_per_second"}, energyKeys...)...)
	return run.ToolVersion, r.sink.Run(&run)
}

// latency reads a `vllm bench latency --output-json` object: repeated
// timings of one offline generate call over a fixed batch. Each iteration
// is stored as an observation row of batch_latency, and the reported mean
// and percentiles are recomputed from them.
func (r *runReader) latency() (string, error) {
	rec := r.rec
	run := schemas.Run{
		ID: ingest.RunID("vllm", r.in.SHA256(), rec.index), Tool: "vllm", Format: kindLatency,
		ToolVersion: "vllm bench latency (2024-05-16 or later)", SourcePath: r.in.Path, SourceSHA256: r.in.SHA256(),
		SourceRecord: int64(rec.index), Scenario: schemas.ScenarioBatchLatency, Arrival: schemas.ArrivalClosedLoop,
		MaxConcurrency: schemas.Some(int64(1)), WindowKind: schemas.WindowKindEngine,
	}
	if rec.has("std_latency") {
		run.ToolVersion = "vllm bench latency (with std_latency: 2026 or later)"
	}
	v, _ := r.use("latencies")
	if v.kind != jsonscan.BeginArray {
		return "", r.errAt(v, "latencies", "expected an array, found %s", describe(v))
	}
	var lats []float64
	if v.n > 0 {
		c, err := openCursor(r.in, "latencies", v)
		if err != nil {
			return "", err
		}
		defer c.close()
		for i := 0; i < v.n; i++ {
			tok, err := c.next()
			if err != nil {
				return "", err
			}
			f, perr := jsonscan.Float(tok.Raw)
			if tok.Kind != jsonscan.Number || perr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: tok.Pos.Line, Column: tok.Pos.Col,
					Record: r.recordName(), Field: fmt.Sprintf("latencies[%d]", i), Reason: "iteration latency must be a finite non-negative number"})
				if err := c.sc.Skip(tok); err != nil {
					return "", syntaxErr(r.in.Path, err)
				}
				continue
			}
			lats = append(lats, f)
			m := schemas.Metric{RunID: run.ID, MetricID: schemas.BatchLatency, Stat: schemas.StatObservation, Unit: schemas.UnitSeconds,
				Source: schemas.SourceReported, NativeName: fmt.Sprintf("latencies[%d]", i), Value: schemas.Some(f)}
			if err := r.sink.Metric(&m); err != nil {
				return "", err
			}
		}
	}
	run.NumPrompts = schemas.Some(int64(v.n))
	base := schemas.Metric{RunID: run.ID, MetricID: schemas.BatchLatency, Unit: schemas.UnitSeconds, Source: schemas.SourceReported}
	for _, k := range []struct{ key, stat, method string }{{"avg_latency", schemas.StatMean, "arithmetic"}, {"std_latency", schemas.StatStd, "population"}} {
		f, err := r.num(k.key)
		if err != nil {
			return "", err
		}
		if !f.OK {
			continue
		}
		m := base
		m.Stat, m.Method, m.NativeName, m.Value = k.stat, k.method, k.key, f
		if err := r.sink.Metric(&m); err != nil {
			return "", err
		}
	}
	pv, ok := r.use("percentiles")
	if ok && pv.kind == jsonscan.BeginObject {
		for _, pm := range pv.obj {
			p, err := strconv.ParseFloat(pm.key, 64)
			if err != nil || p < 0 || p > 100 || pm.val.kind != jsonscan.Number {
				r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: pm.val.pos.Line, Column: pm.val.pos.Col,
					Record: r.recordName(), Field: "percentiles." + pm.key, Reason: "expected a percentile key 0-100 with a number"})
				continue
			}
			f, _ := jsonscan.Float([]byte(pm.val.text))
			m := base
			m.Stat, m.Method, m.Percentile, m.NativeName, m.Value = schemas.StatP, string(stats.Linear), schemas.Some(p), "percentiles."+pm.key, schemas.Some(f)
			if err := r.sink.Metric(&m); err != nil {
				return "", err
			}
		}
	} else if ok {
		return "", r.errAt(pv, "percentiles", "expected an object, found %s", describe(pv))
	}
	if len(lats) > 0 {
		sorted := slices.Sorted(slices.Values(lats))
		n := schemas.Some(int64(len(lats)))
		add := func(stat, method string, p schemas.Opt[float64], val float64) error {
			m := schemas.Metric{RunID: run.ID, MetricID: schemas.BatchLatency, Stat: stat, Method: method, Percentile: p,
				Value: schemas.Some(val), Unit: schemas.UnitSeconds, Source: schemas.SourceComputed, N: n}
			return r.sink.Metric(&m)
		}
		if err := add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, stats.Mean(lats)); err != nil {
			return "", err
		}
		if err := add(schemas.StatStd, "population", schemas.Opt[float64]{}, stats.StdDev(lats, 0)); err != nil {
			return "", err
		}
		for _, p := range []float64{10, 25, 50, 75, 90, 99} {
			if err := add(schemas.StatP, string(stats.Linear), schemas.Some(p), stats.Quantile(sorted, p/100, stats.Linear)); err != nil {
				return "", err
			}
		}
	}
	r.warnUnknown(&run, "avg_latency", "std_latency", "latencies", "percentiles")
	return run.ToolVersion, r.sink.Run(&run)
}

// warnUnknown keeps members not in known as labels and warns about them.
func (r *runReader) warnUnknown(run *schemas.Run, known ...string) {
	for _, m := range r.rec.members {
		if slices.Contains(known, m.key) {
			continue
		}
		if run.Labels == nil {
			run.Labels = map[string]string{}
		}
		text, _ := labelText(m.val)
		run.Labels[m.key] = text
		r.sink.Warn(fmt.Sprintf("%s: unknown key %q (%s) kept as a label", r.recordName(), m.key, describe(m.val)))
	}
}
