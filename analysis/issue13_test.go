package analysis_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// requestBundle writes a one-run bundle holding reqs.
func requestBundle(t *testing.T, reqs []schemas.Request) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.bundle")
	w, err := schemas.CreateBundle(dir, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(schemas.Run{ID: "run-1", Tool: "vllm", Scenario: schemas.ScenarioServer, DurationS: schemas.Some(10.0),
		Completed: schemas.Some(int64(len(reqs)))})
	for i := range reqs {
		reqs[i].RunID, reqs[i].Index, reqs[i].Phase = "run-1", int64(i), schemas.PhaseProfiling
		if reqs[i].Status == "" {
			reqs[i].Status = schemas.StatusOK
		}
		if err := w.AddRequest(&reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func stat(t *testing.T, res *analysis.StatsResult, id schemas.MetricID) (analysis.MetricStats, bool) {
	t.Helper()
	for _, m := range res.Runs[0].Metrics {
		if m.Metric == id {
			return m, true
		}
	}
	return analysis.MetricStats{}, false
}

// locustTTFTs are TTFTs in seconds whose Locust buckets (locust/stats.py,
// StatsEntry._log_response_time: round() below 100 ms, round(x, -1) below
// 1000 ms, ...) are 36 ms for the median, 37 ms at p90 and 44 ms at p99;
// rounded in seconds they would all be 0.
var locustTTFTs = func() []float64 {
	var xs []float64
	for i := range 100 {
		v := 0.0361 + float64(i%9)*0.00004 // 36.1-36.4 ms
		switch {
		case i >= 99:
			v = 0.0441
		case i >= 90:
			v = 0.0372
		case i >= 60:
			v = 0.0364
		}
		xs = append(xs, v)
	}
	return xs
}()

// TestLocustBucketsInMilliseconds is issue 13 item 4: --method
// locust_buckets rounds the TTFT converted to milliseconds, as Locust
// rounds its response times (kept in ms), and converts back.
func TestLocustBucketsInMilliseconds(t *testing.T) {
	var reqs []schemas.Request
	for _, v := range locustTTFTs {
		reqs = append(reqs, schemas.Request{TTFTS: schemas.Some(v), E2ES: schemas.Some(v + 1), OutputTokens: schemas.Some(int64(10))})
	}
	dir := requestBundle(t, reqs)
	for _, ci := range []float64{0, 0.95} {
		o := analysis.DefaultStats
		o.Method, o.Confidence, o.Resamples, o.Percentiles = stats.LocustBuckets, ci, 500, []float64{50, 90, 99}
		o.Metrics = []schemas.MetricID{schemas.TTFT, schemas.OutputTokens}
		res, err := analysis.ComputeStats(context.Background(), []string{dir}, o)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := stat(t, res, schemas.TTFT)
		for i, want := range []float64{0.036, 0.037, 0.044} {
			if got := m.Quantiles[i].Value; math.Abs(got-want) > 1e-15 {
				t.Errorf("ci %v: TTFT p%v = %v s, want %v s", ci, m.Quantiles[i].Percentile, got, want)
			}
		}
		// Token counts are not response times: read unrounded, with a note.
		tok, _ := stat(t, res, schemas.OutputTokens)
		if tok.Method != stats.NearestRankFloor || len(tok.Warnings) == 0 {
			t.Errorf("output tokens read with %s, warnings %v", tok.Method, tok.Warnings)
		}
	}
}

// TestLocustBucketsVLLMCorpus: the vLLM 2025-03 detailed fixture's TTFT
// p50/p90/p99 with Locust's algorithm on milliseconds are 36/37/44 ms.
func TestLocustBucketsVLLMCorpus(t *testing.T) {
	path := corpus(t, "vllm/benchmark_serving_2025-03_detailed_rate10_concurrency1.json")
	dir := ingestBundle(t, t.TempDir(), "v.bundle", nil, schemas.Inventory{}, path)
	o := analysis.DefaultStats
	o.Method, o.Confidence, o.Metrics = stats.LocustBuckets, 0, []schemas.MetricID{schemas.TTFT}
	res, err := analysis.ComputeStats(context.Background(), []string{dir}, o)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := stat(t, res, schemas.TTFT)
	for i, want := range []float64{0.036, 0.037, 0.044} {
		if got := m.Quantiles[i].Value; math.Abs(got-want) > 1e-15 {
			t.Errorf("TTFT p%v = %v s, want %v s", m.Quantiles[i].Percentile, got, want)
		}
	}
}

// TestGoodputUnknownTTFT is issue 13 item 5: a successful request whose
// TTFT was never measured is not good under a TTFT limit (stats.SLO's
// documentation: a measurement that is unknown fails its limit), and is
// counted as unmeasured. It used to be read as a TTFT of 0.
func TestGoodputUnknownTTFT(t *testing.T) {
	reqs := []schemas.Request{
		{TTFTS: schemas.Some(0.1), E2ES: schemas.Some(1.0), OutputTokens: schemas.Some(int64(10))},
		{TTFTS: schemas.Some(0.5), E2ES: schemas.Some(1.0), OutputTokens: schemas.Some(int64(10))},
		{E2ES: schemas.Some(1.0), OutputTokens: schemas.Some(int64(10))}, // TTFT unknown
		{Status: schemas.StatusError, Error: "reset"},
	}
	dir := requestBundle(t, reqs)
	o := analysis.DefaultStats
	o.Confidence, o.HasSLO = 0, true
	o.SLO, _ = analysis.ParseSLO("ttft=200ms")
	res, err := analysis.ComputeStats(context.Background(), []string{dir}, o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Runs[0].Goodput
	if g.Good != 1 || g.Successful != 3 || g.Total != 4 || g.Unmeasured != 1 || g.Share != 0.25 {
		t.Errorf("goodput %+v, want 1 good of 4 (3 successful, 1 unmeasured)", g)
	}
	// Without a TTFT limit the unknown TTFT does not matter.
	o.SLO, _ = analysis.ParseSLO("e2e=2s")
	res, _ = analysis.ComputeStats(context.Background(), []string{dir}, o)
	if g := res.Runs[0].Goodput; g.Good != 3 || g.Unmeasured != 0 {
		t.Errorf("e2e SLO: %+v", g)
	}
}

// TestBoundedCumulative is issue 13 item 8: `stats --ci 0 --method
// nearest_rank_cumulative` holds series with bounded memory; one series
// past the in-memory limit (the demo's 23,770 chunk gaps against a limit
// of 1,000) must not abort the others. That metric is left out with a
// note (GuideLLM v0.4's merged ties need the whole sample); the unmerged
// v0.2-v0.3 method is exact on disk and gives the in-memory answer.
func TestBoundedCumulative(t *testing.T) {
	dirs := demoBundles(t, t.TempDir())
	run := func(m stats.Method, limit int) *analysis.StatsResult {
		o := analysis.DefaultStats
		o.Method, o.Confidence, o.MemLimit = m, 0, limit
		res, err := analysis.ComputeStats(context.Background(), dirs[:1], o)
		if err != nil {
			t.Fatalf("%s, limit %d: %v", m, limit, err)
		}
		return res
	}
	res := run(stats.NearestRankCumulative, 1000)
	if _, ok := stat(t, res, schemas.ITLChunk); ok {
		t.Error("itl_chunk computed with merged ties from disk")
	}
	if !strings.Contains(strings.Join(res.Runs[0].Notes, "\n"), "itl_chunk left out") {
		t.Errorf("no note: %v", res.Runs[0].Notes)
	}
	inMemory := run(stats.NearestRankCumulative, 0)
	a, ok1 := stat(t, res, schemas.TTFT)
	b, ok2 := stat(t, inMemory, schemas.TTFT)
	if !ok1 || !ok2 || a.Quantiles[2].Value != b.Quantiles[2].Value {
		t.Errorf("ttft p99 %v vs %v", a.Quantiles, b.Quantiles)
	}
	disk, _ := stat(t, run(stats.NearestRankCumulativeUnmerged, 1000), schemas.ITLChunk)
	mem, _ := stat(t, run(stats.NearestRankCumulativeUnmerged, 0), schemas.ITLChunk)
	if len(disk.Quantiles) != 3 || disk.Quantiles[2].Value != mem.Quantiles[2].Value || disk.Mean.Value != mem.Mean.Value {
		t.Errorf("unmerged from disk %+v, in memory %+v", disk.Quantiles, mem.Quantiles)
	}
}

// TestStatsJSONKeepsP0 is issue 13 item 9: the p0 estimate keeps its
// "percentile" key (it was dropped as a zero value).
func TestStatsJSONKeepsP0(t *testing.T) {
	dirs := demoBundles(t, t.TempDir())
	o := analysis.DefaultStats
	o.Confidence, o.Percentiles, o.Metrics = 0, []float64{0, 50}, []schemas.MetricID{schemas.TTFT}
	res, err := analysis.ComputeStats(context.Background(), dirs[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.WriteStats(&b, res, render.JSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Runs   []struct {
			Metrics []struct {
				Percentiles []map[string]any `json:"percentiles"`
			} `json:"metrics"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Runs[0].Metrics[0].Percentiles
	if doc.Schema != analysis.StatsSchema || len(p) != 2 || p[0]["percentile"] != 0.0 || p[1]["percentile"] != 50.0 {
		t.Errorf("schema %q, percentiles %v", doc.Schema, p)
	}
}
