package mlperfendpoints

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/ingest/inferenceperf"
	"github.com/verdict-llm/verdict/ingest/internal/rows"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// series are the summary's metric dicts: the definition, its
// early-stopping definition, and the factor to storage units.
var series = []struct {
	key          string
	id, earlyID  schemas.MetricID
	div          float64
	countsSample bool // one value per completed sample
}{
	{"ttft", schemas.TTFT, schemas.TTFTEarlyStopping, 1e9, false},
	{"tpot", schemas.TPOTAfterFirstChunk, schemas.TPOTAfterFirstChunkEarlyStopping, 1e9, false},
	{"latency", schemas.E2E, schemas.E2EEarlyStopping, 1e9, true},
	{"output_sequence_lengths", schemas.OutputTokens, "", 1, false},
	{"input_sequence_lengths", schemas.InputTokens, "", 1, false},
}

// A summary is one result_summary.json being read.
type summary struct {
	in   *ingest.Input
	sink ingest.Sink
	run  schemas.Run
	m    rows.Metrics
	root *jtree.Node
}

func readSummary(in *ingest.Input, sink ingest.Sink, cfg *jtree.Node) (*summary, error) {
	root, err := jtree.ParseObject(in, sink)
	if err != nil {
		return nil, err
	}
	id := ingest.RunID("mlperf-endpoints", in.SHA256(), 0)
	s := &summary{in: in, sink: sink, root: root, m: rows.Metrics{Sink: sink, RunID: id, Record: "result summary", Path: in.Path},
		run: schemas.Run{ID: id, Tool: "mlperf-endpoints", ToolVersion: "unknown", Format: kindSummary, SourcePath: in.Path, SourceSHA256: in.SHA256(),
			Scenario: schemas.ScenarioUnknown, Arrival: schemas.ArrivalUnknown, Labels: map[string]string{},
			TokenSource: "client tokenizer (the tool's HF tokenizer pool)"}}
	if v, ok := root.Get("version").Str(); ok && v != "" {
		s.run.ToolVersion = v
	}
	if g, ok := root.Get("git_sha").Str(); ok {
		s.run.Labels["mlperf_endpoints.git_sha"] = g
	}
	if err := s.counts(); err != nil {
		return nil, err
	}
	s.state()
	s.load(root.Get("run_config").Get("load_pattern"))
	if cfg.IsObject() {
		s.config(cfg)
	}
	for _, sr := range series {
		if err := s.seriesRows(sr.key, sr.id, sr.earlyID, sr.div, sr.countsSample); err != nil {
			return nil, err
		}
	}
	if err := s.throughput(); err != nil {
		return nil, err
	}
	for _, mem := range root.Get("finish_reason_counts").Fields() {
		s.run.Labels["mlperf_endpoints.finish_reason."+mem.Key] = rows.Label(mem.Val)
	}
	for _, mem := range root.Get("run_config").Fields() {
		if t, ok := mem.Val.Scalar(); ok && t != "" {
			s.run.Labels["mlperf_endpoints.run_config."+mem.Key] = t
		} else if mem.Key == "warmup" {
			s.run.Labels["mlperf_endpoints.warmup"] = rows.Label(mem.Val.Get("enabled"))
		}
	}
	slices.Sort(s.run.Flags)
	return s, nil
}

func (s *summary) count(key string) schemas.Opt[int64] {
	n := s.root.Get(key)
	if n.IsNull() {
		return schemas.Opt[int64]{}
	}
	v, ok := n.Int()
	if !ok || v < 0 {
		s.m.Reject(n, key, "expected a non-negative integer count, found "+n.Describe())
		return schemas.Opt[int64]{}
	}
	return schemas.Some(v)
}

// counts reads the tracked-sample counters (warm-up samples are not in
// them) and the tracked duration. A failed sample also completes, so the
// successful ones are completed - failed.
func (s *summary) counts() error {
	issued, completed, failed := s.count("n_samples_issued"), s.count("n_samples_completed"), s.count("n_samples_failed")
	s.run.NumPrompts, s.run.Failed = issued, failed
	if completed.OK && failed.OK {
		if failed.V > completed.V {
			return jtree.ErrorAt(s.in.Path, s.root.Get("n_samples_failed"), "result summary", "n_samples_failed", "%d failed samples of %d completed", failed.V, completed.V)
		}
		s.run.Completed = schemas.Some(completed.V - failed.V)
		if failed.V > 0 {
			s.run.Flags = append(s.run.Flags, "mlperf_endpoints_latency_includes_failures")
		}
	}
	if d := s.count("duration_ns"); d.OK && d.V > 0 {
		s.run.DurationS, s.run.WindowKind = schemas.Some(float64(d.V)/1e9), schemas.WindowKindDispatch
	}
	return nil
}

// state flags a run that did not end cleanly: its metrics are partial.
func (s *summary) state() {
	st, _ := s.root.Get("state").Str()
	if st == "" {
		st = "interrupted" // the tool's own reading of a missing state
	}
	s.run.Labels["mlperf_endpoints.state"] = st
	complete, _ := s.root.Get("complete").Bool()
	if st != "complete" || !complete {
		s.run.Flags = append(s.run.Flags, "mlperf_endpoints_incomplete")
		s.sink.Warn(fmt.Sprintf("%s: the run ended %s (complete: %v): its metrics are partial", s.in.Path, st, complete))
	}
}

// load reads a load_pattern (run_config's or the config's settings).
func (s *summary) load(lp *jtree.Node) {
	typ, _ := lp.Get("type").Str()
	if typ == "" {
		return
	}
	s.run.Labels["mlperf_endpoints.load_pattern"] = typ
	switch typ {
	case "poisson":
		s.run.Scenario, s.run.Arrival = schemas.ScenarioServer, schemas.ArrivalPoisson
		if q, ok := lp.Get("target_qps").Float(); ok && q > 0 {
			s.run.RequestRate = schemas.Some(q)
		}
	case "concurrency":
		s.run.Scenario, s.run.Arrival = schemas.ScenarioConcurrency, schemas.ArrivalClosedLoop
		if c, ok := lp.Get("target_concurrency").Int(); ok && c > 0 {
			s.run.MaxConcurrency = schemas.Some(c)
		}
	case "max_throughput":
		s.run.Scenario, s.run.Arrival, s.run.RequestRate = schemas.ScenarioOffline, schemas.ArrivalAllAtOnce, schemas.Some(math.Inf(1))
	}
}

// config applies the effective config.yaml: the model, the endpoint, and
// the load pattern when the summary carries no run_config.
func (s *summary) config(cfg *jtree.Node) {
	if m, ok := cfg.Path("model_params", "name").Str(); ok {
		s.run.Model, s.run.SUT.Model = m, m
	}
	if eps := cfg.Path("endpoint_config", "endpoints").Items(); len(eps) > 0 {
		if u, ok := eps[0].Str(); ok {
			s.run.SUT.Endpoint = inferenceperf.StripCredentials(u)
		}
	}
	if t, ok := cfg.Get("type").Str(); ok {
		s.run.Labels["mlperf_endpoints.type"] = t
	}
	if s.run.Labels["mlperf_endpoints.load_pattern"] == "" {
		s.load(cfg.Path("settings", "load_pattern"))
	}
}

// seriesRows reads one metric dict: total, min, max, median, avg,
// std_dev, percentiles, early_stopping_percentiles and histogram.
func (s *summary) seriesRows(key string, id, earlyID schemas.MetricID, div float64, perSample bool) error {
	n := s.root.Get(key)
	if n.IsNull() || len(n.Fields()) == 0 {
		return nil
	}
	o := rows.DistOptions{Method: string(stats.Lower), Std: "sample", Div: div,
		Ignore: []string{"percentiles", "early_stopping_percentiles", "early_stopping", "histogram"}}
	if err := s.m.Dist(id, n, key, o); err != nil {
		return err
	}
	for _, mem := range n.Get("percentiles").Fields() {
		if err := s.percentile(id, key+".percentiles."+mem.Key, mem, div, ""); err != nil {
			return err
		}
	}
	early := n.Get("early_stopping_percentiles")
	if early.IsNull() {
		early = n.Get("early_stopping")
	}
	for _, mem := range early.Fields() {
		if earlyID == "" {
			break
		}
		if err := s.percentile(earlyID, key+".early_stopping_percentiles."+mem.Key, mem, div, "too few samples for an early-stopping estimate"); err != nil {
			return err
		}
	}
	s.checkSeries(key, n, perSample)
	return nil
}

// percentile writes one percentile; a null is stored as missing with
// nullNote (early stopping), or skipped when nullNote is empty.
func (s *summary) percentile(id schemas.MetricID, native string, mem jtree.Member, div float64, nullNote string) error {
	p, ok := rows.Percentile(mem.Key)
	if !ok {
		s.m.Reject(mem.Val, native, "not a percentile key")
		return nil
	}
	row := rows.Row{ID: id, Stat: schemas.StatP, Percentile: schemas.Some(p), Method: string(stats.Lower), Native: native}
	if mem.Val.IsNull() {
		if nullNote == "" {
			return nil
		}
		row.Note = nullNote
		return s.m.Add(row)
	}
	v, ok := s.m.Number(mem.Val, native)
	if !ok {
		return nil
	}
	row.Value = schemas.Some(v / div)
	return s.m.Add(row)
}

// checkSeries checks the dict against itself: avg = total / count where
// the count is known (latency: one value per completed sample), and the
// histogram's counts against that count.
func (s *summary) checkSeries(key string, n *jtree.Node, perSample bool) {
	completed := s.count("n_samples_completed")
	total, okT := n.Get("total").Float()
	avg, okA := n.Get("avg").Float()
	if perSample && completed.OK && completed.V > 0 && okT && okA {
		if want := total / float64(completed.V); math.Abs(want-avg) > 1e-9*math.Max(1, math.Abs(avg)) {
			s.sink.Warn(fmt.Sprintf("%s: %s.avg %v is not total / n_samples_completed = %v", s.in.Path, key, avg, want))
		}
	}
	var sum int64
	for _, c := range n.Path("histogram", "counts").Items() {
		v, _ := c.Int()
		sum += v
	}
	if perSample && completed.OK && len(n.Path("histogram", "counts").Items()) > 0 && sum != completed.V {
		s.sink.Warn(fmt.Sprintf("%s: %s.histogram counts %d samples, n_samples_completed says %d", s.in.Path, key, sum, completed.V))
	}
}

// throughput reads qps and tps, on the window the file says, and checks
// them against the counts: the legacy window gives (completed - 1) /
// window, the tracked duration completed / duration.
func (s *summary) throughput() error {
	completed := s.count("n_samples_completed")
	osl, okOSL := s.root.Path("output_sequence_lengths", "total").Float()
	qpsID, tpsID := schemas.RequestThroughput, schemas.OutputTokenThroughput
	window, samples := 0.0, 0.0
	if w := s.count("legacy_loadgen_window_duration_ns"); w.OK && w.V > 0 {
		qpsID, tpsID = schemas.RequestThroughputLoadGenWindow, schemas.OutputTokenThroughputLoadGenWindow
		window, samples = float64(w.V)/1e9, float64(completed.V-1)
		s.run.Labels["mlperf_endpoints.window"] = "legacy LoadGen (" + strconv.FormatFloat(window, 'g', -1, 64) + " s)"
	} else if s.run.DurationS.OK {
		window, samples = s.run.DurationS.V, float64(completed.V)
		s.run.Labels["mlperf_endpoints.window"] = "tracked duration"
	}
	for _, t := range []struct {
		key  string
		id   schemas.MetricID
		want float64
		ok   bool
	}{{"qps", qpsID, samples / window, completed.OK && window > 0}, {"tps", tpsID, osl / window, okOSL && window > 0}} {
		n := s.root.Get(t.key)
		if err := s.m.Value(t.id, n, t.key, ""); err != nil {
			return err
		}
		if v, ok := n.Float(); ok && t.ok && math.Abs(v-t.want) > 1e-9*math.Max(1, v) {
			s.sink.Warn(fmt.Sprintf("%s: %s %v is not what the counts and window give (%v)", s.in.Path, t.key, v, t.want))
		}
	}
	return nil
}
