package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/validate"
)

func compareCommand() *cli.Command {
	def := render.DefaultStats
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two bundles metric by metric, benchstat-style",
		ArgsUsage: "OLD NEW",
		Description: `First validates the two bundles as a comparison (as verdict validate
--compare does) and prints the verdict with its findings. When validation
says the runs are not comparable, no numbers are printed (--force prints
them anyway) and the exit status is 1; it is also 1 when the validation gate
fails. Then pairs the runs of OLD and NEW (the only run of each, or runs with the same
scenario, arrival process, request rate and concurrency limit) and, for
each metric observed in both and each percentile, prints the old and new
values with bootstrap intervals, the change with its interval, and the
p-value of a two-sided Mann-Whitney U test. "~" means the data do not show
a difference at the chosen significance, whatever the point estimates say.

Examples:
   verdict compare out/platform-a.bundle out/platform-b.bundle
   verdict compare --metric ttft,tpot --percentiles 50,99 old.bundle new.bundle
   verdict compare --format markdown old.bundle new.bundle >> "$GITHUB_STEP_SUMMARY"`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "metric", Usage: "definition `ID`s to compare (default: all observed in both)"},
			&cli.StringFlag{Name: "percentiles", Value: "50,99", Usage: "comma-separated percentiles, 0-100"},
			&cli.StringFlag{Name: "method", Value: string(def.Method), Usage: "percentile method: linear, nearest_rank_floor, nearest_rank_cumulative or locust_buckets"},
			&cli.FloatFlag{Name: "ci", Value: def.Confidence, Usage: "confidence of the bootstrap intervals"},
			&cli.IntFlag{Name: "resamples", Value: def.Resamples, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "bootstrap seed"},
			&cli.FloatFlag{Name: "alpha", Value: 0.05, Usage: "significance level of the test"},
			&cli.StringFlag{Name: "policy", Usage: "validation policy `FILE` (YAML), as for verdict validate", TakesFile: true},
			&cli.BoolFlag{Name: "force", Usage: "print the numbers even when the runs are not comparable (still exits 1)"},
			formatFlag("table"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 2 {
				return usage("compare: give two bundles, OLD and NEW")
			}
			so, f, err := statsOptions(cmd)
			if err != nil {
				return err
			}
			if so.Confidence <= 0 {
				return usage("compare: --ci must be above 0")
			}
			a := cmd.Float("alpha")
			if a <= 0 || a >= 1 {
				return usage("--alpha %v: want a level in (0, 1)", a)
			}
			co := render.CompareOptions{StatsOptions: so, Alpha: a, Force: cmd.Bool("force")}
			if path := cmd.String("policy"); path != "" {
				p, err := validate.LoadPolicy(path)
				if err != nil {
					return usage("--policy: %v", err)
				}
				co.Validate.Policy = &p
			}
			err = render.Compare(ctx, cmd.Root().Writer, cmd.Args().Get(0), cmd.Args().Get(1), co, f)
			if errors.Is(err, render.ErrNotComparable) {
				return fmt.Errorf("%w: %w", errGate, err)
			}
			return err
		},
	}
}
