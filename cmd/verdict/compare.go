package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/validate"
)

func compareCommand() *cli.Command {
	def := analysis.DefaultStats
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare two bundles metric by metric, benchstat-style",
		ArgsUsage: "OLD NEW",
		Description: `First validates the two bundles as a comparison (as verdict validate
--compare does) and prints the verdict with its findings. When validation
says the runs are not comparable, no numbers are printed (--force prints
them anyway) and the exit status is 1; it is also 1 when the validation gate
fails. Then pairs the runs of OLD and NEW exactly as validation pairs them
(runs with the same load point first: scenario, arrival process, request
rate, burstiness, concurrency limit, ramp-up, streaming; then in order)
and, for each metric observed in both and each percentile, prints the old
and new values with the intervals verdict stats gives them, the change
with its bootstrap interval, and the test that judged the row: for the
median the two-sided Mann-Whitney U test (with its p-value), as benchstat
does; for every other percentile whether the interval of new/old excludes
1. "~" means the row's test does not show a difference, whatever the
point estimates say.

--interval says how each run's requests are resampled, as for verdict
stats (see verdict stats --help). The default, iid, treats them as
independent (BCa intervals); the requests of a loaded server are
correlated, so its intervals are too narrow and it finds differences too
often. block, stationary and ess keep neighbouring requests together:
old and new carry the intervals verdict stats --interval gives them, the
change's interval pairs the two runs' replicates (drawn independently),
and every row, the median too, is judged by that interval, since the
Mann-Whitney test assumes independent requests.

Examples:
   verdict compare out/platform-a.bundle out/platform-b.bundle
   verdict compare --metric ttft,tpot --percentiles 50,99 old.bundle new.bundle
   verdict compare --interval block --metric ttft old.bundle new.bundle
   verdict compare --format markdown old.bundle new.bundle >> "$GITHUB_STEP_SUMMARY"`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "metric", Usage: "definition `ID`s to compare (default: all observed in both)"},
			&cli.StringFlag{Name: "percentiles", Value: "50,99", Usage: "comma-separated percentiles, 0-100"},
			&cli.StringFlag{Name: "method", Value: string(def.Method), Usage: methodUsage},
			&cli.FloatFlag{Name: "ci", Value: def.Confidence, Usage: "confidence of the bootstrap intervals"},
			&cli.IntFlag{Name: "resamples", Value: def.Resamples, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "bootstrap seed"},
			intervalFlag(),
			&cli.FloatFlag{Name: "alpha", Value: 0.05, Usage: "significance level of the Mann-Whitney test (the median's)"},
			&cli.StringFlag{Name: "policy", Usage: "validation policy `FILE` (YAML), as for verdict validate", TakesFile: true},
			&cli.BoolFlag{Name: "mean", Usage: "also compare each metric's mean (judged by the interval of new/old)"},
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
			co := analysis.CompareOptions{StatsOptions: so, Alpha: a, Force: cmd.Bool("force"), Mean: cmd.Bool("mean")}
			if path := cmd.String("policy"); path != "" {
				p, err := validate.LoadPolicy(path)
				if err != nil {
					return usage("--policy: %v", err)
				}
				co.Validate.Policy = &p
			}
			c, err := analysis.Compare(ctx, cmd.Args().Get(0), cmd.Args().Get(1), co)
			if err != nil {
				return err
			}
			if err := render.WriteComparison(cmd.Root().Writer, c, f); err != nil {
				return err
			}
			if err := c.Err(); err != nil {
				return fmt.Errorf("%w: %w", errGate, err)
			}
			return nil
		},
	}
}
