package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
)

func formatFlag(def string) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: def, Usage: "output `FORMAT`: table, json, csv or markdown"}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a bundle's runs, inventory and metrics with their definitions",
		ArgsUsage: "BUNDLE",
		Description: `Prints every run of BUNDLE with its load settings, provenance and
system-under-test inventory (unknown where nobody said), each metric with
the statistic, method and whether the tool reported it or verdict
computed it, the definition of every metric shown, and how every input row
was accounted for.

Examples:
   verdict show runs.bundle
   verdict show --format markdown runs.bundle >> "$GITHUB_STEP_SUMMARY"
   verdict show --format json runs.bundle | jq '.runs[].scenario'`,
		Flags: []cli.Flag{formatFlag("table")},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 1 {
				return usage("show: give one BUNDLE")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			d, err := analysis.LoadShow(ctx, cmd.Args().First())
			if err != nil {
				return err
			}
			return render.WriteShow(cmd.Root().Writer, d, f)
		},
	}
}

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the metric definitions",
		Description: `Prints every metric definition verdict knows: what is timed from which event
to which, the unit, level, population, and for rates the numerator,
denominator and window, with the tools that report it under which names and
the names other standards give it (OpenTelemetry GenAI semantic conventions,
the llm-d Benchmark Report, MLPerf), with how closely they match.
Metrics with different definitions have different IDs and are never
compared with each other.

Examples:
   verdict schema
   verdict schema --format markdown > METRICS.md
   verdict schema --format json | jq '.definitions[] | select(.id == "itl_chunk")'
   verdict schema --format json | jq '.definitions[] | {id, standards}'`,
		Flags: []cli.Flag{formatFlag("table")},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 0 {
				return usage("schema takes no arguments")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			return render.Schema(cmd.Root().Writer, f)
		},
	}
}
