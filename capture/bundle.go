package capture

import (
	"context"

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
	fail := func(err error) (*Result, error) {
		if opts.Sampler != nil {
			opts.Sampler.Close() // Run did not take it over
		}
		return nil, err
	}
	if _, err := opts.validate(); err != nil {
		return fail(err)
	}
	w, err := schemas.CreateBundle(dest, bopts)
	if err != nil {
		return fail(err)
	}
	res, err := Run(ctx, opts, bundleSink{w})
	if err != nil {
		w.Abort()
		return nil, err
	}
	w.AddRun(res.Run)
	for _, m := range res.Metrics {
		w.AddMetric(m)
	}
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
	if err := w.Commit(schemas.Manifest{Sources: []schemas.Source{src}}); err != nil {
		return nil, err
	}
	return res, nil
}
