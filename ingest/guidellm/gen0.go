package guidellm

import (
	"fmt"
	"math"
	"strconv"

	"github.com/verdict-llm/verdict/schemas"
)

// GuideLLM v0.1's DEFAULT_PERCENTILES.
var gen0Pcts = []float64{1, 5, 10, 50, 90, 95, 99}

// readGen0 reads a v0.1 TextGenerationBenchmark: every result and error is
// kept, and the statistics are the computed fields pydantic serialises
// (numpy means and linear percentiles over the results).
func (r *benchReader) readGen0(run *schemas.Run) error {
	b := r.b
	r.gen0Setup(run)
	results, errs := b.get("results"), b.get("errors")
	if results.kind != kArray {
		return r.errAt(results, "results", "expected a list, found %s", results.kind)
	}
	if !errs.isNull() && errs.kind != kArray {
		return r.errAt(errs, "errors", "expected a list, found %s", errs.kind)
	}
	nerr := 0
	if errs != nil {
		nerr = len(errs.vals)
	}
	run.Completed, run.Failed = schemas.Some(int64(len(results.vals))), schemas.Some(int64(nerr))
	run.NumPrompts = schemas.Some(int64(len(results.vals) + nerr))
	if len(results.vals) == 0 {
		r.flag("no_successful_requests")
	}
	if d, ok, err := b.get("duration").num(); err == nil && ok && d > 0 {
		run.DurationS = schemas.Some(d)
	}
	run.WindowStart, run.WindowEnd = unixTime(b.get("start_time")), unixTime(b.get("end_time"))
	if run.WindowStart.OK {
		run.Labels["window"] = "first listed result's start -> last listed result's end"
	}
	if len(results.vals) > 0 {
		if err := r.gen0Stats(run); err != nil {
			return err
		}
	}
	return r.gen0Requests(run, results, errs)
}

// gen0Setup sets the run's scenario and what the report's args record.
func (r *benchReader) gen0Setup(run *schemas.Run) {
	b, args := r.b, r.top.get("args")
	mode := b.get("mode").str()
	run.Labels["mode"] = mode
	switch mode {
	case "synchronous":
		strategy(run, "synchronous", nil, nil, nil)
	case "throughput":
		strategy(run, "throughput", nil, nil, nil)
	default:
		typ := args.get("rate_type").str()
		if typ != "constant" && typ != "poisson" {
			typ = "async"
		}
		strategy(run, typ, b.get("rate"), nil, nil)
		if typ == "async" {
			run.Scenario, run.Arrival = schemas.ScenarioServer, schemas.ArrivalUnknown
			if v := b.get("rate").numOr(0); v > 0 {
				run.RequestRate = schemas.Some(v)
			}
		}
	}
	run.Model = firstStr(args.get("model"))
	run.Backend = firstStr(args.get("backend"))
	run.Tokenizer = firstStr(args.get("tokenizer"))
	run.Labels["target"] = args.get("target").scalar()
	run.Labels["data"] = args.get("data").scalar()
}

// gen0Stats emits the reported statistics: means and percentile maps of
// the results, and two rates over the results' span.
func (r *benchReader) gen0Stats(run *schemas.Run) error {
	b := r.b
	base := schemas.Metric{RunID: run.ID, Source: schemas.SourceReported}
	for _, s := range []struct {
		mean, pcts string
		id         schemas.MetricID
		scale      float64
	}{
		{"request_latency", "request_latency_percentiles", schemas.E2E, 1},
		{"time_to_first_token", "time_to_first_token_percentiles", schemas.TTFT, 1e-3},
		{"inter_token_latency", "inter_token_latency_percentiles", schemas.TPOTTokenWeighted, 1e-3},
		{"prompt_token", "prompt_token_percentiles", schemas.InputTokens, 1},
		{"output_token", "output_token_percentiles", schemas.OutputTokens, 1},
	} {
		unit := schemas.MustLookup(s.id).Unit
		if v, ok := r.value(b.get(s.mean), s.mean, true); ok {
			m := base
			m.MetricID, m.Stat, m.Method, m.Unit, m.Value, m.NativeName = s.id, schemas.StatMean, "arithmetic", unit, schemas.Some(v*s.scale), s.mean
			if err := r.emit(m); err != nil {
				return err
			}
		}
		if err := r.gen0Percentiles(base, s.pcts, s.id, unit, s.scale); err != nil {
			return err
		}
	}
	for _, s := range []struct {
		key string
		id  schemas.MetricID
	}{{"completed_request_rate", schemas.RequestThroughputSpan}, {"output_token_throughput", schemas.OutputTokenThroughputSpan}} {
		if v, ok := r.value(b.get(s.key), s.key, true); ok {
			m := base
			m.MetricID, m.Stat, m.Unit, m.Value, m.NativeName = s.id, schemas.StatValue, schemas.MustLookup(s.id).Unit, schemas.Some(v), s.key
			m.Note = "window from the first listed result's start to the last listed result's end (results are listed in completion order)"
			if err := r.emit(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// gen0Percentiles emits one percentile map ({"50": v, ...}).
func (r *benchReader) gen0Percentiles(base schemas.Metric, key string, id schemas.MetricID, unit string, scale float64) error {
	ps := r.b.get(key)
	for i, k := range ps.keysOrNil() {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil || !(p >= 0 && p <= 100) {
			r.reject(schemas.TableMetrics, ps.vals[i], r.record(), key+"."+k, "not a percentile key")
			continue
		}
		v, ok := r.value(ps.vals[i], key+"."+k, true)
		if !ok {
			continue
		}
		m := base
		m.MetricID, m.Stat, m.Method, m.Unit, m.Value, m.NativeName = id, schemas.StatP, string(r.method), unit, schemas.Some(v*scale), key+"."+k
		m.Percentile = schemas.Some(p)
		if err := r.emit(m); err != nil {
			return err
		}
	}
	return nil
}

// gen0Requests reports every result and error as a request row and
// recomputes the statistics from the results.
func (r *benchReader) gen0Requests(run *schemas.Run, results, errs *node) error {
	rc := newRecompute(schemas.TTFT, schemas.E2E, schemas.TPOTTokenWeighted, schemas.InputTokens, schemas.OutputTokens)
	origin := math.NaN()
	if v, ok, err := r.b.get("start_time").num(); err == nil && ok {
		origin = v
	}
	var t requestTally
	for j, rec := range results.vals {
		ok, err := r.request(run, rec, r.fields(rec), 0, j, &t, &origin, window{}, rc)
		if err != nil {
			return err
		}
		if !ok {
			t.rejected++
		}
		t.index++
	}
	if errs != nil {
		for j, e := range errs.vals {
			where := fmt.Sprintf("%s, errors[%d]", r.record(), j)
			if e.kind != kObject {
				r.reject(schemas.TableRequests, e, where, "", "expected an error object, found "+e.kind.String())
				t.index++
				continue
			}
			q := schemas.Request{RunID: run.ID, Index: int64(t.index), Phase: schemas.PhaseProfiling, Status: schemas.StatusError,
				Error: firstNonEmpty(e.get("message").str(), "error")}
			if err := r.sink.Request(&q); err != nil {
				return err
			}
			t.index++
		}
	}
	if t.rejected > 0 || len(results.vals) == 0 {
		return nil
	}
	return r.emitComputed(run, rc)
}
