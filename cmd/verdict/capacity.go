package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/stats"
)

func capacityCommand() *cli.Command {
	def := analysis.DefaultCapacity
	return &cli.Command{
		Name:      "capacity",
		Usage:     "the largest load each configuration carries within latency limits, with its interval",
		ArgsUsage: "BUNDLE...",
		Description: `Recognises sweeps (runs of one configuration at several load points:
a vLLM multi-run file or bench sweep directory, a GuideLLM report's
benchmarks, AIPerf or genai-bench concurrency folders, a capture with a
--rate list) and finds, per configuration, the largest request rate or
concurrency at which every --slo limit holds: interpolated between the
last passing and the first failing load point, with a bootstrap interval
over the whole sweep (each load point's requests resampled, and its
repeats, where a load point was run several times). "not reached" (every
load passes) and "never met" (the lowest load fails) are answers too. It
checks that latency rises with the load (a reversal beyond sampling error
is flagged) and flags a cliff when the binding statistic jumps across the
bracket.

A configuration is a bundle, or a validation group (--group-by label:KEY,
sut:FIELD, tool); a single bundle holding several configurations that one
label tells apart (a vLLM multi-run file of three deployments) is split by
that label. Each load point is validated; the ratio of two configurations'
capacities is given only when validation pairs their load points and finds
them comparable. Steady state matters: runs with a start-up transient
(V021) or a queue growing through the run (V022) are listed with their
load point.

--slo takes comma-separated limits:
   METRIC:STAT<=DURATION  a percentile or mean at every load point:
                          ttft:p99<=2s, tpot:p99<=50ms, e2e:mean<=10s
                          (METRIC: ttft, tpot, itl, e2e, queue)
   METRIC<=DURATION       per-request limits (ttft, tpot, itl, e2e) with
   goodput>=SHARE         the share of requests that must meet all of them

--interval says how requests are resampled (see verdict stats --help):
block (the default here: neighbouring requests share the server's batch and
queue), stationary, ess or iid. Every interval says which it used. With
--quote the cost per 1M output tokens at the capacity point is the quote's
hourly price over the throughput there. With --billing (FOCUS, AWS CUR, GCP
or Azure exports) the bill is joined to every run over its window by the
inventory's resource IDs, as verdict cost joins it, and the hourly price is
the bill's steady rate instead: the billed runs' prorated charges over
their hours (one-off rows left out, and named); a configuration the bill
costs no run of falls back to its --quote. --basis, --currency, --fx and
--timezone are verdict cost's. GPU energy counters in the bundles
give the joules per output token there (counter differences, never power
averages). Throughput per GPU uses the inventory's GPU count; the Pareto
frontier is output tokens/s per GPU against tokens/s per user (1/TPOT).

Quote the --slo value: the shell reads < and > as redirections.

Examples:
   verdict capacity --slo 'ttft:p99<=500ms,tpot:p99<=60ms' h100.bundle l40s.bundle
   verdict capacity --slo 'ttft<=1s,tpot<=60ms,goodput>=0.9' --interval stationary h100.bundle
   verdict capacity --slo 'ttft:p99<=2s' --group-by label:platform --format json all.bundle
   verdict capacity --slo 'ttft:p99<=500ms' --quote quote-a.yaml --quote quote-b.yaml --plots plots/ h100.bundle l40s.bundle
   verdict capacity --slo 'ttft:p99<=500ms' --billing focus-2026-11.csv --basis billed h100.bundle`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "slo", Usage: "the limits, e.g. `ttft:p99<=2s,tpot:p99<=50ms` (see the description)"},
			&cli.StringFlag{Name: "interval", Value: string(def.Interval), Usage: "how intervals resample requests: block, stationary, ess or iid"},
			&cli.StringFlag{Name: "method", Value: string(def.Method), Usage: methodUsage},
			&cli.FloatFlag{Name: "ci", Value: def.Confidence, Usage: "confidence of the intervals"},
			&cli.IntFlag{Name: "resamples", Value: def.Resamples, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "bootstrap seed"},
			&cli.StringFlag{Name: "group-by", Usage: "what one configuration is: bundle, tool, label:KEY or sut:FIELD (default: bundle, or the one label that splits a bundle)"},
			&cli.StringFlag{Name: "axis", Usage: "force the load axis: rate or concurrency (default: the one the runs vary)"},
			&cli.StringSliceFlag{Name: "quote", Usage: "quote `FILE` (YAML) pricing the capacity point: one for all, or one per BUNDLE in order", TakesFile: true},
			&cli.FloatFlag{Name: "interactivity", Usage: "read the throughput per GPU off the frontier at `N` tokens/s per user"},
			&cli.StringFlag{Name: "plots", Usage: "write the capacity figures as SVG and PNG into `DIR`", TakesFile: true},
			&cli.StringSliceFlag{Name: "billing", Usage: "billing export `FILE` (FOCUS, AWS CUR, GCP, Azure; repeatable) pricing the capacity point at the bill's steady rate", TakesFile: true},
			formatFlag("table"),
		}, costFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("capacity: give at least one BUNDLE")
			}
			o, f, err := capacityOptions(cmd)
			if err != nil {
				return err
			}
			res, err := analysis.Capacity(ctx, cmd.Args().Slice(), o)
			if err != nil {
				return err
			}
			if dir := cmd.String("plots"); dir != "" {
				figs, skipped, err := plot.Capacity(res, plot.Options{})
				if err != nil {
					return err
				}
				if err := writeFigures(dir, figs, cmd.Root().ErrWriter); err != nil {
					return err
				}
				for _, s := range skipped {
					fmt.Fprintln(cmd.Root().ErrWriter, "figure skipped: "+s)
				}
			}
			return render.WriteCapacity(cmd.Root().Writer, res, f)
		},
	}
}

// capacityOptions maps the capacity flags.
func capacityOptions(cmd *cli.Command) (analysis.CapacityOptions, render.Format, error) {
	o := analysis.DefaultCapacity
	f, err := render.ParseFormat(cmd.String("format"))
	if err != nil {
		return o, f, usage("%v", err)
	}
	if cmd.String("slo") == "" {
		return o, f, usage("capacity: give the limits with --slo, e.g. --slo ttft:p99<=2s,tpot:p99<=50ms")
	}
	if o.Limits, o.Goodput, err = analysis.ParseCapacitySLO(cmd.String("slo")); err != nil {
		return o, f, usage("--slo: %v", err)
	}
	if o.Interval, err = intervalOption(cmd); err != nil {
		return o, f, err
	}
	o.Method = stats.Method(cmd.String("method"))
	if !validMethod(o.Method) {
		return o, f, usage("--method %q: use linear, nearest_rank_floor, nearest_rank_cumulative, nearest_rank_cumulative_unmerged or locust_buckets", o.Method)
	}
	o.Confidence = cmd.Float("ci")
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return o, f, usage("--ci %v: want a confidence in (0, 1)", o.Confidence)
	}
	o.Resamples = cmd.Int("resamples")
	if o.Resamples < 100 {
		return o, f, usage("--resamples %d: use at least 100", o.Resamples)
	}
	o.Seed = cmd.Uint64("seed")
	o.GroupBy = cmd.String("group-by")
	switch o.Axis = cmd.String("axis"); o.Axis {
	case "", analysis.AxisRate, analysis.AxisConcurrency:
	default:
		return o, f, usage("--axis %q: use rate or concurrency", o.Axis)
	}
	o.Quotes = cmd.StringSlice("quote")
	if n := len(o.Quotes); n > 1 && n != cmd.NArg() {
		return o, f, usage("--quote: give one quote for every configuration, or one per BUNDLE (%d quotes, %d bundles)", n, cmd.NArg())
	}
	o.Billing = cmd.StringSlice("billing")
	if o.Cost, err = costSettings(cmd); err != nil {
		return o, f, err
	}
	o.Interactivity = cmd.Float("interactivity")
	if o.Interactivity < 0 {
		return o, f, usage("--interactivity %v: want tokens/s per user above 0", o.Interactivity)
	}
	return o, f, nil
}

func validMethod(m stats.Method) bool { return slices.Contains(methods, m) }

// writeFigures writes figures as SVG and PNG into dir.
func writeFigures(dir string, figs []plot.Figure, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range figs {
		for ext, data := range map[string][]byte{".svg": f.SVG, ".png": f.PNG} {
			if err := writeFileAtomic(filepath.Join(dir, f.Name+ext), data); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(stderr, "wrote %d figures (SVG and PNG) to %s\n", len(figs), dir)
	return nil
}

// reportCapacity maps verdict report's --slo and --interval to the
// capacity section's options (nil without --slo).
func reportCapacity(cmd *cli.Command) (*analysis.CapacityOptions, error) {
	if cmd.String("slo") == "" {
		return nil, nil
	}
	o := analysis.DefaultCapacity
	var err error
	if o.Limits, o.Goodput, err = analysis.ParseCapacitySLO(cmd.String("slo")); err != nil {
		return nil, usage("--slo: %v", err)
	}
	if cmd.String("interval") != "" { // else the capacity's default, block
		if o.Interval, err = intervalOption(cmd); err != nil {
			return nil, err
		}
	}
	if ci := cmd.Float("ci"); ci > 0 && ci < 1 {
		o.Confidence = ci
	}
	o.Seed = cmd.Uint64("seed")
	return &o, nil
}
