package main

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

var methods = []stats.Method{stats.Linear, stats.NearestRankFloor, stats.NearestRankCumulative, stats.NearestRankCumulativeUnmerged, stats.LocustBuckets}

const methodUsage = "percentile method: linear, nearest_rank_floor, nearest_rank_cumulative, nearest_rank_cumulative_unmerged or locust_buckets"

func statsCommand() *cli.Command {
	def := analysis.DefaultStats
	return &cli.Command{
		Name:      "stats",
		Usage:     "percentiles with bootstrap intervals and goodput, from per-request data",
		ArgsUsage: "BUNDLE...",
		Description: `Computes, for every run, each metric's mean and percentiles over the
successful requests of the profiling phase, with BCa bootstrap confidence
intervals, and goodput under an SLO. The percentile method is declared
(linear is numpy's default, as vLLM, GenAI-Perf, AIPerf and LLMPerf use;
nearest_rank_floor is MLPerf's; nearest_rank_cumulative GuideLLM's from
v0.4, nearest_rank_cumulative_unmerged GuideLLM v0.2-v0.3's;
locust_buckets Locust's, applied to durations in milliseconds). Means of
more than 10,000 values get Student's t intervals. Runs without
per-request data show only the statistics their tool reported: no
interval can be computed for them. With --ci 0 the series are held with
bounded memory; a series too large for nearest_rank_cumulative (which
merges ties over the whole sample) is left out with a note.

Intervals are seeded: the same bundle, options and seed give the same
numbers.

--interval says how requests are resampled. The requests of one run are a
time series: neighbours share the server's batch and queue, so their
latencies are correlated and the default i.i.d. bootstrap (iid) gives
intervals that are too narrow for a loaded server. block is the circular
block bootstrap and stationary the stationary bootstrap, both over the
requests in dispatch order with the block length chosen from each series
by Politis and White's rule (2004, with the 2009 correction); ess
resamples the effective sample size, n over the variance inflation the
autocorrelation gives. They read percentile intervals; every interval
says which scheme made it (the notes, and "resampling" in JSON).

Examples:
   verdict stats runs.bundle
   verdict stats --metric ttft,tpot --percentiles 50,99,99.9 runs.bundle
   verdict stats --slo ttft=200ms,tpot=50ms --format markdown a.bundle b.bundle
   verdict stats --ci 0 --method nearest_rank_floor --format json runs.bundle
   verdict stats --interval block --metric ttft --percentiles 50,99 runs.bundle`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "metric", Usage: "definition `ID`s to show (default: all with data; see verdict schema)"},
			&cli.StringFlag{Name: "percentiles", Value: "50,90,99", Usage: "comma-separated percentiles, 0-100"},
			&cli.StringFlag{Name: "method", Value: string(def.Method), Usage: methodUsage},
			&cli.FloatFlag{Name: "ci", Value: def.Confidence, Usage: "confidence of the bootstrap intervals (0 turns them off)"},
			&cli.IntFlag{Name: "resamples", Value: def.Resamples, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "bootstrap seed"},
			&cli.StringFlag{Name: "slo", Usage: "goodput limits, e.g. `ttft=200ms,tpot=50ms,itl=100ms,e2e=10s`"},
			intervalFlag(),
			formatFlag("table"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("stats: give at least one BUNDLE")
			}
			o, f, err := statsOptions(cmd)
			if err != nil {
				return err
			}
			res, err := analysis.ComputeStats(ctx, cmd.Args().Slice(), o)
			if err != nil {
				return err
			}
			return render.WriteStats(cmd.Root().Writer, res, f)
		},
	}
}

// statsOptions maps the statistics flags (shared by stats and compare).
func statsOptions(cmd *cli.Command) (analysis.StatsOptions, render.Format, error) {
	o := analysis.DefaultStats
	f, err := render.ParseFormat(cmd.String("format"))
	if err != nil {
		return o, f, usage("%v", err)
	}
	sel, err := selectionFlags(cmd)
	if err != nil {
		return o, f, err
	}
	o.Metrics, o.Method, o.SLO, o.HasSLO = sel.metrics, sel.method, sel.slo, sel.hasSLO
	if sel.percentiles != nil {
		o.Percentiles = sel.percentiles
	}
	o.Confidence = cmd.Float("ci")
	if o.Confidence < 0 || o.Confidence >= 1 {
		return o, f, usage("--ci %v: want a confidence in [0, 1)", o.Confidence)
	}
	o.Resamples = cmd.Int("resamples")
	if o.Resamples < 100 && o.Confidence > 0 {
		return o, f, usage("--resamples %d: use at least 100", o.Resamples)
	}
	o.Seed = cmd.Uint64("seed")
	if o.Interval, err = intervalOption(cmd); err != nil {
		return o, f, err
	}
	return o, f, nil
}

// A selection is what the --metric, --percentiles, --method and --slo
// flags ask for (shared by stats, compare and sql).
type selection struct {
	metrics     []schemas.MetricID // nil: the command's default
	percentiles []float64          // nil: the default
	method      stats.Method
	slo         stats.SLO
	hasSLO      bool
}

func selectionFlags(cmd *cli.Command) (selection, error) {
	var sel selection
	for _, name := range cmd.StringSlice("metric") {
		id := schemas.MetricID(name)
		if _, ok := schemas.Lookup(id); !ok {
			return sel, usage("--metric %q: no such definition (verdict schema lists them)", id)
		}
		sel.metrics = append(sel.metrics, id)
	}
	if s := cmd.String("percentiles"); s != "" {
		for _, p := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || v < 0 || v > 100 {
				return sel, usage("--percentiles: %q is not a number between 0 and 100", p)
			}
			sel.percentiles = append(sel.percentiles, v)
		}
	}
	sel.method = stats.Method(cmd.String("method"))
	if !slices.Contains(methods, sel.method) {
		return sel, usage("--method %q: use linear, nearest_rank_floor, nearest_rank_cumulative, nearest_rank_cumulative_unmerged or locust_buckets", sel.method)
	}
	if s := cmd.String("slo"); s != "" {
		slo, err := analysis.ParseSLO(s)
		if err != nil {
			return sel, usage("--slo: %v", err)
		}
		sel.slo, sel.hasSLO = slo, true
	}
	return sel, nil
}

// intervalFlag is --interval, the resampling scheme of the intervals.
func intervalFlag() cli.Flag {
	return &cli.StringFlag{Name: "interval", Value: string(stats.SchemeIID),
		Usage: "how intervals resample requests: `iid` (independent), block (circular blocks), stationary (stationary bootstrap) or ess (effective sample size); see the description"}
}

// intervalOption reads --interval ("" where the command has no such flag).
func intervalOption(cmd *cli.Command) (stats.Scheme, error) {
	s := cmd.String("interval")
	if s == "" {
		return stats.SchemeIID, nil
	}
	sc, err := stats.ParseScheme(s)
	if err != nil {
		return "", usage("--interval: %v", err)
	}
	return sc, nil
}
