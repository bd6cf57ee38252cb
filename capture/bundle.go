package capture

import (
	"context"
	"maps"
	"strconv"

	"github.com/verdict-llm/verdict/schemas"
)

// bundleSink writes rows into a bundle.
type bundleSink struct{ w *schemas.BundleWriter }

func (b bundleSink) Request(r *schemas.Request) error { return b.w.AddRequest(r) }
func (b bundleSink) Sample(s *schemas.Sample) error   { return b.w.AddSample(s) }

// WriteBundle runs a capture and writes it as a bundle at dest: the run,
// its requests (warm-up included, with phase "warmup"), the computed
// metrics, the resource samples on the same run ID, and a manifest whose
// source describes the capture (tool "verdict-capture") and accounts for
// every scheduled request: Read = scheduled, Ingested = sent (rows),
// Rejected = never sent, by reason.
//
// Like Run, WriteBundle closes opts.Sampler.
//
// An interrupted capture (ctx cancelled) is still written, with the run
// flag "incomplete". The bundle appears only once complete (see
// schemas.BundleWriter); on an error nothing is left behind.
func WriteBundle(ctx context.Context, dest string, opts Options, bopts schemas.BundleOptions) (*Result, error) {
	rs, err := WriteSweep(ctx, dest, opts, bopts)
	if err != nil {
		return nil, err
	}
	return rs[len(rs)-1], nil
}

// WriteSweep is WriteBundle for a sweep: with opts.Rates it runs one
// capture per rate, in order, each with the warm-up and the bound of opts,
// and writes every run into the bundle at dest (one source per run in the
// manifest); without, it is the single capture of WriteBundle. Each run of
// a sweep has the labels rate=RATE and sweep=ID (the first run's ID) on
// top of opts.Labels. The sampler is kept open across the runs and closed
// after the last. An interrupted run ends the sweep: the bundle holds the
// runs made so far, the last flagged incomplete, and the results returned
// are those runs.
func WriteSweep(ctx context.Context, dest string, opts Options, bopts schemas.BundleOptions) ([]*Result, error) {
	sampler := opts.Sampler
	fail := func(err error) ([]*Result, error) {
		if sampler != nil {
			sampler.Close() // Run did not take it over
		}
		return nil, err
	}
	if _, err := opts.validate(); err != nil {
		return fail(err)
	}
	rates := opts.Rates
	if len(rates) == 0 {
		rates = []float64{opts.Rate}
	}
	w, err := schemas.CreateBundle(dest, bopts)
	if err != nil {
		return fail(err)
	}
	var results []*Result
	var sources []schemas.Source
	sweepID := ""
	for k, rate := range rates {
		o := opts
		o.Rate, o.Rates = rate, nil
		if len(opts.Rates) > 0 {
			o.Labels = maps.Clone(opts.Labels)
			if o.Labels == nil {
				o.Labels = map[string]string{}
			}
			o.Labels["rate"] = strconv.FormatFloat(rate, 'g', -1, 64)
			if sweepID != "" {
				o.Labels["sweep"] = sweepID
			}
			if sampler != nil && k < len(rates)-1 {
				o.Sampler = keepOpen{sampler}
			}
		}
		res, err := Run(ctx, o, bundleSink{w})
		if err != nil {
			w.Abort()
			if sampler != nil && k < len(rates)-1 {
				sampler.Close()
			}
			return nil, err
		}
		if len(opts.Rates) > 0 && sweepID == "" {
			// The first run names the sweep; its own label is set now.
			sweepID = res.Run.ID
			res.Run.Labels["sweep"] = sweepID
		}
		w.AddRun(res.Run)
		for _, m := range res.Metrics {
			w.AddMetric(m)
		}
		sources = append(sources, runSource(opts, res))
		results = append(results, res)
		if res.Incomplete || ctx.Err() != nil {
			if sampler != nil && k < len(rates)-1 {
				sampler.Close()
			}
			break
		}
	}
	if err := w.Commit(schemas.Manifest{Sources: sources}); err != nil {
		return nil, err
	}
	return results, nil
}

// runSource is the manifest's source of one capture run.
func runSource(opts Options, res *Result) schemas.Source {
	a := res.Accounting
	src := schemas.Source{
		Path: opts.Dataset.Name, SHA256: opts.Dataset.SHA256, Format: Tool, Tool: Tool, ToolVersion: opts.Version,
		Runs: []string{res.Run.ID},
		Counts: map[string]schemas.Counts{
			schemas.TableRuns:     {Read: 1, Ingested: 1},
			schemas.TableRequests: {Read: a.Scheduled, Ingested: a.Sent, Rejected: a.NotSent, Reasons: a.NotSentReasons},
			schemas.TableMetrics:  {Computed: int64(len(res.Metrics))},
		},
		Warnings: res.Warnings,
	}
	if res.Samples > 0 {
		src.Counts[schemas.TableSamples] = schemas.Counts{Read: res.Samples, Ingested: res.Samples}
	}
	if len(src.Counts[schemas.TableRequests].Reasons) == 0 {
		c := src.Counts[schemas.TableRequests]
		c.Reasons = nil
		src.Counts[schemas.TableRequests] = c
	}
	return src
}

// keepOpen is a sampler whose Close does nothing: the runs of a sweep
// share one sampler, closed after the last.
type keepOpen struct{ Sampler }

func (keepOpen) Close() error { return nil }

// Unsupported forwards the sampler's unsupported readings (Run warns of
// them).
func (k keepOpen) Unsupported() []string {
	if u, ok := k.Sampler.(interface{ Unsupported() []string }); ok {
		return u.Unsupported()
	}
	return nil
}
