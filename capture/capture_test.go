package capture

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

// Short schedules keep the tests fast: 15 ms to the first chunk, 2 ms per
// token.
var quick = fakeserver.Config{TTFT: 15 * time.Millisecond, TTFTSpread: 10 * time.Millisecond, TokenDelay: 2 * time.Millisecond, OutputTokens: 8, Seed: 7}

func startServer(t testing.TB, cfg fakeserver.Config) (*fakeserver.Server, string) {
	t.Helper()
	fs := fakeserver.New(cfg)
	ts := httptest.NewServer(fs)
	t.Cleanup(ts.Close)
	return fs, ts.URL
}

func synthetic(t testing.TB, n int, in, out string) *Dataset {
	t.Helper()
	il, err := ParseLengths(in)
	if err != nil {
		t.Fatal(err)
	}
	ol, err := ParseLengths(out)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Synthetic{N: n, Input: il, Output: ol, Seed: 1}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func runCapture(t testing.TB, ctx context.Context, o Options) (*Result, *MemorySink) {
	t.Helper()
	var sink MemorySink
	res, err := Run(ctx, o, &sink)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, &sink
}

// checkAccounting asserts that every scheduled request is accounted for.
func checkAccounting(t *testing.T, res *Result, sink *MemorySink) {
	t.Helper()
	a := res.Accounting
	var notSent int64
	for _, n := range a.NotSentReasons {
		notSent += n
	}
	if a.Sent+a.NotSent != a.Scheduled || notSent != a.NotSent {
		t.Errorf("accounting: sent %d + not sent %d != scheduled %d (reasons %v)", a.Sent, a.NotSent, a.Scheduled, a.NotSentReasons)
	}
	if int64(len(sink.Requests)) != a.Sent {
		t.Errorf("%d request rows, %d sent", len(sink.Requests), a.Sent)
	}
	var ok, failed, cancelled, warm int64
	seen := map[int64]bool{}
	for _, r := range sink.Requests {
		if seen[r.Index] {
			t.Errorf("index %d twice", r.Index)
		}
		seen[r.Index] = true
		switch {
		case r.Phase == schemas.PhaseWarmup:
			warm++
		case r.Status == schemas.StatusOK:
			ok++
		case r.Status == schemas.StatusCancelled:
			cancelled++
		default:
			failed++
		}
		if r.Status != schemas.StatusOK && r.Error == "" || r.Status == schemas.StatusOK && r.Error != "" {
			t.Errorf("request %d: status %s with error %q", r.Index, r.Status, r.Error)
		}
	}
	if ok != a.OK || failed != a.Failed || cancelled != a.Cancelled || warm != a.WarmupSent {
		t.Errorf("rows ok/failed/cancelled/warm %d/%d/%d/%d, accounting %d/%d/%d/%d", ok, failed, cancelled, warm, a.OK, a.Failed, a.Cancelled, a.WarmupSent)
	}
	run := res.Run
	if run.NumPrompts.V != run.Completed.V+run.Failed.V+a.Cancelled+(a.NotSent-(a.WarmupScheduled-a.WarmupSent)) {
		t.Errorf("run: num_prompts %d != completed %d + failed %d + not sent", run.NumPrompts.V, run.Completed.V, run.Failed.V)
	}
}

// checkTiming compares every successful streamed request with the
// server's trace: measured TTFT must exceed the server's (the client
// starts its clock before sending and stops it after the bytes arrive),
// and both TTFT and chunk gaps must be within tol of the server's.
func checkTiming(t *testing.T, fs *fakeserver.Server, res *Result, sink *MemorySink, tol time.Duration) Calibration {
	t.Helper()
	cal := Calibrate(sink.Requests, fs.Traces(res.Run.ID))
	if cal.Unmatched > 0 {
		t.Errorf("%d requests did not match their trace", cal.Unmatched)
	}
	if cal.Matched == 0 {
		t.Fatal("no request compared with the server's trace")
	}
	if cal.TTFTvsSent.MinSigned <= 0 || cal.TTFTvsPlan.MinSigned <= 0 {
		t.Errorf("a measured TTFT is not later than the server's first write: %+v", cal.TTFTvsSent)
	}
	// The machine running the tests may be busy: bound the typical error
	// tightly and the worst loosely (BenchmarkOverhead measures it).
	if cal.TTFTvsSent.P50 > tol.Seconds() || cal.ITLvsSent.P50 > tol.Seconds() {
		t.Errorf("median timing error above %s: TTFT %+v, ITL %+v", tol, cal.TTFTvsSent, cal.ITLvsSent)
	}
	if cal.TTFTvsSent.Max > 10*tol.Seconds() || cal.ITLvsSent.Max > 10*tol.Seconds() {
		t.Errorf("timing error above %s: TTFT %+v, ITL %+v", 10*tol, cal.TTFTvsSent, cal.ITLvsSent)
	}
	t.Logf("TTFT error p50 %.3f ms max %.3f ms; ITL error p50 %.3f ms max %.3f ms",
		cal.TTFTvsSent.P50*1e3, cal.TTFTvsSent.Max*1e3, cal.ITLvsSent.P50*1e3, cal.ITLvsSent.Max*1e3)
	return cal
}

func TestScenarios(t *testing.T) {
	fs, url := startServer(t, quick)
	ds := synthetic(t, 50, "20-40", "4-12")
	base := Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds, Seed: 3}
	cases := []struct {
		name  string
		edit  func(*Options)
		check func(t *testing.T, res *Result, sink *MemorySink)
	}{
		{"server poisson", func(o *Options) {
			o.Scenario, o.Rate, o.NumPrompts, o.Warmup = schemas.ScenarioServer, 200, 20, 2
		}, func(t *testing.T, res *Result, _ *MemorySink) {
			if res.Run.Arrival != schemas.ArrivalPoisson || res.Run.RequestRate.V != 200 {
				t.Errorf("run %s at %v", res.Run.Arrival, res.Run.RequestRate)
			}
		}},
		{"server gamma ramp, chat, capped", func(o *Options) {
			o.Endpoint = strings.Replace(o.Endpoint, "/v1/completions", "/v1/chat/completions", 1)
			o.Scenario, o.Rate, o.Burstiness, o.NumPrompts, o.MaxConcurrency = schemas.ScenarioServer, 300, 0.5, 20, 4
			o.Ramp = &Ramp{From: 50, Over: 50 * time.Millisecond}
		}, func(t *testing.T, res *Result, _ *MemorySink) {
			if res.Run.Arrival != schemas.ArrivalRampUp || res.Run.Burstiness.V != 0.5 || res.Run.RampUp == "" {
				t.Errorf("run %s %v %q", res.Run.Arrival, res.Run.Burstiness, res.Run.RampUp)
			}
			if peak := metric(res, schemas.PeakConcurrency, schemas.StatValue); peak > 4 {
				t.Errorf("peak concurrency %v above the cap of 4", peak)
			}
		}},
		{"server by duration", func(o *Options) {
			o.Scenario, o.Rate, o.Duration = schemas.ScenarioServer, 100, 150*time.Millisecond
		}, func(t *testing.T, res *Result, _ *MemorySink) {
			if n := res.Accounting.Sent; n < 3 || n > 40 {
				t.Errorf("%d requests in 150 ms at 100/s", n)
			}
		}},
		{"offline capped", func(o *Options) {
			o.Scenario, o.NumPrompts, o.MaxConcurrency = schemas.ScenarioOffline, 12, 3
		}, func(t *testing.T, res *Result, sink *MemorySink) {
			if !math.IsInf(res.Run.RequestRate.V, 1) || res.Run.Arrival != schemas.ArrivalAllAtOnce {
				t.Errorf("offline run %v %s", res.Run.RequestRate, res.Run.Arrival)
			}
			// All arrive at once and wait for a slot: the last ones queue
			// for about three request times.
			if q := metric(res, schemas.ClientQueue, schemas.StatMax); q < 0.03 {
				t.Errorf("max client queue %v: offline requests beyond the cap should wait", q)
			}
			if peak := metric(res, schemas.PeakConcurrency, schemas.StatValue); peak > 3 {
				t.Errorf("peak concurrency %v above the cap", peak)
			}
		}},
		{"single stream", func(o *Options) {
			o.Scenario, o.NumPrompts, o.Warmup = schemas.ScenarioSingleStream, 6, 1
		}, func(t *testing.T, res *Result, sink *MemorySink) {
			if peak := metric(res, schemas.PeakConcurrency, schemas.StatValue); peak != 1 {
				t.Errorf("single stream peak concurrency %v", peak)
			}
			if q := metric(res, schemas.ClientQueue, schemas.StatMax); q > 0.005 {
				t.Errorf("closed loop queued %v s", q)
			}
		}},
		{"fixed concurrency by duration", func(o *Options) {
			o.Scenario, o.MaxConcurrency, o.Duration = schemas.ScenarioConcurrency, 4, 120*time.Millisecond
		}, func(t *testing.T, res *Result, _ *MemorySink) {
			if res.Run.Arrival != schemas.ArrivalClosedLoop || res.Run.MaxConcurrency.V != 4 {
				t.Errorf("run %s %v", res.Run.Arrival, res.Run.MaxConcurrency)
			}
			if peak := metric(res, schemas.PeakConcurrency, schemas.StatValue); peak > 4 || peak < 2 {
				t.Errorf("peak concurrency %v with 4 streams", peak)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			res, sink := runCapture(t, t.Context(), o)
			checkAccounting(t, res, sink)
			if res.Accounting.Failed != 0 || res.Accounting.NotSent != 0 || res.Incomplete {
				t.Fatalf("failures: %+v %v", res.Accounting, res.Warnings)
			}
			if !res.FakeServer {
				t.Error("the fake server was not recognised")
			}
			checkTiming(t, fs, res, sink, 30*time.Millisecond)
			checkRun(t, res, sink)
			c.check(t, res, sink)
		})
	}
}

// checkRun checks the run row and the metrics every capture has.
func checkRun(t *testing.T, res *Result, sink *MemorySink) {
	t.Helper()
	run := res.Run
	if run.Tool != Tool || run.WindowKind != schemas.WindowKindDispatch || !run.WindowStart.OK || !run.WindowEnd.OK {
		t.Errorf("run %s window %s %v %v", run.Tool, run.WindowKind, run.WindowStart, run.WindowEnd)
	}
	if d := run.WindowEnd.V.Sub(run.WindowStart.V).Seconds(); math.Abs(d-run.DurationS.V) > 1e-6 {
		t.Errorf("window %v s, duration %v s", d, run.DurationS.V)
	}
	// Every measured request lies in the window, and warm-ups before it.
	ws, we := float64(run.WindowStart.V.UnixNano())/1e9, float64(run.WindowEnd.V.UnixNano())/1e9
	for _, r := range sink.Requests {
		if r.Phase == schemas.PhaseWarmup {
			if r.EndS.V > ws+1e-6 {
				t.Errorf("warm-up %d ends at %v after the window starts at %v", r.Index, r.EndS.V, ws)
			}
			continue
		}
		if r.StartS.V < ws-1e-6 || r.EndS.V > we+1e-6 {
			t.Errorf("request %d [%v, %v] outside the window [%v, %v]", r.Index, r.StartS.V, r.EndS.V, ws, we)
		}
		if r.Status == schemas.StatusOK {
			if !r.E2ES.OK || !r.TTFTS.OK || r.TTFTS.V > r.E2ES.V || !r.OutputTokens.OK || !r.InputTokens.OK {
				t.Errorf("request %d: %+v", r.Index, r)
			}
			if int64(len(r.ChunkGapsS)+1) != r.OutputTokens.V { // one token per chunk in these tests
				t.Errorf("request %d: %d gaps for %d tokens", r.Index, len(r.ChunkGapsS), r.OutputTokens.V)
			}
		}
	}
	want := float64(run.Completed.V) / run.DurationS.V
	if got := metric(res, schemas.RequestThroughput, schemas.StatValue); math.Abs(got-want) > 1e-9*want {
		t.Errorf("request throughput %v, want %v", got, want)
	}
	for _, id := range []schemas.MetricID{schemas.TTFT, schemas.ITLChunk, schemas.TPOT, schemas.E2E, schemas.ClientQueue, schemas.OutputTokenThroughput} {
		found := false
		for _, m := range res.Metrics {
			if m.MetricID == id {
				found = true
				if _, ok := schemas.Lookup(m.MetricID); !ok || m.Source != schemas.SourceComputed {
					t.Errorf("metric %+v", m)
				}
			}
		}
		if !found {
			t.Errorf("no %s metric", id)
		}
	}
}

func metric(res *Result, id schemas.MetricID, stat string) float64 {
	for _, m := range res.Metrics {
		if m.MetricID == id && m.Stat == stat {
			return m.Value.V
		}
	}
	return math.NaN()
}

func TestReasoningChat(t *testing.T) {
	cfg := quick
	cfg.ReasoningTokens, cfg.TokensPerChunk, cfg.OutputTokens = 4, 2, 10
	fs, url := startServer(t, cfg)
	ds := synthetic(t, 5, "10", "10")
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/chat/completions", Model: "m", Dataset: ds,
		Scenario: schemas.ScenarioConcurrency, MaxConcurrency: 2, NumPrompts: 5})
	checkAccounting(t, res, sink)
	checkTiming(t, fs, res, sink, 30*time.Millisecond)
	for _, r := range sink.Requests {
		tr, _ := fs.Trace(TraceID(r.RunID, r.Index))
		if r.ReasoningTokens.V != 4 || r.OutputTokens.V != 10 || len(r.ChunkGapsS) != 4 {
			t.Errorf("request %d: reasoning %v output %v gaps %d", r.Index, r.ReasoningTokens, r.OutputTokens, len(r.ChunkGapsS))
		}
		// Two reasoning chunks, then answer chunks: TTFT (answer) is the
		// third chunk's time.
		answerAt := r.TTFTS.V + r.ChunkGapsS[0] + r.ChunkGapsS[1]
		if !r.TTFTAnswerS.OK || math.Abs(r.TTFTAnswerS.V-answerAt) > 1e-9 {
			t.Errorf("request %d: ttft_answer %v, third chunk at %v", r.Index, r.TTFTAnswerS, answerAt)
		}
		if d := r.TTFTAnswerS.V - tr.SentS[2]; d <= 0 || d > 0.3 {
			t.Errorf("request %d: ttft_answer %v vs the server's third write %v", r.Index, r.TTFTAnswerS.V, tr.SentS[2])
		}
	}
	if metric(res, schemas.TTFTAnswer, schemas.StatMean) <= metric(res, schemas.TTFT, schemas.StatMean) {
		t.Error("answer TTFT should come after reasoning TTFT")
	}
}

func TestNonStreaming(t *testing.T) {
	fs, url := startServer(t, quick)
	ds := synthetic(t, 4, "10", "8")
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds, NoStream: true,
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 4})
	checkAccounting(t, res, sink)
	if res.Run.Streaming.V {
		t.Error("run says streaming")
	}
	for _, r := range sink.Requests {
		tr, _ := fs.Trace(TraceID(r.RunID, r.Index))
		if r.Status != schemas.StatusOK || r.TTFTS.OK || r.ChunkGapsS != nil || r.OutputTokens.V != 8 {
			t.Errorf("request %+v", r)
		}
		if d := r.E2ES.V - tr.SentS[0]; d <= 0 || d > 0.3 {
			t.Errorf("E2E %v vs the server's answer at %v", r.E2ES.V, tr.SentS[0])
		}
	}
	if !math.IsNaN(metric(res, schemas.TTFT, schemas.StatMean)) {
		t.Error("a TTFT metric without streaming")
	}
}

func TestFaults(t *testing.T) {
	ds := synthetic(t, 30, "10", "6")
	cases := []struct {
		name  string
		cfg   func(*fakeserver.Config)
		fault fakeserver.Fault
		want  string // error prefix of the faulty requests
	}{
		{"http error", func(c *fakeserver.Config) { c.ErrorRate, c.ErrorStatus = 0.3, 503 }, fakeserver.FaultError, "HTTP 503: fakeserver: injected error"},
		{"reset mid-stream", func(c *fakeserver.Config) { c.ResetRate, c.FaultAfter = 0.3, 2 }, fakeserver.FaultReset, "stream broken after 2 chunks"},
		{"stall", func(c *fakeserver.Config) { c.StallRate, c.FaultAfter = 0.3, 1 }, fakeserver.FaultStall, "stalled: no data for 1s (stream broken after 1 chunks)"},
		{"malformed", func(c *fakeserver.Config) { c.MalformedRate, c.FaultAfter = 0.3, 3 }, fakeserver.FaultMalformed, "malformed SSE event after 3 chunks"},
		{"ignores stream", func(c *fakeserver.Config) { c.IgnoreStreamRate = 0.3 }, fakeserver.FaultIgnoreStream, "server ignored stream=true"},
		{"mixed", func(c *fakeserver.Config) {
			c.ErrorRate, c.ResetRate, c.StallRate, c.MalformedRate, c.IgnoreStreamRate = 0.1, 0.1, 0.1, 0.1, 0.1
		}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := quick
			c.cfg(&cfg)
			fs, url := startServer(t, cfg)
			res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds,
				Scenario: schemas.ScenarioServer, Rate: 500, MaxConcurrency: 8, NumPrompts: 30, StallTimeout: time.Second})
			checkAccounting(t, res, sink)
			if res.Accounting.Sent != 30 {
				t.Errorf("sent %d of 30", res.Accounting.Sent)
			}
			faulty := 0
			for _, r := range sink.Requests {
				tr, ok := fs.Trace(TraceID(r.RunID, r.Index))
				if !ok {
					t.Errorf("request %d never reached the server", r.Index)
					continue
				}
				if tr.Fault == "" {
					if r.Status != schemas.StatusOK {
						t.Errorf("request %d failed without a fault: %s", r.Index, r.Error)
					}
					continue
				}
				faulty++
				if r.Status != schemas.StatusError {
					t.Errorf("request %d with fault %s recorded as %s", r.Index, tr.Fault, r.Status)
				}
				if c.fault != "" && (tr.Fault != c.fault || !strings.HasPrefix(r.Error, c.want)) {
					t.Errorf("request %d, fault %s: error %q, want prefix %q", r.Index, tr.Fault, r.Error, c.want)
				}
				// Partial streams keep what arrived.
				if tr.Fault == fakeserver.FaultReset && cfg.FaultAfter > 0 && (!r.TTFTS.OK || len(r.ChunkGapsS) != cfg.FaultAfter-1) {
					t.Errorf("reset request %d lost its first chunks: %+v", r.Index, r)
				}
			}
			if faulty == 0 || int64(faulty) != res.Accounting.Failed {
				t.Errorf("%d faulty requests, %d failed", faulty, res.Accounting.Failed)
			}
			if c.fault == fakeserver.FaultIgnoreStream && !contains(res.Run.Flags, "stream_ignored") {
				t.Errorf("flags %v", res.Run.Flags)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestUnreachable(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there any more
	ds := synthetic(t, 3, "5", "5")
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds,
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 3})
	checkAccounting(t, res, sink)
	for _, r := range sink.Requests {
		if r.Status != schemas.StatusError || !strings.Contains(r.Error, "connection refused") {
			t.Errorf("request %d: %s %q", r.Index, r.Status, r.Error)
		}
	}
	if res.Accounting.Failed != 3 {
		t.Errorf("%+v", res.Accounting)
	}
}

func TestCancel(t *testing.T) {
	cfg := quick
	cfg.TokenDelay, cfg.OutputTokens = 5*time.Millisecond, 40
	_, url := startServer(t, cfg)
	ds := synthetic(t, 20, "5", "40")
	for _, sc := range []schemas.Scenario{schemas.ScenarioServer, schemas.ScenarioOffline, schemas.ScenarioConcurrency} {
		t.Run(string(sc), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 120*time.Millisecond)
			defer cancel()
			o := Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds, Scenario: sc, NumPrompts: 200, Warmup: 1}
			switch sc {
			case schemas.ScenarioServer:
				o.Rate = 50
			case schemas.ScenarioOffline:
				o.MaxConcurrency = 5
			default:
				o.MaxConcurrency = 5
			}
			res, sink := runCapture(t, ctx, o)
			checkAccounting(t, res, sink)
			if !res.Incomplete || !contains(res.Run.Flags, "incomplete") {
				t.Errorf("not marked incomplete: %v", res.Run.Flags)
			}
			if res.Accounting.Scheduled != 201 || res.Accounting.NotSent == 0 {
				t.Errorf("accounting %+v", res.Accounting)
			}
			var cancelled, measured int64
			for _, r := range sink.Requests {
				if r.Status == schemas.StatusCancelled && strings.HasPrefix(r.Error, "cancelled: ") {
					cancelled++
					if r.Phase == schemas.PhaseProfiling {
						measured++
					}
				}
			}
			if cancelled == 0 || measured != res.Accounting.Cancelled {
				t.Errorf("%d rows cancelled, accounting %+v: want the requests in flight recorded as cancelled", cancelled, res.Accounting)
			}
			if res.Accounting.Failed != 0 {
				t.Errorf("%d failed: interrupted requests are cancelled, not failed", res.Accounting.Failed)
			}
		})
	}
}

func TestAPIKeyRedacted(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	// A badly behaved server that echoes the Authorization header in its
	// error message.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"bad credentials: ` + r.Header.Get("Authorization") + `"}}`))
	}))
	defer ts.Close()
	ds := synthetic(t, 2, "5", "5")
	res, sink := runCapture(t, t.Context(), Options{Endpoint: ts.URL + "/v1/chat/completions", Model: "m", APIKey: key, Dataset: ds,
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 2})
	for _, r := range sink.Requests {
		if strings.Contains(r.Error, key) || !strings.Contains(r.Error, "[REDACTED]") || !strings.HasPrefix(r.Error, "HTTP 401") {
			t.Errorf("error %q", r.Error)
		}
	}
	_ = res
}

// fakeSampler counts its calls and reports one device.
type fakeSampler struct{ n atomic.Int64 }

func (f *fakeSampler) Source() string { return "fake" }
func (f *fakeSampler) Devices() Devices {
	return Devices{GPUModel: "Fake GPU", GPUCount: 1, Driver: "1.0", CUDA: "12.4"}
}
func (f *fakeSampler) Close() error { return nil }
func (f *fakeSampler) Sample(context.Context) ([]schemas.Sample, error) {
	k := f.n.Add(1)
	return []schemas.Sample{{Source: "fake", Device: "0", DeviceUUID: "GPU-fake", DeviceName: "Fake GPU", Time: time.Now().UTC(),
		EnergyJ: schemas.Some(float64(k)), PowerW: schemas.Some(100.0)}}, nil
}

func TestSamplesBracketWindow(t *testing.T) {
	_, url := startServer(t, quick)
	ds := synthetic(t, 5, "5", "5")
	var fsmp fakeSampler
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds,
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 5, Sampler: &fsmp, SampleInterval: 20 * time.Millisecond,
		SUT: schemas.Inventory{GPUModel: "typo", Engine: "vllm"}})
	if res.Samples < 2 || int64(len(sink.Samples)) != res.Samples {
		t.Fatalf("%d samples (%d rows)", res.Samples, len(sink.Samples))
	}
	ws, we := res.Run.WindowStart.V, res.Run.WindowEnd.V
	var before, after bool
	for _, s := range sink.Samples {
		if s.RunID != res.Run.ID {
			t.Errorf("sample run %q", s.RunID)
		}
		before = before || !s.Time.After(ws)
		after = after || !s.Time.Before(we)
	}
	if !before || !after {
		t.Errorf("samples do not bracket the window [%v, %v]", ws, we)
	}
	inv := res.Run.SUT
	if inv.GPUModel != "Fake GPU" || inv.GPUCount.V != 1 || inv.CUDA != "12.4" || inv.Engine != "vllm" || inv.DatasetSHA256 != ds.SHA256 || !inv.WarmupRequests.OK {
		t.Errorf("inventory %+v", inv)
	}
}

func TestSamplerUnavailable(t *testing.T) {
	_, url := startServer(t, quick)
	ds := synthetic(t, 2, "5", "5")
	s, err := OpenNVML() // no driver here (or a real one: then skip the check)
	if err == nil {
		s.Close()
		t.Skip("NVML is available on this machine")
	}
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: ds,
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 2, SamplerErr: err})
	if len(sink.Samples) != 0 || !contains(res.Run.Flags, "gpu_samples_unavailable") || res.Accounting.OK != 2 {
		t.Errorf("flags %v, %d samples, %+v", res.Run.Flags, len(sink.Samples), res.Accounting)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "NVML unavailable") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestValidate(t *testing.T) {
	ds := synthetic(t, 2, "5", "5")
	ok := Options{Endpoint: "http://h/v1/completions", Model: "m", Dataset: ds, Scenario: schemas.ScenarioServer, Rate: 1, NumPrompts: 1}
	cases := []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Endpoint = "http://h/v1/embeddings" }, "must end in"},
		{func(o *Options) { o.Endpoint = "ftp://h/v1/completions" }, "http://"},
		{func(o *Options) { o.Model = "" }, "model"},
		{func(o *Options) { o.Dataset = nil }, "no prompts"},
		{func(o *Options) { o.Duration = time.Second }, "exactly one"},
		{func(o *Options) { o.NumPrompts = 0 }, "exactly one"},
		{func(o *Options) { o.Rate = math.Inf(1) }, "finite rate"},
		{func(o *Options) { o.Rate = 0 }, "finite rate"},
		{func(o *Options) { o.Ramp = &Ramp{From: 0, Over: time.Second} }, "ramp"},
		{func(o *Options) { o.Scenario = schemas.ScenarioOffline }, "server scenario only"},
		{func(o *Options) {
			o.Scenario, o.Rate = schemas.ScenarioOffline, 0
			o.NumPrompts, o.Duration = 0, time.Second
		}, "not a duration"},
		{func(o *Options) { o.Scenario, o.Rate = schemas.ScenarioConcurrency, 0 }, "at least 1"},
		{func(o *Options) { o.Scenario, o.Rate, o.MaxConcurrency = schemas.ScenarioSingleStream, 0, 2 }, "one request in flight"},
		{func(o *Options) { o.Scenario = "burst" }, "unknown scenario"},
	}
	for _, c := range cases {
		o := ok
		c.edit(&o)
		_, err := o.validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", o, err, c.want)
		}
	}
	if _, err := ok.validate(); err != nil {
		t.Error(err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@api.example.com/v1/completions?api-key=x#f": "https://api.example.com/v1/completions",
		"http://127.0.0.1:8000/v1/chat/completions":                  "http://127.0.0.1:8000/v1/chat/completions",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStreamHeldOpenAfterDone(t *testing.T) {
	// A server that sends [DONE] and keeps the connection open: the
	// request succeeds and ends at [DONE], not when capture gives up
	// waiting for the end of the stream.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer ts.Close()
	res, sink := runCapture(t, t.Context(), Options{Endpoint: ts.URL + "/v1/completions", Model: "m", Dataset: synthetic(t, 1, "3", "1"),
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 1})
	r := sink.Requests[0]
	if r.Status != schemas.StatusOK || r.OutputTokens.V != 1 || res.Run.DurationS.V > 0.5 {
		t.Errorf("request %+v, window %v s", r, res.Run.DurationS.V)
	}
}
