package analysis_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/internal/gen"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

func TestParseCapacitySLO(t *testing.T) {
	ls, g, err := analysis.ParseCapacitySLO("ttft:p99<=2s, tpot:p99.9<50ms,e2e:mean<=10s,itl:median<=100ms")
	if err != nil || g != nil || len(ls) != 4 {
		t.Fatalf("%v %v %v", ls, g, err)
	}
	want := []analysis.CapacityLimit{
		{Metric: schemas.TTFT, Percentile: 99, Bound: 2},
		{Metric: schemas.TPOT, Percentile: 99.9, Bound: 0.05, Strict: true},
		{Metric: schemas.E2E, Mean: true, Bound: 10},
		{Metric: schemas.ITLChunk, Percentile: 50, Bound: 0.1},
	}
	for i := range want {
		if ls[i] != want[i] {
			t.Errorf("limit %d: %+v, want %+v", i, ls[i], want[i])
		}
	}
	if ls[0].String() != "ttft:p99<=2s" || ls[1].String() != "tpot:p99.9<50ms" || ls[3].String() != "itl:median<=100ms" {
		t.Errorf("names %q %q %q", ls[0], ls[1], ls[3])
	}
	ls, g, err = analysis.ParseCapacitySLO("ttft<=1s,tpot<=60ms,goodput>=90%,ttft:p99<=3s")
	if err != nil || len(ls) != 1 || g == nil || g.SLO != (stats.SLO{TTFT: 1, TPOT: 0.06}) || g.MinShare != 0.9 {
		t.Fatalf("goodput: %v %+v %v", ls, g, err)
	}
	if g.String() != "ttft<=1s,tpot<=60ms,goodput>=0.9" {
		t.Errorf("goodput name %q", g.String())
	}
	for _, c := range []struct{ in, want string }{
		{"ttft:p99<=2", "not a positive duration with a unit"},
		{"ttft:p100<=2s", "not a percentile"},
		{"latency:p99<=2s", `unknown metric "latency"`},
		{"ttft:p99>=2s", "ceilings"},
		{"ttft<=1s", "add goodput>=SHARE"},
		{"goodput>=0.9", "needs per-request limits"},
		{"ttft<=1s,goodput>=1.5", "not a share"},
		{"ttft", "want METRIC:STAT<=DURATION"},
		{"", "no limit"},
		{"queue<=1s,goodput>=0.5", `"queue": unknown limit`},
	} {
		if _, _, err := analysis.ParseCapacitySLO(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

const capacityDemo = "../testdata/capacity/"

// capacityBundles ingests the hand-made two-platform sweep.
func capacityBundles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range []string{"h100", "l40s"} {
		inv, err := schemas.LoadInventory(capacityDemo + "sut-" + p + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(capacityDemo + p + "/*.json")
		out = append(out, ingestBundle(t, dir, p+".bundle", map[string]string{"platform": p}, inv, files...))
	}
	return out
}

// vllmFile is the part of a vLLM result the tests read independently of
// verdict's ingest.
type vllmFile struct {
	RequestRate      float64   `json:"request_rate"`
	OutputThroughput float64   `json:"output_throughput"`
	RequestsPerSec   float64   `json:"request_throughput"`
	P99TTFT          float64   `json:"p99_ttft_ms"`
	TTFTs            []float64 `json:"ttfts"`
}

func readVLLM(t *testing.T, path string) vllmFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f vllmFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCapacityHandMadeSweep checks the capacity of the hand-made sweep
// against the files themselves: each platform's bracket is where its
// p99 TTFT (as vLLM wrote it) crosses 500 ms, and the capacity the linear
// interpolation of those two p99s; the throughput there interpolates the
// files' output_throughput; the cost is the quote's hourly rate over it.
func TestCapacityHandMadeSweep(t *testing.T) {
	dirs := capacityBundles(t, t.TempDir())
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms,tpot:p99<=80ms")
	o.Resamples = 500
	o.Quotes = []string{capacityDemo + "quote-h100.yaml", capacityDemo + "quote-l40s.yaml"}
	res, err := analysis.Capacity(context.Background(), dirs, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Configs) != 2 || res.GroupBy != "bundle" {
		t.Fatalf("%d configurations, group by %s", len(res.Configs), res.GroupBy)
	}
	for _, c := range []struct {
		name, a, b string
		perHour    float64
	}{
		{"h100.bundle", "h100/rate16.json", "h100/rate20.json", 2.49},
		{"l40s.bundle", "l40s/rate04.json", "l40s/rate08.json", 0.99},
	} {
		cc := res.Configs[slices.IndexFunc(res.Configs, func(x *analysis.ConfigCapacity) bool { return x.Name == c.name })]
		fa, fb := readVLLM(t, capacityDemo+c.a), readVLLM(t, capacityDemo+c.b)
		va, vb := fa.P99TTFT/1000, fb.P99TTFT/1000
		want := fa.RequestRate + (0.5-va)/(vb-va)*(fb.RequestRate-fa.RequestRate)
		cp := cc.Capacity
		if cp.Status != stats.CapacityBracketed || cp.LastPass != fa.RequestRate || cp.FirstFail != fb.RequestRate || cp.Binding != 0 {
			t.Fatalf("%s: %+v", c.name, cp)
		}
		if math.Abs(cp.Load-want) > 1e-6*want {
			t.Errorf("%s: capacity %v, want %v from the files' p99s", c.name, cp.Load, want)
		}
		if !(cp.Lo < cp.Load && cp.Load < cp.Hi) || cp.Scheme != stats.SchemeBlock || !strings.Contains(cp.Method, "circular block bootstrap") {
			t.Errorf("%s: interval [%v, %v] %s %q", c.name, cp.Lo, cp.Hi, cp.Scheme, cp.Method)
		}
		tput := fa.OutputThroughput + (want-fa.RequestRate)/(fb.RequestRate-fa.RequestRate)*(fb.OutputThroughput-fa.OutputThroughput)
		if math.Abs(cc.Throughput.Value-tput) > 1e-6*tput || cc.GPUCount != 1 || cc.PerGPU.Value != cc.Throughput.Value {
			t.Errorf("%s: throughput %+v, want %v", c.name, cc.Throughput, tput)
		}
		if cc.Cost == nil || cc.Cost.Currency != "USD" || math.Abs(cc.Cost.PerHour-c.perHour) > 1e-12 ||
			math.Abs(cc.Cost.PerMillion.Value-c.perHour/3600*1e6/tput) > 1e-6 || !cc.Cost.PerMillion.HasInterval() {
			t.Errorf("%s: cost %+v", c.name, cc.Cost)
		}
		if got := len(cc.Points); got != 5 {
			t.Errorf("%s: %d load points", c.name, got)
		}
		// The achieved requests/s of a point is the file's own.
		if p := cc.Points[0]; math.Abs(p.RequestsPerSecond-readVLLM(t, capacityDemo+strings.Split(c.a, "/")[0]+"/rate04.json").RequestsPerSec) > 1e-9 {
			t.Errorf("%s: achieved %v requests/s at load %v", c.name, p.RequestsPerSecond, p.Load)
		}
	}
	h := res.Configs[0]
	if p := h.Points[2]; p.Load != 12 || len(p.Runs) != 2 || p.Stats[0].Method != "percentile" {
		t.Errorf("the repeated point: %+v", p)
	}
	l := res.Configs[1]
	if p := l.Points[4]; !slices.ContainsFunc(p.Findings, func(f string) bool { return strings.Contains(f, "V022-over-saturation") }) {
		t.Errorf("l40s at 20 req/s should be over-saturated: %v", p.Findings)
	}
	if len(res.Comparisons) != 1 || !res.Comparisons[0].Comparable || res.Comparisons[0].Ratio == nil {
		t.Fatalf("comparisons: %+v", res.Comparisons)
	}
	r := res.Comparisons[0].Ratio
	if math.Abs(r.Estimate-h.Capacity.Load/l.Capacity.Load) > 1e-12 || !(r.Lo < r.Estimate && r.Estimate < r.Hi) || r.Status != stats.RatioEstimate {
		t.Errorf("ratio %+v", r)
	}
	if len(res.Frontier) == 0 || len(h.Frontier) != 5 {
		t.Errorf("frontier %v; h100's %v", res.Frontier, h.Frontier)
	}
}

// TestCapacityNotComparable: the same sweep with the l40s inventory
// stripped of its model is unverified, so no ratio is given.
func TestCapacityNotComparable(t *testing.T) {
	dir := t.TempDir()
	inv, _ := schemas.LoadInventory(capacityDemo + "sut-h100.yaml")
	files, _ := filepath.Glob(capacityDemo + "h100/*.json")
	a := ingestBundle(t, dir, "h100.bundle", nil, inv, files...)
	files, _ = filepath.Glob(capacityDemo + "l40s/*.json")
	b := ingestBundle(t, dir, "l40s.bundle", nil, schemas.Inventory{}, files...)
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), []string{a, b}, o)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparisons[0]
	if c.Comparable || c.Ratio != nil || !strings.Contains(strings.Join(c.Why, " "), "V018") {
		t.Errorf("%+v", c)
	}
}

// TestCapacityGoodput: a goodput SLO over the hand-made sweep is a floor
// on the share of good requests at every load point.
func TestCapacityGoodput(t *testing.T) {
	dirs := capacityBundles(t, t.TempDir())
	o := analysis.DefaultCapacity
	var err error
	o.Limits, o.Goodput, err = analysis.ParseCapacitySLO("ttft<=500ms,tpot<=80ms,goodput>=0.95")
	if err != nil {
		t.Fatal(err)
	}
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), dirs[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Configs[0]
	if len(cc.Limits) != 1 || cc.Limits[0] != "ttft<=500ms,tpot<=80ms,goodput>=0.95" || cc.LimitUnits[0] != schemas.UnitRatio {
		t.Fatalf("limits %v %v", cc.Limits, cc.LimitUnits)
	}
	// The share of good requests falls with the load; at 4 req/s nearly
	// every request is good.
	if s := cc.Points[0].Stats[0].Value; !(s > 0.95) || cc.Capacity.Status == stats.CapacityNeverMet {
		t.Errorf("share at 4 req/s %v, status %s", s, cc.Capacity.Status)
	}
}

// TestCapacityVLLMMultiRun: the vLLM multi-run file holds three
// deployments, each at 10, 30 and inf req/s, without per-request data.
// The view splits them by the deployment label, leaves the max-throughput
// runs off the rate axis, and interpolates the reported p99 TTFTs: the
// expected capacities are computed here from the file.
func TestCapacityVLLMMultiRun(t *testing.T) {
	path := corpus(t, "vllm/benchmark_serving_2025-05_multi-run_newline-separated_rate10-30-inf.json")
	b := ingestBundle(t, t.TempDir(), "multi.bundle", nil, schemas.Inventory{}, path)
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=150ms")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.GroupBy != "label:deployment" || len(res.Configs) != 3 || !strings.Contains(res.GroupByNote, "deployment") {
		t.Fatalf("group by %q (%q), %d configurations", res.GroupBy, res.GroupByNote, len(res.Configs))
	}
	// The file: one JSON object per line, with the deployment label.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p99 := map[string]map[float64]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			Deployment string  `json:"deployment"`
			Rate       any     `json:"request_rate"`
			P99        float64 `json:"p99_ttft_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if r, ok := rec.Rate.(float64); ok {
			if p99[rec.Deployment] == nil {
				p99[rec.Deployment] = map[float64]float64{}
			}
			p99[rec.Deployment][r] = rec.P99 / 1000
		}
	}
	for _, cc := range res.Configs {
		dep := strings.TrimPrefix(cc.Name, "deployment=")
		v10, v30 := p99[dep][10], p99[dep][30]
		if v10 == 0 || v30 == 0 {
			t.Fatalf("%s: p99s not found in the file: %v", dep, p99)
		}
		want := 10 + (0.15-v10)/(v30-v10)*20
		c := cc.Capacity
		if c.Status != stats.CapacityBracketed || math.Abs(c.Load-want) > 1e-9*want || !math.IsNaN(c.Lo) {
			t.Errorf("%s: capacity %v [%v, %v] %s, want %v without an interval", dep, c.Load, c.Lo, c.Hi, c.Status, want)
		}
		if len(cc.Sweep.Excluded) != 1 || !strings.Contains(cc.Sweep.Excluded[0], "rate inf") {
			t.Errorf("%s: excluded %v", dep, cc.Sweep.Excluded)
		}
	}
}

// TestCapacityGuideLLM: one GuideLLM benchmark is a sweep of one point.
func TestCapacityGuideLLM(t *testing.T) {
	path := corpus(t, "guidellm/guidellm-v0.5.0dev0-concurrent4-qwen3-4b.benchmarks.json")
	b := ingestBundle(t, t.TempDir(), "g.bundle", nil, schemas.Inventory{}, path)
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=10s")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Configs[0]
	if cc.Sweep.Axis != analysis.AxisConcurrency || len(cc.Points) != 1 || cc.Points[0].Load != 4 ||
		!slices.ContainsFunc(cc.Notes, func(n string) bool { return strings.Contains(n, "one load point") }) {
		t.Errorf("%+v", cc)
	}
}

// TestCapacityAIPerfFolders: AIPerf's artifact folders of one sweep (the
// concurrency-1 and -2 runs of its plot fixtures) ingested together are a
// concurrency sweep. The telemetry samples of the first run cover a few
// seconds before the run's window, so the energy per token comes from
// AIPerf's own counter-based gpu_energy instead, and the view says so; at
// the capacity it interpolates the two points' figures.
func TestCapacityAIPerfFolders(t *testing.T) {
	dir := t.TempDir()
	for c, files := range map[string][2]string{
		"qwen-concurrency1": {"aiperf-energy/v0.3-era_aiperf-pr511-plot-fixture_qwen_c1_profile_export_aiperf_with_gpu_energy.json", "aiperf-energy/v0.3-era_aiperf-pr511-plot-fixture_qwen_c1_gpu_telemetry_export.jsonl"},
		"qwen-concurrency2": {"aiperf-energy/v0.3-era_aiperf-pr511-plot-fixture_qwen_c2_profile_export_aiperf_with_gpu_energy.json", ""},
	} {
		if err := os.MkdirAll(filepath.Join(dir, "sweep", c), 0o755); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"profile_export_aiperf.json", "gpu_telemetry_export.jsonl"} {
			if files[i] == "" {
				continue
			}
			data, err := os.ReadFile(corpus(t, files[i]))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sweep", c, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := ingestBundle(t, dir, "ai.bundle", nil, schemas.Inventory{}, filepath.Join(dir, "sweep"))
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=300ms")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Configs[0]
	if cc.Sweep.Axis != analysis.AxisConcurrency || len(cc.Points) != 2 || cc.Capacity.Status != stats.CapacityNotReached || len(cc.Sweep.Varying) != 0 {
		t.Fatalf("%+v", cc)
	}
	if !slices.ContainsFunc(cc.Points[0].Notes, func(n string) bool { return strings.Contains(n, "the tool's own counter-based figure") }) || !(cc.Points[0].JoulesPerToken > 0) {
		t.Errorf("energy at concurrency 1: %v J/token, notes %v", cc.Points[0].JoulesPerToken, cc.Points[0].Notes)
	}
	// A limit between the two points' p99 TTFTs brackets the capacity.
	p1, p2 := cc.Points[0].Stats[0].Value, cc.Points[1].Stats[0].Value
	o.Limits = []analysis.CapacityLimit{{Metric: schemas.TTFT, Percentile: 99, Bound: (p1 + p2) / 2}}
	res, err = analysis.Capacity(context.Background(), []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	cc = res.Configs[0]
	j1, j2 := cc.Points[0].JoulesPerToken, cc.Points[1].JoulesPerToken
	c := cc.Capacity.Load
	if math.Abs(c-1.5) > 1e-12 || cc.Energy == nil || math.Abs(cc.Energy.JoulesPerToken-(j1+(c-1)*(j2-j1))) > 1e-12 {
		t.Errorf("capacity %v, energy %+v from %v and %v", cc.Capacity.Load, cc.Energy, j1, j2)
	}
}

// energyBundle writes gen.TwoLoadBundle's sweep (two runs at 1 and 2
// requests/s, TTFT 0.2 and 0.6 s, 10 and 30 J per output token).
func energyBundle(t *testing.T, dir string) string {
	t.Helper()
	return twoLoadBundle(t, filepath.Join(dir, "energy.bundle"), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), nil)
}

func twoLoadBundle(t *testing.T, dest string, t0 time.Time, ids []string) string {
	t.Helper()
	if err := gen.TwoLoadBundle(dest, t0, ids); err != nil {
		t.Fatal(err)
	}
	return dest
}

// TestCapacityEnergy: with a TTFT p99 limit of 0.4 s the capacity is
// 1 + (0.4-0.2)/(0.6-0.2) = 1.5 req/s, and the energy per token there
// interpolates 10 and 30 J/token: 20 J/token, 50 tokens/s per kW. The
// power samples (5 kW, far from the counters' 200 W and 600 W) play no
// part.
func TestCapacityEnergy(t *testing.T) {
	b := energyBundle(t, t.TempDir())
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=400ms")
	o.Resamples = 200
	res, err := analysis.Capacity(context.Background(), []string{b}, o)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Configs[0]
	if cc.Capacity.Load != 1.5 || cc.Points[0].JoulesPerToken != 10 || cc.Points[1].JoulesPerToken != 30 {
		t.Fatalf("capacity %v, J/token %v %v", cc.Capacity.Load, cc.Points[0].JoulesPerToken, cc.Points[1].JoulesPerToken)
	}
	if e := cc.Energy; e == nil || e.JoulesPerToken != 20 || e.TokensPerSecondPerKW != 50 || !strings.Contains(e.Scope, "energy-counter differences") {
		t.Errorf("energy at capacity: %+v", cc.Energy)
	}
	// 2,000 tokens over 100 s: 20 and 20 tokens/s; per GPU the same.
	if cc.Throughput.Value != 20 || cc.PerGPU.Value != 20 {
		t.Errorf("throughput %+v", cc.Throughput)
	}
}

// TestCapacityBillRate prices the capacity point of energyBundle's sweep,
// run on resource i-0c0ffee0c0ffee001 at 10:10 and 11:10 UTC, from the
// hand-made bill testdata/capacity/focus-capacity.csv: its hourly rows of
// 3.60 and 7.20 USD give the runs steady rates of 3.60 and 7.20 USD/h,
// which over their 100 s each are 5.40 USD/h; the throughput at capacity
// is 20 tokens/s, so 5.40 / 3600 * 1e6 / 20 = 75 USD per 1M output tokens.
// The one-off 0.50 USD row is the second run's cost but not its rate, and
// another resource's row is no one's. Without resource IDs the bill costs
// nothing and the quote (2.49 USD/h: 34.58 USD per 1M) prices it instead.
func TestCapacityBillRate(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 24, 10, 10, 0, 0, time.UTC)
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=400ms")
	o.Resamples = 200
	o.Billing = []string{capacityDemo + "focus-capacity.csv"}
	o.Quotes = []string{capacityDemo + "quote-h100.yaml"}
	for _, c := range []struct {
		name      string
		ids       []string
		source    string
		perHour   float64
		perM      float64
		billed    int
		noteParts []string
	}{
		{"billed", []string{"i-0c0ffee0c0ffee001"}, "bill", 5.40, 75, 2,
			[]string{"focus-capacity.csv:4 (inside-window)", "SUM(prorated allocations of 2 billed runs) * 3600 / their 200 s"}},
		{"no resource IDs", nil, "quote", 2.49, 2.49 / 3600 * 1e6 / 20, 0,
			[]string{"run-0: no resource ID", "priced from the quote instead"}},
	} {
		b := twoLoadBundle(t, filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".bundle"), t0, c.ids)
		res, err := analysis.Capacity(context.Background(), []string{b}, o)
		if err != nil {
			t.Fatal(err)
		}
		cc := res.Configs[0]
		x := cc.Cost
		if x == nil {
			t.Fatalf("%s: no cost", c.name)
		}
		if x.Source != c.source || math.Abs(x.PerHour-c.perHour) > 1e-12 || math.Abs(x.PerMillion.Value-c.perM) > 1e-9 || x.Currency != "USD" || x.BilledRuns != c.billed {
			t.Errorf("%s: %s %v %s per hour, %v per 1M, %d billed runs; want %s %v USD, %v, %d", c.name, x.Source, x.PerHour, x.Currency, x.PerMillion.Value, x.BilledRuns, c.source, c.perHour, c.perM, c.billed)
		}
		notes := strings.Join(x.Notes, "\n")
		for _, p := range c.noteParts {
			if !strings.Contains(notes, p) {
				t.Errorf("%s: notes lack %q:\n%s", c.name, p, notes)
			}
		}
	}
}

// TestCapacitySplitsSystems: --group-by tool over the H100 and L40S
// bundles would pool two GPUs' runs as repeats of one sweep; each system
// is its own configuration instead, with the capacity grouping by bundle
// gives, and a note says why. A label that differs between runs of one
// system and recurs across loads is listed among the varying settings.
func TestCapacitySplitsSystems(t *testing.T) {
	dir := t.TempDir()
	dirs := capacityBundles(t, dir)
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms")
	o.Resamples = 200
	byBundle, err := analysis.Capacity(context.Background(), dirs, o)
	if err != nil {
		t.Fatal(err)
	}
	o.GroupBy = "tool"
	res, err := analysis.Capacity(context.Background(), dirs, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Configs) != 2 {
		t.Fatalf("%d configurations", len(res.Configs))
	}
	for k, gpu := range []string{"NVIDIA H100 80GB HBM3", "NVIDIA L40S"} {
		cc := res.Configs[k]
		if want := "vllm (GPU model " + gpu + ")"; cc.Name != want {
			t.Errorf("configuration %d: %q, want %q", k, cc.Name, want)
		}
		if len(cc.Notes) == 0 || !strings.Contains(cc.Notes[0], "holds runs of 2 systems") || !strings.Contains(cc.Notes[0], "not repeats") {
			t.Errorf("%s: notes %q", cc.Name, cc.Notes)
		}
		if got, want := cc.Capacity.Load, byBundle.Configs[k].Capacity.Load; got != want || len(cc.Points) != len(byBundle.Configs[k].Points) {
			t.Errorf("%s: capacity %v over %d points, by bundle %v over %d", cc.Name, got, len(cc.Points), want, len(byBundle.Configs[k].Points))
		}
	}

	// The L40S files under the H100's inventory: one system, two
	// platform labels at the same loads.
	inv, _ := schemas.LoadInventory(capacityDemo + "sut-h100.yaml")
	files, _ := filepath.Glob(capacityDemo + "l40s/*.json")
	fake := ingestBundle(t, dir, "l40s-as-h100.bundle", map[string]string{"platform": "l40s"}, inv, files...)
	res, err = analysis.Capacity(context.Background(), []string{dirs[0], fake}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Configs) != 1 || !slices.Contains(res.Configs[0].Sweep.Varying, "label platform: h100, l40s") {
		t.Errorf("one system, two platforms: %d configurations, varying %q", len(res.Configs), res.Configs[0].Sweep.Varying)
	}
}

// TestCapacityRepeatsPlan: the H100 sweep's two runs at 12 req/s split
// each limit's variance between and within runs, and the plan for a ±5%
// interval follows from them as the random-effects model says:
// (between + within)/runs' = (0.05 est / z)^2.
func TestCapacityRepeatsPlan(t *testing.T) {
	dirs := capacityBundles(t, t.TempDir())
	o := analysis.DefaultCapacity
	o.Limits, _, _ = analysis.ParseCapacitySLO("ttft:p99<=500ms,tpot:p99<=80ms")
	o.Resamples = 500
	res, err := analysis.Capacity(context.Background(), dirs[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Configs[0]
	for _, p := range cc.Points {
		if len(p.Runs) == 1 {
			if p.Repeats != nil {
				t.Errorf("load %v: one run, repeats %+v", p.Load, p.Repeats)
			}
			continue
		}
		if p.Load != 12 || len(p.Repeats) != 2 {
			t.Fatalf("load %v: %d runs, %d repeats", p.Load, len(p.Runs), len(p.Repeats))
		}
		for j, rv := range p.Repeats {
			est := p.Stats[j].Value
			z := 1.959963984540054
			h2 := math.Pow(0.05*est/z, 2)
			want := int(math.Ceil((rv.BetweenVar + rv.WithinVar) / h2))
			if rv.Limit != cc.Limits[j] || rv.Runs != 2 || !(rv.WithinVar > 0) || rv.BetweenVar < 0 || rv.RequestsPerRun != 384 {
				t.Errorf("%s: %+v", cc.Limits[j], rv)
			}
			if math.Abs(rv.Plan.HalfWidth-0.05*est) > 1e-12 || rv.Plan.Runs != max(1, want) {
				t.Errorf("%s: plan %+v, want %d runs for ±%v", cc.Limits[j], rv.Plan, want, 0.05*est)
			}
		}
	}
}
