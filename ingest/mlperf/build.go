package mlperf

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Formats of the two files, as recorded in Run.Format.
const (
	formatDetail  = "mlperf-detail"
	formatSummary = "mlperf-summary"
)

// LoadGen's scenario names.
const (
	scSingleStream = "SingleStream"
	scMultiStream  = "MultiStream"
	scServer       = "Server"
	scOffline      = "Offline"
)

// Method names of the statistics LoadGen reports.
const (
	methodMean          = "arithmetic" // integer nanoseconds, truncated
	methodEarlyStopping = "mlperf_early_stopping"
)

// logData is what either file says about its run, before it becomes
// records.
type logData struct {
	format   string
	scenario string // LoadGen's effective scenario
	token    schemas.Opt[bool]
	version  string
	date     string
	labels   map[string]string
	flags    []string
	metrics  []schemas.Metric // RunID is filled in by emit

	queries         schemas.Opt[int64]
	samplesPerQuery schemas.Opt[int64]
	targetQPS       schemas.Opt[float64]
}

func newLogData(format string) *logData {
	return &logData{format: format, labels: map[string]string{}}
}

func (d *logData) flag(f string) {
	if !slices.Contains(d.flags, f) {
		d.flags = append(d.flags, f)
	}
}

// addNS adds a statistic whose value LoadGen wrote in nanoseconds.
func (d *logData) addNS(id schemas.MetricID, stat string, pct float64, method, native string, ns float64) {
	m := schemas.Metric{MetricID: id, Stat: stat, Unit: schemas.UnitSeconds, Method: method,
		Source: schemas.SourceReported, NativeName: native, Value: schemas.Some(ns / 1e9)}
	if stat == schemas.StatP {
		m.Percentile = schemas.Some(pct)
	}
	if ns < 0 {
		m.Note = "negative: LoadGen's TPOT of a sample with at most one token (a broken run)"
	}
	d.metrics = append(d.metrics, m)
}

// addValue adds a run-level value in the definition's unit.
func (d *logData) addValue(id schemas.MetricID, native string, v float64, note string) {
	d.metrics = append(d.metrics, schemas.Metric{MetricID: id, Stat: schemas.StatValue, Unit: schemas.MustLookup(id).Unit,
		Source: schemas.SourceReported, NativeName: native, Value: schemas.Some(v), Note: note})
}

// has reports whether a statistic of the metric is already present; the
// first occurrence wins when a file repeats one.
func (d *logData) has(id schemas.MetricID, stat string, pct float64) bool {
	for _, m := range d.metrics {
		if m.MetricID == id && m.Stat == stat && (stat != schemas.StatP || m.Percentile.V == pct) {
			return true
		}
	}
	return false
}

// samples is the number of samples the statistics cover.
func (d *logData) samples() schemas.Opt[int64] {
	if !d.queries.OK {
		return schemas.Opt[int64]{}
	}
	spq := int64(1)
	if d.samplesPerQuery.OK {
		spq = d.samplesPerQuery.V
	}
	return schemas.Some(d.queries.V * spq)
}

// emit reports the run and its metric rows.
func emit(in *ingest.Input, d *logData, sink ingest.Sink) error {
	run := schemas.Run{
		ID: ingest.RunID("mlperf", in.SHA256(), 0), Tool: "mlperf", ToolVersion: d.version, Format: d.format,
		SourcePath: in.Path, SourceSHA256: in.SHA256(), ToolDate: d.date, Labels: d.labels,
	}
	dirScenario, benchmark := pathScenario(in.Path)
	switch {
	case dirScenario == "Interactive" && d.scenario == scServer:
		run.Labels["mlperf_scenario"] = "Interactive"
		d.flag("interactive_scenario_from_path")
	case dirScenario != "" && d.scenario != "" && dirScenario != d.scenario:
		sink.Warn(fmt.Sprintf("the directory says %s but the log's scenario is %s; the log wins", dirScenario, d.scenario))
	}
	if benchmark != "" {
		run.Model = benchmark
		run.Labels["mlperf_benchmark"] = benchmark
	}
	switch d.scenario {
	case scSingleStream:
		run.Scenario, run.Arrival, run.MaxConcurrency = schemas.ScenarioSingleStream, schemas.ArrivalClosedLoop, schemas.Some(int64(1))
	case scMultiStream:
		run.Scenario, run.Arrival = schemas.ScenarioMultiStream, schemas.ArrivalClosedLoop
	case scServer:
		run.Scenario, run.Arrival, run.RequestRate = schemas.ScenarioServer, schemas.ArrivalPoisson, d.targetQPS
	case scOffline:
		run.Scenario, run.Arrival, run.RequestRate = schemas.ScenarioOffline, schemas.ArrivalAllAtOnce, schemas.Some(math.Inf(1))
	default:
		run.Scenario, run.Arrival = schemas.ScenarioUnknown, schemas.ArrivalUnknown
	}
	run.Streaming = d.token
	if d.token.OK && d.token.V {
		run.TokenSource = "output: n_tokens the SUT reports to LoadGen with each sample"
	}
	n := d.samples()
	if n.OK {
		// LoadGen waits for every sample; it has no notion of a failed one.
		run.NumPrompts, run.Completed = n, n
	}
	slices.Sort(d.flags)
	run.Flags = d.flags
	if len(run.Labels) == 0 {
		run.Labels = nil
	}
	if err := sink.Run(&run); err != nil {
		return err
	}
	for _, m := range d.metrics {
		m.RunID = run.ID
		switch m.MetricID {
		case schemas.E2EScheduled, schemas.TTFTScheduled, schemas.TPOTLoadGen:
			m.N = n
		case schemas.QueryLatencyScheduled:
			m.N = d.queries
		}
		if err := sink.Metric(&m); err != nil {
			return err
		}
	}
	sink.Describe(d.format, "mlperf", d.version)
	return nil
}

// checkEarlyStopping compares a SingleStream or MultiStream summary's
// early-stopping text with LoadGen's arithmetic (stats.EarlyStopping*):
// with q queries at percentile p, LoadGen discards t - 1 latencies.
func checkEarlyStopping(q, discarded int, p float64) error {
	if q <= 0 || !(p > 0 && p < 1) {
		return nil
	}
	t := stats.EarlyStoppingMaxOverLatency(q, p)
	if t-1 != discarded {
		return fmt.Errorf("early stopping: with %d queries at p%s LoadGen discards %d latencies, the log says %d",
			q, strconv.FormatFloat(p*100, 'g', -1, 64), t-1, discarded)
	}
	return nil
}

// pctLabel turns LoadGen's percentile text ("99.90", "90.0", "90") into a
// number.
func pctLabel(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 100) {
		return 0, false
	}
	return f, true
}
