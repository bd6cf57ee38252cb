package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/schemas"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "add bundles' runs to a Hive-partitioned Parquet dataset",
		ArgsUsage: "BUNDLE...",
		Description: `Writes every run of each BUNDLE into the dataset DIR as
table=<table>/tool=<tool>/run_id=<run>/part-0.parquet, one partition per run
and table (runs, requests, metrics, samples, costs), with the stored Arrow
schema, so that DuckDB, Spark, Trino or pandas read the whole history with
one glob. Runs already in the dataset are skipped unless --replace is given.
Every verdict command that reads a bundle also reads a dataset.

Examples:
   verdict export --dataset history/ out/platform-a.bundle out/platform-b.bundle
   verdict show history/
   duckdb -c "SELECT tool, count(*) FROM read_parquet('history/table=requests/**/*.parquet', hive_partitioning=true) GROUP BY tool"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dataset", Usage: "dataset `DIR` (created when missing)", Required: true, TakesFile: true},
			&cli.BoolFlag{Name: "replace", Usage: "re-export runs the dataset already has"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("export: give at least one BUNDLE")
			}
			w := cmd.Root().Writer
			for _, dir := range cmd.Args().Slice() {
				b, err := schemas.OpenBundle(dir)
				if err != nil {
					return err
				}
				res, err := schemas.Export(ctx, b, cmd.String("dataset"), schemas.ExportOptions{Replace: cmd.Bool("replace")})
				if err != nil {
					return fmt.Errorf("%s: %w", dir, err)
				}
				fmt.Fprintf(w, "%s: %d runs exported (%d requests), %d already in the dataset\n",
					dir, len(res.Exported), res.Rows[schemas.TableRequests], len(res.Skipped))
			}
			return nil
		},
	}
}
