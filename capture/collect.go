package capture

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verdict-llm/verdict/internal/spill"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// collector turns outcomes into rows on one goroutine, feeds the sink and
// accumulates the measured phase's statistics.
type collector struct {
	r    *runner
	sink Sink

	mu       sync.Mutex // guards sink calls from the sampler, warnings, err
	err      error
	warnings []string
	nSamples int64

	// Accounting.
	sentWarm, sentProf int64
	ok, failed         int64
	cancelled          int64 // abandoned when the capture was interrupted
	windowEnd          time.Time
	windowOpen         bool
	fake               bool

	// Measured-phase observations (successful requests unless noted).
	ttft, ttftAnswer, tpot, itl, e2e, queue spill.Floats
	inTok, outTok, reasonTok                int64
	withUsage, withoutUsage                 int64
	chunks                                  int64
	intervals                               [][2]float64 // [start, end) of successful requests, for peak concurrency
	missingDone, ignoredStream              int64
	errorKinds                              map[string]int64
}

func newCollector(r *runner, sink Sink) *collector {
	return &collector{r: r, sink: sink, errorKinds: map[string]int64{}}
}

func (c *collector) warn(msg string) {
	c.mu.Lock()
	c.warnings = append(c.warnings, msg)
	c.mu.Unlock()
}

func (c *collector) startWindow() {
	c.mu.Lock()
	c.windowOpen = true
	c.mu.Unlock()
}

// unix converts a monotonic instant into Unix seconds: the wall clock is
// read once, at the start of the capture, and every later instant is
// that reading plus monotonic time, so a wall-clock step during the
// capture shifts nothing.
func (r *runner) unix(t time.Time) float64 {
	d := t.Sub(r.base)
	return float64(r.base.Unix()) + (float64(r.base.Nanosecond())+float64(d.Nanoseconds()))/1e9
}

// wall converts a monotonic instant into UTC wall-clock time (see unix).
func (r *runner) wall(t time.Time) time.Time {
	return r.base.Add(t.Sub(r.base)).Round(0).UTC()
}

// samples receives a round of resource samples from the sampler loop.
func (c *collector) samples(ss []schemas.Sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range ss {
		ss[i].RunID = c.r.runID
		if c.err == nil {
			if err := c.sink.Sample(&ss[i]); err != nil {
				c.err = err
				return
			}
			c.nSamples++
		}
	}
}

// run consumes outcomes until the runner closes the channel.
func (c *collector) run() error {
	var req schemas.Request
	for o := range c.r.out {
		c.fake = c.fake || o.fake
		c.row(o, &req)
		c.mu.Lock()
		if c.err == nil {
			c.err = c.sink.Request(&req)
		}
		c.mu.Unlock()
		if p := c.r.opts.Progress; p != nil {
			p.Done(o.ok)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// row converts o into req and accumulates statistics.
func (c *collector) row(o *outcome, req *schemas.Request) {
	r := c.r
	*req = schemas.Request{RunID: r.runID, Index: o.index, Phase: o.phase, Status: schemas.StatusError, Error: o.err}
	cancelled := !o.ok && strings.HasPrefix(o.err, cancelledPrefix)
	switch {
	case o.ok:
		req.Status = schemas.StatusOK
	case cancelled:
		req.Status = schemas.StatusCancelled
	}
	req.StartS = schemas.Some(r.unix(o.sent))
	req.QueueS = schemas.Some(max(o.sent.Sub(o.arrival).Seconds(), 0))
	if o.streamed {
		req.ChunkGapsS = o.gaps
		if req.ChunkGapsS == nil {
			req.ChunkGapsS = []float64{}
		}
		if o.chunks > 0 {
			req.TTFTS = schemas.Some(o.first.Sub(o.sent).Seconds())
		}
		if !o.firstAnswer.IsZero() {
			req.TTFTAnswerS = schemas.Some(o.firstAnswer.Sub(o.sent).Seconds())
		}
	}
	switch {
	case o.ok:
		e2e := o.last.Sub(o.sent).Seconds()
		req.E2ES = schemas.Some(e2e)
		req.EndS = schemas.Some(req.StartS.V + e2e)
	default:
		req.EndS = schemas.Some(r.unix(o.done))
	}
	if o.promptTokens >= 0 {
		req.InputTokens = schemas.Some(o.promptTokens)
	}
	if o.outputTokens >= 0 {
		req.OutputTokens = schemas.Some(o.outputTokens)
	}
	if o.reasoningTokens >= 0 {
		req.ReasoningTokens = schemas.Some(o.reasoningTokens)
	}

	if o.phase == schemas.PhaseWarmup {
		c.sentWarm++
		return
	}
	c.sentProf++
	if o.done.After(c.windowEnd) {
		c.windowEnd = o.done
	}
	c.add(&c.queue, req.QueueS.V)
	if o.missingDone {
		c.missingDone++
	}
	if cancelled {
		c.cancelled++
		return
	}
	if !o.ok {
		c.failed++
		if strings.HasPrefix(o.err, "server ignored stream") {
			c.ignoredStream++
		}
		c.errorKinds[errorKind(o.err)]++
		return
	}
	c.ok++
	c.intervals = append(c.intervals, [2]float64{req.StartS.V, req.EndS.V})
	c.add(&c.e2e, req.E2ES.V)
	if req.TTFTS.OK {
		c.add(&c.ttft, req.TTFTS.V)
		for _, g := range req.ChunkGapsS {
			c.add(&c.itl, g)
		}
		c.chunks += int64(o.chunks)
		if tpot := req.TPOT(); tpot.OK {
			c.add(&c.tpot, tpot.V)
		}
	}
	if req.TTFTAnswerS.OK {
		c.add(&c.ttftAnswer, req.TTFTAnswerS.V)
	}
	if req.OutputTokens.OK {
		c.withUsage++
		c.outTok += req.OutputTokens.V
	} else {
		c.withoutUsage++
	}
	if req.InputTokens.OK {
		c.inTok += req.InputTokens.V
	}
	if req.ReasoningTokens.OK {
		c.reasonTok += req.ReasoningTokens.V
	}
}

func (c *collector) add(f *spill.Floats, x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	if err := f.Add(x); err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
}

// errorKind is the class of an error message: the text before the first
// colon, with counts and numbers dropped ("HTTP 500", "stalled", ...).
func errorKind(msg string) string {
	k, _, _ := strings.Cut(msg, ":")
	if i := strings.Index(k, " after "); i > 0 {
		k = k[:i]
	}
	return strings.TrimSpace(k)
}

func (c *collector) close() {
	for _, f := range []*spill.Floats{&c.ttft, &c.ttftAnswer, &c.tpot, &c.itl, &c.e2e, &c.queue} {
		f.Close()
	}
}

// result builds the run row, the computed metrics and the accounting.
func (c *collector) result(interrupted bool, windowStart time.Time, measured bool) (*Result, error) {
	defer c.close()
	r, o := c.r, c.r.opts
	res := &Result{Incomplete: interrupted, FakeServer: c.fake, Samples: c.nSamples, MaxLag: r.lag}
	res.Warnings = append(res.Warnings, c.warnings...)

	// Accounting.
	a := &res.Accounting
	a.NotSentReasons = r.notSent
	var notWarm, notProf int64
	for reason, n := range r.notSent {
		if strings.HasPrefix(reason, "warm-up: ") {
			notWarm += n
		} else {
			notProf += n
		}
	}
	a.WarmupScheduled, a.WarmupSent = int64(o.Warmup), c.sentWarm
	a.Sent = c.sentWarm + c.sentProf
	a.NotSent = notWarm + notProf
	a.Scheduled = a.Sent + a.NotSent
	a.OK, a.Failed, a.Cancelled = c.ok, c.failed, c.cancelled

	dev := Devices{}
	if o.Sampler != nil {
		dev = o.Sampler.Devices()
	}
	run := schemas.Run{
		ID: r.runID, Tool: Tool, ToolVersion: o.Version, Format: Tool,
		SourcePath: o.Dataset.Name, SourceSHA256: o.Dataset.SHA256,
		Scenario: o.Scenario, MaxConcurrency: optInt(int64(o.concurrency())),
		Streaming: schemas.Some(!o.NoStream), Backend: backendName[r.cl.api], Endpoint: RedactURL(o.Endpoint), Model: o.Model,
		NumPrompts: schemas.Some(c.sentProf + notProf), Completed: schemas.Some(c.ok), Failed: schemas.Some(c.failed),
		TokenSource: "server_usage",
		Labels:      map[string]string{"seed": strconv.FormatUint(o.Seed, 10)},
		SUT:         o.SUT,
	}
	for k, v := range o.Labels {
		run.Labels[k] = v
	}
	switch o.Scenario {
	case schemas.ScenarioServer:
		run.RequestRate, run.Burstiness = schemas.Some(o.Rate), schemas.Some(o.Burstiness)
		run.Arrival = schemas.ArrivalGamma
		if o.Burstiness == 1 {
			run.Arrival = schemas.ArrivalPoisson
		}
		if o.Ramp != nil {
			run.Arrival = schemas.ArrivalRampUp
			run.RampUp = fmt.Sprintf("linear %s->%s req/s over %s", formatFloat(o.Ramp.From), formatFloat(o.Rate), o.Ramp.Over)
		}
	case schemas.ScenarioOffline:
		run.RequestRate, run.Arrival = schemas.Some(math.Inf(1)), schemas.ArrivalAllAtOnce
	default:
		run.Arrival = schemas.ArrivalClosedLoop
	}
	if o.Duration > 0 {
		run.Labels["duration_limit_s"] = formatFloat(o.Duration.Seconds())
	}
	if c.chunks > 0 {
		run.Labels["output_chunks"] = strconv.FormatInt(c.chunks, 10)
	}
	if measured {
		end := c.windowEnd
		if end.Before(windowStart) {
			end = windowStart
		}
		run.WindowKind = schemas.WindowKindDispatch
		run.WindowStart, run.WindowEnd = schemas.Some(r.wall(windowStart)), schemas.Some(r.wall(end))
		run.DurationS = schemas.Some(end.Sub(windowStart).Seconds())
	}
	if interrupted {
		run.Flags = append(run.Flags, "incomplete")
		res.Warnings = append(res.Warnings, "the capture was interrupted: the bundle holds what was measured until then (run flag incomplete)")
	}
	if o.SamplerErr != nil {
		run.Flags = append(run.Flags, "gpu_samples_unavailable")
		res.Warnings = append(res.Warnings, "GPU samples unavailable: "+o.SamplerErr.Error())
	}
	if c.withoutUsage > 0 {
		run.Flags = append(run.Flags, "missing_server_usage")
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d successful requests had no usage in the response: their token counts are unknown and count as 0 in token throughputs", c.withoutUsage, c.ok))
		if c.withUsage == 0 {
			run.TokenSource = ""
		}
	}
	if c.missingDone > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d streams ended without data: [DONE]", c.missingDone))
	}
	if c.ignoredStream > 0 {
		run.Flags = append(run.Flags, "stream_ignored")
	}
	if need := o.Warmup + o.NumPrompts; need > len(o.Dataset.Prompts) && o.NumPrompts > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the dataset has %d prompts and the capture sent up to %d: prompts were reused in order", len(o.Dataset.Prompts), need))
	}
	if r.lag > 50*time.Millisecond {
		res.Warnings = append(res.Warnings, fmt.Sprintf("dispatch ran up to %s behind the arrival schedule: the client may be overloaded", r.lag.Round(time.Millisecond)))
	}
	for _, k := range sortedKeys(c.errorKinds) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d measured requests failed: %s", c.errorKinds[k], k))
	}

	// Inventory: what capture measured; the user's values stay where it
	// measured nothing.
	inv := &run.SUT
	if dev.GPUModel != "" {
		if inv.GPUModel != "" && inv.GPUModel != dev.GPUModel {
			res.Warnings = append(res.Warnings, fmt.Sprintf("inventory: GPU model %q replaced by %q as %s reports it", inv.GPUModel, dev.GPUModel, o.Sampler.Source()))
		}
		inv.GPUModel = dev.GPUModel
	}
	if dev.GPUCount > 0 {
		inv.GPUCount = schemas.Some(int64(dev.GPUCount))
	}
	if dev.Driver != "" {
		inv.Driver = dev.Driver
	}
	if dev.CUDA != "" {
		inv.CUDA = dev.CUDA
	}
	inv.Dataset, inv.DatasetSHA256 = o.Dataset.label(), o.Dataset.SHA256
	inv.Endpoint = RedactURL(o.Endpoint)
	inv.WarmupRequests = schemas.Some(int64(o.Warmup))
	res.Run = run

	ms, err := c.metrics(&run)
	if err != nil {
		return nil, err
	}
	res.Metrics = ms
	return res, nil
}

// backendName names the API in the run's backend column.
var backendName = map[API]string{APICompletions: "openai-completions", APIChat: "openai-chat"}

func optInt(v int64) schemas.Opt[int64] {
	if v <= 0 {
		return schemas.Opt[int64]{}
	}
	return schemas.Some(v)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Percentiles capture reports for every latency, besides the median.
var Percentiles = []float64{90, 95, 99}

// metrics computes the run's statistics with vLLM's conventions: numpy
// linear percentiles, population standard deviation, TPOT per request over
// requests with more than one output token, ITL over the pooled chunk gaps
// of successful requests, and rates over the dispatch window.
func (c *collector) metrics(run *schemas.Run) ([]schemas.Metric, error) {
	base := schemas.Metric{RunID: run.ID, Source: schemas.SourceComputed, Unit: schemas.UnitSeconds}
	var out []schemas.Metric
	for _, s := range []struct {
		id   schemas.MetricID
		f    *spill.Floats
		note string
	}{
		{schemas.TTFT, &c.ttft, ""}, {schemas.TTFTAnswer, &c.ttftAnswer, ""}, {schemas.TPOT, &c.tpot, ""},
		{schemas.ITLChunk, &c.itl, ""}, {schemas.E2E, &c.e2e, ""},
		{schemas.ClientQueue, &c.queue, "over every sent request of the measured phase, failed ones included"},
	} {
		if s.f.Len() == 0 {
			continue
		}
		n := schemas.Some(s.f.Len())
		add := func(stat, method string, p schemas.Opt[float64], v float64) {
			m := base
			m.MetricID, m.Stat, m.Method, m.Percentile, m.Value, m.N, m.Note = s.id, stat, method, p, schemas.Some(v), n, s.note
			out = append(out, m)
		}
		qs := []float64{0.5}
		for _, p := range Percentiles {
			qs = append(qs, p/100)
		}
		vals, err := s.f.Quantiles(qs, stats.Linear)
		if err != nil {
			return nil, err
		}
		add(schemas.StatMean, "arithmetic", schemas.Opt[float64]{}, s.f.Mean())
		add(schemas.StatMedian, string(stats.Linear), schemas.Opt[float64]{}, vals[0])
		add(schemas.StatStd, "population", schemas.Opt[float64]{}, s.f.StdDev(0))
		for i, p := range Percentiles {
			add(schemas.StatP, string(stats.Linear), schemas.Some(p), vals[i+1])
		}
		add(schemas.StatMin, "", schemas.Opt[float64]{}, s.f.Min())
		add(schemas.StatMax, "", schemas.Opt[float64]{}, s.f.Max())
	}
	if c.ok > 0 {
		m := base
		m.MetricID, m.Stat, m.Unit, m.Value, m.N = schemas.PeakConcurrency, schemas.StatValue, schemas.UnitRequests, schemas.Some(float64(peakOverlap(c.intervals))), schemas.Some(c.ok)
		out = append(out, m)
	}
	if d := run.DurationS; d.OK && d.V > 0 {
		rate := func(id schemas.MetricID, v float64, note string) {
			m := base
			m.MetricID, m.Stat, m.Unit, m.Value, m.N, m.Note = id, schemas.StatValue, schemas.MustLookup(id).Unit, schemas.Some(v/d.V), schemas.Some(c.ok), note
			out = append(out, m)
		}
		rate(schemas.RequestThroughput, float64(c.ok), "")
		if c.withUsage > 0 {
			note := ""
			if c.withoutUsage > 0 {
				note = fmt.Sprintf("%d successful requests without usage counted as 0 tokens", c.withoutUsage)
			}
			rate(schemas.OutputTokenThroughput, float64(c.outTok), note)
			rate(schemas.InputTokenThroughput, float64(c.inTok), note)
			rate(schemas.TotalTokenThroughput, float64(c.inTok+c.outTok), note)
		}
	}
	return out, nil
}

// peakOverlap is the largest number of overlapping [start, end)
// intervals (a sweep line; an end and a start at the same instant do not
// overlap).
func peakOverlap(iv [][2]float64) int {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(iv))
	for _, x := range iv {
		evs = append(evs, ev{x[0], 1}, ev{x[1], -1})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return a.d - b.d // ends first
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
