package gen

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// A HistoryRun is one run of a synthetic benchmark history (for verdict
// trend): metrics rows only, no request rows. Latency and Throughput
// scale the baseline statistics (TTFT p50 100 ms, TPOT p50 10 ms, E2E
// p50 1 s, 1,000 output tokens/s), so a test sets the values a change
// point should be found in.
type HistoryRun struct {
	ID     string
	Start  time.Time
	Labels map[string]string
	// Latency and Throughput multiply the baseline; 0 means 1.
	Latency, Throughput float64
	// Method is the percentile method of the run's rows ("" is linear).
	Method string
	// Config picks the configuration: runs of another Config ran on
	// another GPU model.
	Config int
	// EngineVersion is the inventory's engine version ("" is 0.11.2).
	EngineVersion string
}

// HistoryBundle writes runs as one bundle at dest, each with a complete
// inventory, percentiles p10 to p99.9 with their count (so a run's own
// standard error can be estimated), means with standard deviations, and
// the output token throughput and goodput.
func HistoryBundle(dest string, runs []HistoryRun) error {
	w, err := schemas.CreateBundle(dest, schemas.BundleOptions{VerdictVersion: "gen", CreatedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		return err
	}
	const n = 1000
	for _, h := range runs {
		lat, thr := h.Latency, h.Throughput
		if lat == 0 {
			lat = 1
		}
		if thr == 0 {
			thr = 1
		}
		method := h.Method
		if method == "" {
			method = "linear"
		}
		ev := h.EngineVersion
		if ev == "" {
			ev = "0.11.2"
		}
		w.AddRun(schemas.Run{ID: h.ID, Tool: "vllm", Format: "synthetic", Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
			RequestRate: schemas.Some(10.0), Burstiness: schemas.Some(1.0), MaxConcurrency: schemas.Some(int64(0)),
			Streaming: schemas.Some(true), Model: "org/model-8b", NumPrompts: schemas.Some(int64(n)),
			Completed: schemas.Some(int64(n)), Failed: schemas.Some(int64(0)), DurationS: schemas.Some(100.0),
			WindowKind: schemas.WindowKindDispatch, WindowStart: schemas.Some(h.Start.UTC()), Labels: h.Labels,
			SUT: schemas.Inventory{Model: "org/model-8b", Quantization: "bf16", Engine: "vllm", EngineVersion: ev,
				GPUModel: fmt.Sprintf("GPU-%d", h.Config), GPUCount: schemas.Some(int64(1)), Driver: "570.86", Dataset: "prompts-1000",
				DatasetSHA256: strings.Repeat("ab", 32), CacheState: "cold", WarmupRequests: schemas.Some(int64(10))}})
		add := func(m schemas.Metric) {
			m.RunID, m.Source, m.N = h.ID, schemas.SourceReported, schemas.Some(int64(n))
			w.AddMetric(m)
		}
		for _, base := range []struct {
			id schemas.MetricID
			v  float64
		}{{schemas.TTFT, 0.1}, {schemas.TPOT, 0.01}, {schemas.E2E, 1}} {
			v := base.v * lat
			for _, p := range []struct{ p, f float64 }{{10, 0.6}, {25, 0.8}, {50, 1}, {75, 1.25}, {90, 1.6}, {99, 2.2}, {99.9, 2.6}} {
				add(schemas.Metric{MetricID: base.id, Stat: schemas.StatP, Percentile: schemas.Some(p.p), Value: schemas.Some(v * p.f), Unit: schemas.UnitSeconds, Method: method})
			}
			add(schemas.Metric{MetricID: base.id, Stat: schemas.StatMean, Value: schemas.Some(v * 1.1), Unit: schemas.UnitSeconds, Method: "arithmetic"})
			add(schemas.Metric{MetricID: base.id, Stat: schemas.StatStd, Value: schemas.Some(v * 0.5), Unit: schemas.UnitSeconds, Method: "sample"})
		}
		add(schemas.Metric{MetricID: schemas.OutputTokenThroughput, Stat: schemas.StatValue, Value: schemas.Some(1000 * thr), Unit: schemas.UnitTokensPerSecond})
		add(schemas.Metric{MetricID: schemas.Goodput, Stat: schemas.StatValue, Value: schemas.Some(9.5 * thr), Unit: schemas.UnitRequestsPerSecond})
	}
	return w.Commit(schemas.Manifest{})
}

// History exports runs into the dataset ds, at most perBundle runs a
// bundle (written under scratch and removed once exported).
func History(ctx context.Context, ds, scratch string, runs []HistoryRun, perBundle int) error {
	if perBundle <= 0 {
		perBundle = len(runs)
	}
	dest := filepath.Join(scratch, "history.bundle")
	for len(runs) > 0 {
		k := min(perBundle, len(runs))
		if err := HistoryBundle(dest, runs[:k]); err != nil {
			return err
		}
		b, err := schemas.OpenBundle(dest)
		if err != nil {
			return err
		}
		_, err = schemas.Export(ctx, b, ds, schemas.ExportOptions{Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			return err
		}
		if err := os.RemoveAll(dest); err != nil {
			return err
		}
		runs = runs[k:]
	}
	return nil
}

// HistoryRuns makes a history of len(levels) daily runs of one
// configuration from 2026-01-01, run i with latency levels[i] times a
// noise factor 1 + noise·N(0,1) (seeded) and throughput its inverse.
func HistoryRuns(prefix string, config int, levels []float64, noise float64, seed uint64) []HistoryRun {
	r := rand.New(rand.NewPCG(seed, uint64(config)))
	out := make([]HistoryRun, len(levels))
	for i, l := range levels {
		f := math.Max(0.5, 1+noise*r.NormFloat64())
		out[i] = HistoryRun{ID: fmt.Sprintf("%s-%04d", prefix, i), Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i),
			Latency: l * f, Throughput: 1 / (l * f), Config: config,
			Labels: map[string]string{"engine_version": fmt.Sprintf("v0.%d", i)}}
	}
	return out
}
