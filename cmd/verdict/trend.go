package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

func trendCommand() *cli.Command {
	return &cli.Command{
		Name:      "trend",
		Usage:     "find change points and regressions in a dataset's history of runs (a CI gate)",
		ArgsUsage: "DATASET",
		Description: `Reads the runs and metrics tables of DATASET (verdict export --dataset, or
the same tables written back by DuckDB, Spark or Trino), splits the runs
into series of one configuration as validation decides (same tool, model,
load point, dataset and system under test, except what --vary names; runs
the pair rules judge not comparable are listed and left out), orders each
series by --by, and looks for change points in each statistic (p50 and p99
of TTFT, TPOT and E2E, output token throughput and goodput, or --metric)
with E-Divisive means and a permutation test. Each change is reported with
the first run after it, its size after/before - 1 with an interval, its
p-value, and whether it is good or bad by the metric's direction; a
regression is a bad change beyond --min-change. Series of fewer than 6
runs are too short: no change is claimed. docs/trend.md has the method.

--gate --since REF makes it a CI gate: exit 1 when a regression's first run
is at or after REF (a run ID, a --by label value or a date), after Holm's
correction across the series and statistics tested; 0 otherwise; 2 on
usage or input errors (a bad dataset, --by or --metric).

Examples:
   verdict trend history.dataset
   verdict trend --by label:engine_version --metric ttft:p99,output_token_throughput history.dataset
   verdict trend --gate --since v0.11.0 --by label:engine_version --format markdown history.dataset >> "$GITHUB_STEP_SUMMARY"
   verdict trend --gate --since 2026-11-01 --format junit -o trend.xml history.dataset
   verdict trend --format json history.dataset | jq '.series[].metrics[].changes[] | select(.regression)'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "by", Value: "created", Usage: "order runs by `created` (start time) or label:KEY (natural order: v0.9 < v0.10)"},
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "statistics `METRIC[:STAT],...` (STAT pN, mean, median or value; default p50 and p99 of ttft, tpot, e2e, output_token_throughput, goodput)"},
			&cli.StringFlag{Name: "min-change", Value: "2%", Usage: "smallest bad change that is a regression (`PCT`, e.g. 2% or 0.02)"},
			&cli.StringSliceFlag{Name: "vary", Usage: "system-under-test fields that may change along a series (`FIELD,...`: inventory JSON names or label:KEY)"},
			&cli.StringSliceFlag{Name: "split", Usage: "fields that separate series besides the configuration (`FIELD,...`, e.g. label:platform)"},
			&cli.BoolFlag{Name: "gate", Usage: "exit 1 when a regression starts at or after --since"},
			&cli.StringFlag{Name: "since", Usage: "where the gate's window starts: a run ID, a --by label value or a date (`REF`)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "output `FORMAT`: table, json, csv, markdown or junit"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the output to `FILE` (atomically) instead of stdout", TakesFile: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 1 {
				return usage("trend: give one DATASET")
			}
			junit := cmd.String("format") == "junit"
			var f render.Format
			if !junit {
				var err error
				if f, err = render.ParseFormat(cmd.String("format")); err != nil {
					return usage("%v (or junit)", err)
				}
			}
			o, err := trendOptions(cmd, "")
			if err != nil {
				return err
			}
			o.Since = cmd.String("since")
			if cmd.Bool("gate") && o.Since == "" {
				return usage("--gate needs --since REF: the run ID, label value or date where the newest runs start")
			}
			dataset := cmd.Args().First()
			out := cmd.String("output")
			if err := checkOutputs([]string{dataset}, map[string]string{"output": out}, nil, true); err != nil {
				return err
			}
			rep, err := analysis.Trend(ctx, dataset, o)
			if errors.Is(err, analysis.ErrTrendInput) {
				return usage("trend: %s", inputText(err))
			}
			if err != nil {
				return fmt.Errorf("trend: %w", err)
			}
			var b bytes.Buffer
			if junit {
				err = render.WriteTrendJUnit(&b, rep)
			} else {
				err = render.WriteTrend(&b, f, rep)
			}
			if err != nil {
				return err
			}
			if out != "" {
				if err := writeFileAtomic(out, b.Bytes()); err != nil {
					return fmt.Errorf("--output: %w", err)
				}
			} else if _, err := cmd.Root().Writer.Write(b.Bytes()); err != nil {
				return err
			}
			if cmd.Bool("gate") && rep.Gate != nil && !rep.Gate.Pass {
				return fmt.Errorf("trend: %d regression(s) since %s: %w", len(rep.Gate.Failures), o.Since, errGate)
			}
			return nil
		},
	}
}

// trendOptions maps the trend flags (by, metric, min-change, vary and
// split, each named with prefix: "" for verdict trend, "trend-" for
// verdict report) to analysis.TrendOptions.
func trendOptions(cmd *cli.Command, prefix string) (analysis.TrendOptions, error) {
	o := analysis.TrendOptions{By: cmd.String(prefix + "by"), Vary: cmd.StringSlice(prefix + "vary"), Split: cmd.StringSlice(prefix + "split")}
	mc, err := parsePercent(cmd.String(prefix + "min-change"))
	if err != nil {
		return o, usage("--%smin-change: %v", prefix, err)
	}
	o.MinChange = mc
	for _, m := range cmd.StringSlice(prefix + "metric") {
		ss, err := analysis.ParseTrendMetric(m)
		if err != nil {
			return o, usage("%s", strings.Replace(inputText(err), "--metric", "--"+prefix+"metric", 1))
		}
		o.Metrics = append(o.Metrics, ss...)
	}
	return o, nil
}

// parsePercent reads "2%" or "0.02".
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*scale >= 1 {
		return 0, fmt.Errorf("%q is not a percentage below 100%% (e.g. 2%% or 0.02)", s)
	}
	return v * scale, nil
}

// inputText is an analysis.ErrTrendInput error's message without the
// sentinel's own words.
func inputText(err error) string {
	return strings.TrimPrefix(err.Error(), analysis.ErrTrendInput.Error()+": ")
}
