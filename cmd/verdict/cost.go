package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

func costCommand() *cli.Command {
	return &cli.Command{
		Name:      "cost",
		Usage:     "cost runs from billing exports and quotes, and store the cost tables in the bundles",
		ArgsUsage: "BUNDLE...",
		Description: `Joins billing exports (FOCUS 1.0-1.2, AWS CUR legacy and 2.0, Google Cloud
billing export, Azure cost details; the format is detected from the header)
to the runs by the resource IDs of their inventory (cloud.resource_ids in
the --sut file) over each run's timestamped window, and prices runs from
quotes (GPU_COST = GPU_RATE x GPU_HOURS, TOTAL_COST = GPU_COST +
OTHER_LISTED_COST, only the listed items). Time-billed rows are allocated by
overlap; hourly or daily rows make a short run's cost coarse, and the
output says so. Prints every charge share, quote line, total and unit cost
(per successful request, per 1M output tokens, per 1M total tokens) and
stores them in each bundle as costs.parquet, which reports read.

A run without timestamps (most tools record none) cannot be billed; a quote
then prices its duration_s. Costs in several currencies are never added up.

Examples:
   verdict cost --quote quote-a.yaml out/platform-a.bundle
   verdict cost --billing focus-2026-11.csv --billing cur-2026-11.csv capture.bundle
   verdict cost --quote a.yaml --quote b.yaml --format json a.bundle b.bundle`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "billing", Usage: "billing export `FILE` (repeatable)", TakesFile: true},
			&cli.StringSliceFlag{Name: "quote", Usage: "quote `FILE` (YAML): one for every run, or one per BUNDLE in order", TakesFile: true},
			&cli.BoolFlag{Name: "no-store", Usage: "print only; do not write costs.parquet into the bundles"},
			formatFlag("table"),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("cost: give at least one BUNDLE")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			o := analysis.CostOptions{Billing: cmd.StringSlice("billing"), Quotes: cmd.StringSlice("quote"), Store: !cmd.Bool("no-store")}
			if len(o.Billing) == 0 && len(o.Quotes) == 0 {
				return usage("cost: give --billing exports, --quote files, or both")
			}
			res, err := analysis.Cost(ctx, cmd.Args().Slice(), o)
			if err != nil {
				return err
			}
			return render.WriteCost(cmd.Root().Writer, res, f)
		},
	}
}
