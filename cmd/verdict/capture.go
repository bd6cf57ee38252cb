package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/capture"
	"github.com/verdict-llm/verdict/schemas"
)

// apiKeyEnv is the environment variable capture reads the API key from.
const apiKeyEnv = "VERDICT_API_KEY"

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "measure an OpenAI-compatible endpoint and write a bundle",
		Description: `Sends a dataset's prompts to an OpenAI-compatible /v1/completions or
/v1/chat/completions endpoint, streaming, and times every request on the
monotonic clock exactly as vLLM's benchmark does: TTFT from sending the
request (after any wait for a --max-concurrency slot, recorded apart as
client_queue) to the first chunk with choices, one gap per chunk (ITL),
E2E to the last chunk with choices, TPOT = (E2E - TTFT)/(output tokens - 1)
with token counts from the server's usage. Reasoning content is kept apart:
ttft_answer is the first chunk with answer content. GPU telemetry (NVML on
this machine, or a dcgm-exporter URL) is sampled on the same run and window.

Scenarios:
   server          arrivals at --rate req/s: Poisson, or gamma with --burstiness
                   (<1 burstier), optionally --ramp-up FROM/DURATION, capped by
                   --max-concurrency; a list (--rate 2,4,8) captures a sweep:
                   one run per rate, in order, into the one bundle, each with
                   the warm-up and bound given and the labels rate=RATE and
                   sweep=ID (the first run's ID), for verdict capacity
   offline         every prompt released at once (capped by --max-concurrency)
   single-stream   one request at a time
   concurrency     --max-concurrency streams, each sending its next request
                   when the last ends

--endpoint takes the server's base URL (http://host:8000 or .../v1) and
--api completions|chat, or the full path of the API. Before the run one
single request is sent, as vllm bench serve does: when it gets no response
(connection refused, unknown host) or a client error (HTTP 404 for a wrong
path, 401 for a missing key, 400 for an unknown model) capture stops at
once with that cause and exit status 2.

Every scheduled request is accounted for: sent requests are rows (ok or
failed, with the error), requests never sent (Ctrl-C) are counted by reason
in the manifest. Ctrl-C stops cleanly: requests in flight are recorded with
status cancelled (not failed), the bundle is written with what completed
and the run flag "incomplete", and the exit status is 130 (143 on
SIGTERM). The API key is read from $` + apiKeyEnv + ` or --api-key-file and
is never written to the bundle, the output or any error.

Against the built-in reference server (verdict fakeserver) capture also
prints its own measurement error: measured minus the server's true TTFT and
chunk gaps.

Examples:
   verdict fakeserver --listen 127.0.0.1:8000 --ttft 50ms --token-delay 10ms &
   verdict capture --endpoint http://127.0.0.1:8000 --model fake \
       --synthetic 512/128 --scenario concurrency --max-concurrency 64 \
       --num-prompts 1000 -o calib.bundle
   VERDICT_API_KEY=... verdict capture --endpoint http://gpu-1:8000/v1 --api chat \
       --model meta-llama/Llama-3.1-8B-Instruct --dataset sharegpt.json --max-tokens 256 \
       --scenario server --rate 8 --burstiness 0.5 --duration 10m --warmup 20 \
       --sut h100.yaml -o llama-8qps.bundle
   verdict capture --endpoint http://gpu-1:8000/v1 --model m --synthetic 512/128 \
       --scenario server --rate 2,4,8,16 --num-prompts 500 --warmup 10 -o sweep.bundle
   verdict capture --endpoint http://gpu-1:8000/v1/completions --model m --dataset prompts.jsonl \
       --scenario offline --num-prompts 500 --gpu dcgm=http://gpu-1:9400/metrics -o offline.bundle`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "endpoint", Usage: "server `URL`: a base (http://host:8000 or http://host:8000/v1, with --api) or the full path of /v1/completions or /v1/chat/completions", Required: true},
			&cli.StringFlag{Name: "api", Usage: "`API` of a base --endpoint: completions or chat (default: completions, or what a full path says)"},
			&cli.BoolFlag{Name: "no-preflight", Usage: "skip the single request sent before the run to check the endpoint"},
			&cli.StringFlag{Name: "model", Usage: "model `NAME` sent in every request", Required: true},
			&cli.StringFlag{Name: "dataset", Usage: "prompts `FILE`: JSONL with \"prompt\" (and optional \"output_tokens\") or a ShareGPT JSON array", TakesFile: true},
			&cli.StringFlag{Name: "synthetic", Usage: "generate prompts: `IN/OUT` lengths, each N, LO-HI or normal:MEAN,SD (e.g. 512/64-256)"},
			&cli.StringFlag{Name: "scenario", Usage: "`SCENARIO`: server, offline, single-stream or concurrency", Required: true},
			&cli.StringFlag{Name: "rate", Usage: "server scenario: target `REQ/S`, or a comma-separated list of rates for a sweep (one run each, in order)"},
			&cli.Float64Flag{Name: "burstiness", Value: 1, Usage: "server scenario: gamma shape of arrival gaps (1 = Poisson)"},
			&cli.StringFlag{Name: "ramp-up", Usage: "server scenario: ramp linearly from `FROM/DURATION` (e.g. 1/30s) up to --rate"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "requests in flight: a cap (server, offline) or the number of streams (concurrency)"},
			&cli.IntFlag{Name: "num-prompts", Usage: "measured requests to send"},
			&cli.DurationFlag{Name: "duration", Usage: "dispatch measured requests for this long instead"},
			&cli.IntFlag{Name: "warmup", Usage: "warm-up requests sent first, recorded and excluded from results"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the arrival schedule and synthetic prompts"},
			&cli.IntFlag{Name: "max-tokens", Usage: "max_tokens for prompts without an output length"},
			&cli.BoolFlag{Name: "no-stream", Usage: "send stream=false (no TTFT or ITL)"},
			&cli.BoolFlag{Name: "no-usage", Usage: "do not send stream_options.include_usage"},
			&cli.StringFlag{Name: "extra-body", Usage: "`JSON` object merged into every request body, e.g. '{\"ignore_eos\":true}'"},
			&cli.StringSliceFlag{Name: "header", Usage: "extra request header `NAME: VALUE` (repeatable)"},
			&cli.StringFlag{Name: "api-key-file", Usage: "read the API key from `FILE` (default: $" + apiKeyEnv + ")", TakesFile: true},
			&cli.DurationFlag{Name: "stall-timeout", Value: capture.DefaultStallTimeout, Usage: "abandon a request that receives nothing for this long"},
			&cli.DurationFlag{Name: "timeout", Usage: "bound each request's total time (0: none)"},
			&cli.StringFlag{Name: "gpu", Value: "auto", Usage: "GPU sampling: auto (NVML when present), none, nvml, or dcgm=`URL`"},
			&cli.DurationFlag{Name: "sample-interval", Value: time.Second, Usage: "GPU sampling interval"},
			&cli.StringFlag{Name: "sut", Usage: "system-under-test inventory `FILE` (YAML); capture fills in what it measures", TakesFile: true},
			&cli.StringSliceFlag{Name: "label", Usage: "add a `key=value` label to the run (repeatable)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "bundle directory to write", Required: true, TakesFile: true},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing bundle"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 0 {
				return usage("capture takes no arguments")
			}
			opts, err := captureOptions(ctx, cmd)
			if err != nil {
				return err
			}
			errw := cmd.Root().ErrWriter
			var bar *captureBar
			if p := newProgress(ctx, errw); p != nil {
				bar = &captureBar{p: p}
				opts.Progress = bar
			}
			if !cmd.Bool("no-preflight") {
				if err := preflight(ctx, errw, opts); err != nil {
					if opts.Sampler != nil {
						opts.Sampler.Close()
					}
					return err
				}
			}
			dest := cmd.String("out")
			results, err := capture.WriteSweep(ctx, dest, opts, schemas.BundleOptions{VerdictVersion: verdictVersion(), Overwrite: cmd.Bool("force")})
			bar.finish()
			if err != nil {
				return err
			}
			for _, res := range results {
				if len(opts.Rates) > 0 {
					fmt.Fprintf(cmd.Root().Writer, "rate %s req/s:\n", strconv.FormatFloat(res.Run.RequestRate.V, 'g', -1, 64))
				}
				reportCapture(ctx, cmd.Root().Writer, errw, dest, opts, res)
			}
			if res := results[len(results)-1]; res.Incomplete {
				if n := len(opts.Rates); n > 0 && len(results) < n {
					return fmt.Errorf("capture interrupted: %s holds the runs of %d of %d rates, the last incomplete (run flag incomplete)", dest, len(results), n)
				}
				return fmt.Errorf("capture interrupted: %s holds the requests measured so far (run flag incomplete)", dest)
			}
			return nil
		},
	}
}

// captureOptions maps the flags to capture.Options.
func captureOptions(ctx context.Context, cmd *cli.Command) (capture.Options, error) {
	api, err := capture.ParseAPI(cmd.String("api"))
	if err != nil {
		return capture.Options{}, usage("--api: %v", err)
	}
	endpoint, _, err := capture.ResolveEndpoint(cmd.String("endpoint"), api)
	if err != nil {
		return capture.Options{}, usage("--endpoint: %v", err)
	}
	o := capture.Options{Endpoint: endpoint, Model: cmd.String("model"),
		MaxConcurrency: cmd.Int("max-concurrency"), NumPrompts: cmd.Int("num-prompts"), Duration: cmd.Duration("duration"),
		Warmup: cmd.Int("warmup"), Seed: cmd.Uint64("seed"), MaxTokens: cmd.Int("max-tokens"),
		NoStream: cmd.Bool("no-stream"), NoUsage: cmd.Bool("no-usage"),
		StallTimeout: cmd.Duration("stall-timeout"), Timeout: cmd.Duration("timeout"), SampleInterval: cmd.Duration("sample-interval"),
		Version: verdictVersion()}
	if o.StallTimeout == 0 {
		o.StallTimeout = -1 // --stall-timeout 0: never
	}
	if s := cmd.String("rate"); s != "" {
		rates, err := parseRates(s)
		if err != nil {
			return o, err
		}
		if len(rates) == 1 {
			o.Rate = rates[0]
		} else {
			o.Rates = rates
		}
	}
	sc, err := parseScenario(cmd.String("scenario"))
	if err != nil {
		return o, err
	}
	o.Scenario = sc
	if sc == schemas.ScenarioServer {
		o.Burstiness = cmd.Float64("burstiness")
	} else if cmd.IsSet("burstiness") {
		return o, usage("--burstiness applies to the server scenario only")
	}
	if s := cmd.String("ramp-up"); s != "" {
		if o.Ramp, err = parseRamp(s); err != nil {
			return o, err
		}
	}
	if (o.NumPrompts > 0) == (o.Duration > 0) {
		return o, usage("give one of --num-prompts N and --duration D")
	}
	if o.Dataset, err = loadCaptureDataset(cmd, o.NumPrompts+o.Warmup); err != nil {
		return o, err
	}
	if o.APIKey, err = apiKey(cmd.String("api-key-file")); err != nil {
		return o, err
	}
	if s := cmd.String("extra-body"); s != "" {
		if err := json.Unmarshal([]byte(s), &o.ExtraBody); err != nil {
			return o, usage("--extra-body: want a JSON object: %v", err)
		}
	}
	for _, h := range cmd.StringSlice("header") {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return o, usage("--header %q: want NAME: VALUE", h)
		}
		if o.Headers == nil {
			o.Headers = map[string]string{}
		}
		o.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if path := cmd.String("sut"); path != "" {
		if o.SUT, err = schemas.LoadInventory(path); err != nil {
			return o, usage("--sut: %v", err)
		}
	}
	if o.Labels, err = parseLabels(cmd.StringSlice("label")); err != nil {
		return o, err
	}
	if err := setSampler(ctx, cmd.String("gpu"), &o); err != nil {
		return o, err
	}
	return o, nil
}

func parseScenario(s string) (schemas.Scenario, error) {
	switch s {
	case "server":
		return schemas.ScenarioServer, nil
	case "offline":
		return schemas.ScenarioOffline, nil
	case "single-stream", "single_stream":
		return schemas.ScenarioSingleStream, nil
	case "concurrency", "fixed-concurrency", "fixed_concurrency":
		return schemas.ScenarioConcurrency, nil
	}
	return "", usage("--scenario %q: want server, offline, single-stream or concurrency", s)
}

// parseRates reads --rate: one rate or a comma-separated list, each a
// finite number > 0, a list without repeats.
func parseRates(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usage("--rate %q: want REQ/S or a list REQ/S,REQ/S,... of numbers > 0", s)
		}
		if slices.Contains(out, v) {
			return nil, usage("--rate %q: %g is listed twice; give repeats as separate captures", s, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseRamp reads FROM/DURATION.
func parseRamp(s string) (*capture.Ramp, error) {
	from, over, ok := strings.Cut(s, "/")
	f, err1 := strconv.ParseFloat(from, 64)
	d, err2 := time.ParseDuration(over)
	if !ok || err1 != nil || err2 != nil || !(f > 0) || math.IsInf(f, 0) || d <= 0 {
		return nil, usage("--ramp-up %q: want FROM/DURATION with FROM > 0 req/s, e.g. 1/30s", s)
	}
	return &capture.Ramp{From: f, Over: d}, nil
}

// loadCaptureDataset reads --dataset or generates --synthetic prompts (n of
// them, or 1000 for a capture bounded by time; they are reused in order).
func loadCaptureDataset(cmd *cli.Command, n int) (*capture.Dataset, error) {
	file, synth := cmd.String("dataset"), cmd.String("synthetic")
	switch {
	case (file == "") == (synth == ""):
		return nil, usage("give one of --dataset FILE and --synthetic IN/OUT")
	case file != "":
		ds, err := capture.LoadDataset(file)
		if err != nil {
			return nil, usage("--dataset: %v", err)
		}
		return ds, nil
	}
	in, out, ok := strings.Cut(synth, "/")
	il, err1 := capture.ParseLengths(in)
	ol, err2 := capture.ParseLengths(out)
	if !ok || err1 != nil || err2 != nil {
		return nil, usage("--synthetic %q: want IN/OUT lengths, each N, LO-HI or normal:MEAN,SD: %v", synth, errors.Join(err1, err2))
	}
	if n <= 0 {
		n = 1000
	}
	ds, err := capture.Synthetic{N: n, Input: il, Output: ol, Seed: cmd.Uint64("seed")}.Generate()
	if err != nil {
		return nil, usage("--synthetic: %v", err)
	}
	return ds, nil
}

// apiKey reads the key from a file, else from the environment.
func apiKey(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(apiKeyEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usage("--api-key-file: %v", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", usage("--api-key-file %s is empty", file)
	}
	return k, nil
}

// setSampler opens the GPU sampler --gpu asks for. With auto, a machine
// without NVML captures without samples (a warning and a run flag).
func setSampler(ctx context.Context, mode string, o *capture.Options) error {
	switch {
	case mode == "none":
		return nil
	case mode == "auto" || mode == "nvml":
		s, err := capture.OpenNVML()
		if err != nil {
			if mode == "nvml" {
				return usage("--gpu nvml: %v", err)
			}
			o.SamplerErr = err
			return nil
		}
		o.Sampler = s
		return nil
	case strings.HasPrefix(mode, "dcgm="):
		s, err := capture.NewDCGMSampler(ctx, strings.TrimPrefix(mode, "dcgm="), nil)
		if err != nil {
			return usage("--gpu: %v", err)
		}
		o.Sampler = s
		return nil
	}
	return usage("--gpu %q: want auto, none, nvml or dcgm=URL", mode)
}

// preflight sends the single request before the run: a dead or wrong
// endpoint stops the capture (exit 2) with the request's own error; a
// failure a working server may have once is a warning.
func preflight(ctx context.Context, errw io.Writer, o capture.Options) error {
	p, err := capture.RunPreflight(ctx, o)
	var pe *capture.PreflightError
	switch {
	case errors.As(err, &pe):
		return cli.Exit(pe.Error()+" (nothing was captured; --no-preflight skips this check)", exitInput)
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("capture interrupted during the preflight request: nothing was captured")
	case err != nil:
		return err
	case p.Problem != "":
		fmt.Fprintf(errw, "warning: the preflight request failed (%s); capturing anyway\n", p.Problem)
	}
	return nil
}

// reportCapture prints the run's summary, its warnings and, against the
// reference server, the calibration.
func reportCapture(ctx context.Context, w, errw io.Writer, dest string, o capture.Options, res *capture.Result) {
	a := res.Accounting
	cancelled := ""
	if a.Cancelled > 0 {
		cancelled = fmt.Sprintf(", %d cancelled", a.Cancelled)
	}
	fmt.Fprintf(w, "wrote %s: run %s, %d requests scheduled: %d ok, %d failed%s, %d not sent; %d warm-up\n",
		dest, res.Run.ID, a.Scheduled-a.WarmupScheduled, a.OK, a.Failed, cancelled, a.NotSent-(a.WarmupScheduled-a.WarmupSent), a.WarmupSent)
	if d := res.Run.DurationS; d.OK {
		fmt.Fprintf(w, "window %.3f s, %d resource samples\n", d.V, res.Samples)
	}
	for _, m := range res.Metrics {
		switch {
		case m.Stat == schemas.StatValue:
			fmt.Fprintf(w, "  %-24s %.4g %s\n", m.MetricID, m.Value.V, m.Unit)
		case m.Stat == schemas.StatMedian:
			fmt.Fprintf(w, "  %-24s median %.3f ms", m.MetricID, m.Value.V*1e3)
		case m.Stat == schemas.StatP && m.Percentile.V == 99:
			fmt.Fprintf(w, ", p99 %.3f ms (n=%d)\n", m.Value.V*1e3, m.N.V)
		}
	}
	for _, warn := range res.Warnings {
		fmt.Fprintln(errw, "warning:", warn)
	}
	if !res.FakeServer {
		return
	}
	cal, err := calibrate(ctx, dest, o.Endpoint, res.Run.ID)
	if err != nil {
		fmt.Fprintln(errw, "warning: calibration:", err)
		return
	}
	cal.WriteText(w)
}

// calibrate compares the bundle's measured requests with the reference
// server's traces.
func calibrate(ctx context.Context, dest, endpoint, runID string) (capture.Calibration, error) {
	traces, err := capture.FetchTraces(ctx, endpoint, runID, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return capture.Calibration{}, err
	}
	reqs, err := analysis.ProfilingRequests(ctx, dest)
	return capture.Calibrate(reqs, traces), err
}

// captureBar is the capture's progress bar on a terminal.
type captureBar struct {
	p   *progress
	bar *mpb.Bar
}

// Start implements capture.Progress; each run of a sweep starts a bar of
// its own, completing the last one.
func (c *captureBar) Start(total int64) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	if c.bar != nil && !c.bar.Completed() {
		c.bar.SetTotal(-1, true)
	}
	if total > 0 {
		c.bar = c.p.p.AddBar(total,
			mpb.PrependDecorators(decor.Name("requests "), decor.CountersNoUnit("%d / %d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageSpeed(0, "%.1f req/s")))
		return
	}
	c.bar = c.p.p.New(0, mpb.SpinnerStyle(),
		mpb.PrependDecorators(decor.Name("requests "), decor.CurrentNoUnit("%d")),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO), decor.Name(" "), decor.AverageSpeed(0, "%.1f req/s")))
}

// Done implements capture.Progress.
func (c *captureBar) Done(bool) { c.bar.Increment() }

// finish completes the bar (whatever happened) and waits for the display.
func (c *captureBar) finish() {
	if c == nil {
		return
	}
	if c.bar != nil && !c.bar.Completed() {
		c.bar.SetTotal(-1, true)
	}
	c.p.wait()
}
