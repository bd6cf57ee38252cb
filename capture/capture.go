package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// Tool is the tool name capture records in runs and manifests.
const Tool = "verdict-capture"

// DefaultStallTimeout is how long a request may go without receiving a
// byte (from sending it, between response headers and chunks) before it
// is abandoned as stalled.
const DefaultStallTimeout = 5 * time.Minute

// Options configure a capture. Endpoint, Model, Dataset, Scenario and one
// of NumPrompts or Duration are required.
type Options struct {
	// Endpoint is the full URL of /v1/completions or /v1/chat/completions;
	// the API is chosen from its path. It is recorded without user
	// information or query (see RedactURL).
	Endpoint string
	// Model is the "model" field of every request.
	Model string
	// APIKey is sent as "Authorization: Bearer KEY". It is never written
	// to the bundle, and it is removed from every recorded error message.
	APIKey string
	// Headers are added to every request.
	Headers map[string]string
	// NoStream sends stream=false: then no TTFT or chunk gaps exist, and
	// E2E ends when the whole body has been read.
	NoStream bool
	// NoUsage omits stream_options.include_usage (for servers that reject
	// it); token counts are then unknown unless the server sends usage
	// anyway.
	NoUsage bool
	// ExtraBody fields are merged into every request body (e.g.
	// {"ignore_eos": true, "temperature": 0}); capture's own fields win.
	ExtraBody map[string]any
	// MaxTokens is max_tokens (max_completion_tokens for chat) for prompts
	// without an expected output length; 0 sends none.
	MaxTokens int

	// Scenario is ScenarioServer, ScenarioOffline, ScenarioSingleStream or
	// ScenarioConcurrency.
	Scenario schemas.Scenario
	// Rate is the server scenario's target rate in requests/s.
	Rate float64
	// Rates, when set (server scenario, instead of Rate), makes
	// WriteBundle capture a sweep: one run per rate, in order, into the
	// one bundle, each labelled with its rate ("rate") and the sweep
	// ("sweep": the first run's ID), as `verdict capacity` reads sweeps
	// (docs: README, verdict capacity). Run takes Rate only.
	Rates []float64
	// Burstiness is the gamma shape of the server scenario's gaps: 1 (or
	// 0) is Poisson, lower is burstier, higher is more regular.
	Burstiness float64
	// Ramp, when set, ramps the server scenario's rate up linearly.
	Ramp *Ramp
	// MaxConcurrency caps requests in flight in the server and offline
	// scenarios (0: no cap; requests beyond the cap wait, and the wait is
	// recorded as client_queue); it is the number of streams in the
	// concurrency scenario, and 1 (or 0) in single-stream.
	MaxConcurrency int
	// NumPrompts or Duration bounds the measured phase (exactly one). With
	// Duration no request is dispatched after Duration has passed; those
	// in flight finish.
	NumPrompts int
	Duration   time.Duration
	// Warmup requests are sent before the measured phase, with the
	// scenario's concurrency (all at once when it has none), recorded with
	// phase "warmup" and left out of every statistic and of the window.
	Warmup int
	// Seed drives the arrival schedule (math/rand/v2 PCG).
	Seed uint64

	// Dataset supplies the prompts, in order, reused cyclically when the
	// capture needs more.
	Dataset *Dataset

	// StallTimeout abandons a request that receives nothing for this long;
	// 0 means DefaultStallTimeout, negative means never.
	StallTimeout time.Duration
	// Timeout bounds each request's total time; 0 means no bound.
	Timeout time.Duration

	// Sampler, when set, samples accelerators every SampleInterval (0: 1 s)
	// and at the edges of the measured window. SamplerErr records why a
	// requested sampler is unavailable: the run gets a warning and the
	// flag "gpu_samples_unavailable", and no samples.
	Sampler        Sampler
	SampleInterval time.Duration
	SamplerErr     error

	// Transport sends the requests; nil means NewTransport(concurrency).
	Transport http.RoundTripper
	// Progress receives progress reports; nil means none.
	Progress Progress

	// SUT is the user's inventory; capture fills in what it measures (GPU
	// model and count, driver and CUDA from the sampler, dataset, its
	// SHA-256, endpoint and warm-up count).
	SUT schemas.Inventory
	// Labels are added to the run.
	Labels map[string]string
	// Version is verdict's version, recorded as the tool version.
	Version string
}

// A Progress receives progress reports. Start is called once with the
// number of requests to send (warm-up included; 0 when the capture is
// bounded by time), Done once per request sent or given up; both are
// called from one goroutine.
type Progress interface {
	Start(total int64)
	Done(ok bool)
}

// A Sink receives a capture's rows as they are produced, from one
// goroutine. The pointers are valid only during the call.
type Sink interface {
	Request(r *schemas.Request) error
	Sample(s *schemas.Sample) error
}

// MemorySink keeps every row in memory (for tests and small captures).
type MemorySink struct {
	Requests []schemas.Request
	Samples  []schemas.Sample
}

// Request implements Sink.
func (m *MemorySink) Request(r *schemas.Request) error {
	c := *r
	c.ChunkGapsS = append([]float64(nil), r.ChunkGapsS...)
	if r.ChunkGapsS != nil && c.ChunkGapsS == nil {
		c.ChunkGapsS = []float64{}
	}
	m.Requests = append(m.Requests, c)
	return nil
}

// Sample implements Sink.
func (m *MemorySink) Sample(s *schemas.Sample) error {
	m.Samples = append(m.Samples, *s)
	return nil
}

// NewTransport returns the HTTP transport capture uses by default: HTTP/1.1
// (one connection per stream, as aiohttp in vLLM's client), no compression
// (a gzipped event stream would be buffered), and at least conns idle
// connections kept per host so that streams reuse connections.
func NewTransport(conns int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: max(conns, 64),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		ReadBufferSize:      32 << 10,
	}
}

// Accounting says what became of every scheduled request: Sent + NotSent
// = Scheduled, for the warm-up and for the measured phase. Requests that
// were sent are rows of the requests table (OK or failed); requests never
// sent are counted here by reason, and in the manifest as rejected rows of
// the requests table.
type Accounting struct {
	Scheduled, Sent, NotSent int64
	// WarmupScheduled and WarmupSent count the warm-up phase (included
	// above).
	WarmupScheduled, WarmupSent int64
	// NotSentReasons counts unsent requests by reason.
	NotSentReasons map[string]int64
	// OK, Failed and Cancelled count the measured phase's rows;
	// Cancelled ones were in flight when the capture was interrupted
	// (status "cancelled", counted in the run as neither completed nor
	// failed).
	OK, Failed, Cancelled int64
}

// A Result describes a finished capture.
type Result struct {
	Run        schemas.Run
	Metrics    []schemas.Metric
	Accounting Accounting
	// Samples is the number of resource samples written.
	Samples int64
	// Warnings are facts about the capture that cost no row: sampling
	// unavailable, reused prompts, requests without usage, schedule lag.
	Warnings []string
	// Incomplete is true when the capture was interrupted.
	Incomplete bool
	// FakeServer is true when the endpoint answered as verdict fakeserver
	// (its traces can then calibrate the measurements; see Calibrate).
	FakeServer bool
	// MaxLag is the largest delay between an arrival's scheduled time and
	// its dispatch (open-loop scenarios), a measure of client overload.
	MaxLag time.Duration
}

// validate checks the options and returns the API.
func (o *Options) validate() (API, error) {
	api, err := APIFromURL(o.Endpoint)
	if err != nil {
		return "", err
	}
	if u, _ := url.Parse(o.Endpoint); u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("endpoint %s: want an http:// or https:// URL", RedactURL(o.Endpoint))
	}
	switch {
	case o.Model == "":
		return "", errors.New("a model is required")
	case o.Dataset == nil || len(o.Dataset.Prompts) == 0:
		return "", ErrEmptyDataset
	case (o.NumPrompts > 0) == (o.Duration > 0):
		return "", errors.New("give exactly one of a number of prompts and a duration")
	case o.NumPrompts < 0 || o.Duration < 0 || o.Warmup < 0 || o.MaxConcurrency < 0 || o.MaxTokens < 0:
		return "", errors.New("counts and durations must not be negative")
	}
	switch o.Scenario {
	case schemas.ScenarioServer:
		if len(o.Rates) > 0 {
			if o.Rate != 0 {
				return "", errors.New("give one rate or a list of rates, not both")
			}
			for _, r := range o.Rates {
				if !(r > 0) || math.IsInf(r, 0) {
					return "", fmt.Errorf("rate %v of the list: each must be a finite rate > 0", r)
				}
			}
		} else if !(o.Rate > 0) || math.IsInf(o.Rate, 0) {
			return "", errors.New("the server scenario needs a finite rate > 0 (for all requests at once use the offline scenario)")
		}
		if o.Burstiness < 0 || math.IsNaN(o.Burstiness) || math.IsInf(o.Burstiness, 0) {
			return "", errors.New("burstiness must be a finite number > 0")
		}
		if r := o.Ramp; r != nil && (!(r.From > 0) || math.IsInf(r.From, 0) || r.Over <= 0) {
			return "", errors.New("a ramp needs a starting rate > 0 and a positive duration")
		}
	case schemas.ScenarioOffline:
		if o.Duration > 0 {
			return "", errors.New("the offline scenario releases a fixed number of prompts: give a number, not a duration")
		}
	case schemas.ScenarioSingleStream:
		if o.MaxConcurrency > 1 {
			return "", errors.New("single-stream has one request in flight; use the concurrency scenario for more")
		}
	case schemas.ScenarioConcurrency:
		if o.MaxConcurrency < 1 {
			return "", errors.New("the concurrency scenario needs a concurrency of at least 1")
		}
	default:
		return "", fmt.Errorf("unknown scenario %q (want server, offline, single_stream or fixed_concurrency)", o.Scenario)
	}
	if o.Scenario != schemas.ScenarioServer && (o.Rate != 0 || len(o.Rates) > 0 || o.Ramp != nil || o.Burstiness != 0) {
		return "", fmt.Errorf("rate, burstiness and ramp apply to the server scenario only")
	}
	return api, nil
}

// concurrency is the number of requests in flight the scenario allows (0:
// unbounded).
func (o *Options) concurrency() int {
	switch o.Scenario {
	case schemas.ScenarioSingleStream:
		return 1
	}
	return o.MaxConcurrency
}

// runner is one capture in progress.
type runner struct {
	opts   Options
	cl     *client
	runID  string
	base   time.Time
	out    chan *outcome
	nextIx atomic.Int64

	mu       sync.Mutex
	notSent  map[string]int64
	lag      time.Duration
	sampleMu sync.Mutex
}

// Run performs a capture and streams its rows to sink. It returns an error
// only for invalid options or a failing sink; failed requests are rows.
// Run closes opts.Sampler once it has started sampling.
// When ctx is cancelled, dispatch stops, requests in flight are abandoned
// (rows with status "cancelled") and the Result is marked incomplete.
func Run(ctx context.Context, opts Options, sink Sink) (*Result, error) {
	api, err := opts.validate()
	if err != nil {
		return nil, err
	}
	if opts.Burstiness == 0 {
		opts.Burstiness = 1
	}
	tr := opts.Transport
	if tr == nil {
		t := NewTransport(max(opts.concurrency(), opts.Warmup, 1))
		defer t.CloseIdleConnections()
		tr = t
	}
	base := time.Now()
	r := &runner{opts: opts, base: base, notSent: map[string]int64{}, out: make(chan *outcome, 4096)}
	r.runID = newRunID(base, opts)
	r.cl = newClient(&opts, api, tr, r.runID)

	col := newCollector(r, sink)
	colDone := make(chan error, 1)
	go func() { colDone <- col.run() }()

	var loop *samplerLoop
	sctx, stopSampling := context.WithCancel(context.WithoutCancel(ctx))
	var samplerWG sync.WaitGroup
	if opts.Sampler != nil {
		loop = newSamplerLoop(opts.Sampler, opts.SampleInterval, col.samples)
		samplerWG.Go(func() { loop.run(sctx) })
	}

	if opts.Progress != nil && opts.NumPrompts > 0 {
		opts.Progress.Start(int64(opts.NumPrompts + opts.Warmup))
	} else if opts.Progress != nil {
		opts.Progress.Start(0)
	}

	// Warm-up.
	if opts.Warmup > 0 {
		conc := opts.concurrency()
		if conc == 0 {
			conc = opts.Warmup
		}
		r.closedLoop(ctx, schemas.PhaseWarmup, conc, opts.Warmup, 0)
	}
	var windowStart time.Time
	measured := ctx.Err() == nil
	if measured {
		if loop != nil {
			loop.now(sctx)
		}
		windowStart = time.Now()
		col.startWindow()
		switch opts.Scenario {
		case schemas.ScenarioServer:
			r.openLoop(ctx, newArrivals(opts.Rate, opts.Burstiness, opts.Ramp, opts.Seed), windowStart)
		case schemas.ScenarioOffline:
			r.openLoop(ctx, nil, windowStart)
		default:
			r.closedLoop(ctx, schemas.PhaseProfiling, max(opts.concurrency(), 1), opts.NumPrompts, opts.Duration)
		}
	} else if opts.NumPrompts > 0 {
		r.skip(schemas.PhaseProfiling, int64(opts.NumPrompts), "capture interrupted before the measured phase")
	}
	close(r.out)
	if err := <-colDone; err != nil {
		stopSampling()
		samplerWG.Wait()
		return nil, err
	}
	if loop != nil {
		if measured {
			loop.now(sctx)
		}
		stopSampling()
		samplerWG.Wait()
		if err := opts.Sampler.Close(); err != nil {
			col.warn(err.Error())
		}
		for _, w := range loop.warnings() {
			col.warn(w)
		}
		if u, ok := opts.Sampler.(interface{ Unsupported() []string }); ok {
			if un := u.Unsupported(); len(un) > 0 {
				col.warn(fmt.Sprintf("%s: some devices did not report %v; those readings are unknown", opts.Sampler.Source(), un))
			}
		}
	} else {
		stopSampling()
	}
	if col.err != nil {
		return nil, col.err
	}
	return col.result(ctx.Err() != nil, windowStart, measured)
}

// newClient returns the client of a capture whose requests carry
// X-Request-Id RUNID-INDEX.
func newClient(o *Options, api API, tr http.RoundTripper, runID string) *client {
	stall := o.StallTimeout
	switch {
	case stall == 0:
		stall = DefaultStallTimeout
	case stall < 0:
		stall = 0
	}
	c := &client{hc: &http.Client{Transport: tr}, url: o.Endpoint, api: api, model: o.Model,
		secrets: Secrets(o.Endpoint, o.Headers, o.APIKey), stream: !o.NoStream, includeUsage: !o.NoUsage, stall: stall, timeout: o.Timeout,
		extra: o.ExtraBody, headers: o.Headers, runID: runID}
	if o.APIKey != "" {
		c.auth = "Bearer " + o.APIKey
	}
	return c
}

// newRunID names a capture run by its start time and settings.
func newRunID(t time.Time, o Options) string {
	h := sha256.Sum256([]byte(t.UTC().Format(time.RFC3339Nano) + "\x00" + RedactURL(o.Endpoint) + "\x00" + o.Model + "\x00" + strconv.FormatUint(o.Seed, 10)))
	return "capture-" + hex.EncodeToString(h[:6])
}

// prompt returns the prompt of dispatch index i.
func (r *runner) prompt(i int64) Prompt {
	ps := r.opts.Dataset.Prompts
	return ps[i%int64(len(ps))]
}

// skip counts n requests that will never be sent.
func (r *runner) skip(phase string, n int64, reason string) {
	if n <= 0 {
		return
	}
	if phase == schemas.PhaseWarmup {
		reason = "warm-up: " + reason
	}
	r.mu.Lock()
	r.notSent[reason] += n
	r.mu.Unlock()
}

// send performs one request and hands its outcome to the collector.
func (r *runner) send(ctx context.Context, o *outcome) {
	if ctx.Err() != nil {
		r.skip(o.phase, 1, "capture interrupted before sending")
		return
	}
	r.cl.do(ctx, o, r.prompt(o.index), r.opts.MaxTokens)
	r.out <- o
}

// sleepUntil waits for t; false when ctx ended first.
func sleepUntil(ctx context.Context, timer *time.Timer, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		timer.Stop()
		return false
	}
}

// openLoop dispatches the server (arr != nil) or offline (arr == nil)
// scenario. The dispatcher itself waits for a concurrency slot, in
// arrival order, so a request's client_queue time is its send time minus
// its scheduled arrival.
func (r *runner) openLoop(ctx context.Context, arr *arrivals, start time.Time) {
	var sem chan struct{}
	if c := r.opts.concurrency(); c > 0 {
		sem = make(chan struct{}, c)
	}
	n, dur := int64(r.opts.NumPrompts), r.opts.Duration
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var wg sync.WaitGroup
	var slotAt time.Time
dispatch:
	for i := int64(0); n == 0 || i < n; i++ {
		off := 0.0
		if arr != nil {
			off = arr.next()
		}
		if dur > 0 && off >= dur.Seconds() {
			break
		}
		at := start.Add(time.Duration(off * float64(time.Second)))
		if !sleepUntil(ctx, timer, at) {
			r.skip(schemas.PhaseProfiling, n-i, "capture interrupted before the request's arrival time")
			break
		}
		// Lateness of the dispatcher itself: from the arrival time, or
		// from when the last concurrency slot came free if that was later
		// (waiting for a slot is client_queue, not lateness).
		if lag := time.Since(later(at, slotAt)); lag > r.lag {
			r.mu.Lock()
			r.lag = max(r.lag, lag)
			r.mu.Unlock()
		}
		if sem != nil {
			select {
			case sem <- struct{}{}:
				slotAt = time.Now()
			case <-ctx.Done():
				r.skip(schemas.PhaseProfiling, max(n-i, 1), "capture interrupted while the request waited for a concurrency slot")
				break dispatch
			}
		}
		o := &outcome{index: r.nextIx.Add(1) - 1, phase: schemas.PhaseProfiling, arrival: at}
		wg.Go(func() {
			r.send(ctx, o)
			if sem != nil {
				<-sem
			}
		})
	}
	wg.Wait()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// closedLoop runs conc streams, each sending its next request when the
// last one ends, for n requests (or, with dur > 0, until dur has passed).
func (r *runner) closedLoop(ctx context.Context, phase string, conc, n int, dur time.Duration) {
	var claimed atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				if dur > 0 && time.Since(start) >= dur {
					return
				}
				if n > 0 && claimed.Add(1) > int64(n) {
					return
				}
				o := &outcome{index: r.nextIx.Add(1) - 1, phase: phase, arrival: time.Now()}
				r.send(ctx, o)
			}
		})
	}
	wg.Wait()
	if n > 0 {
		if c := min(claimed.Load(), int64(n)); c < int64(n) {
			r.skip(phase, int64(n)-c, "capture interrupted before sending")
		}
	}
}
