package main

import (
	"bytes"
	"context"
	"errors"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/sqlgen"
	"github.com/verdict-llm/verdict/stats"
)

func sqlCommand() *cli.Command {
	return &cli.Command{
		Name:  "sql",
		Usage: "the metric definitions as SQL views for DuckDB, Spark and Trino, over a dataset",
		Description: `Writes an SQL script that computes verdict's numbers inside an engine, over
a dataset that verdict export wrote (its table=runs, table=requests and
table=metrics partitions): one view per request-level definition
(verdict_ttft, verdict_tpot, verdict_itl_chunk, ...: its population,
formula and unit, with the definition ID and registry version as columns),
one view per run-level statistic (count, mean, std, percentiles read with
the declared method exactly as verdict reads them), goodput under --slo,
and verdict_stats (run_id, metric_id, stat, percentile, value), which holds
what verdict stats --ci 0 prints with the same flags. Rows of runs whose
version flags change a definition are refused (verdict_refusals lists
them).

--dataset is the dataset as the engine sees it: a directory (relative to
where the engine runs) or, for Spark and Trino, a URI. Only the DuckDB
script is run in verdict's tests; the Spark and Trino scripts are checked
against the engines' documentation.

Examples:
   verdict sql --dataset history/ -o verdict.sql
   duckdb history.duckdb < verdict.sql
   duckdb history.duckdb -c "SELECT * FROM verdict_stats WHERE metric_id = 'ttft' AND stat = 'p'"

   verdict sql --dialect spark --dataset s3a://bench/history --slo ttft=200ms,tpot=50ms -o verdict-spark.sql
   spark-sql -i verdict-spark.sql -e "SELECT * FROM verdict_goodput"

   verdict sql --dialect trino --dataset s3://bench/history --trino-schema hive.verdict -o verdict-trino.sql
   trino --file verdict-trino.sql && trino --execute "SELECT * FROM hive.verdict.verdict_stats"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Value: string(sqlgen.DuckDB), Usage: "duckdb, spark or trino"},
			&cli.StringFlag{Name: "dataset", Value: ".", Usage: "the dataset `DIR` (or URI) as the engine sees it", TakesFile: true},
			&cli.StringSliceFlag{Name: "metric", Usage: "definition `ID`s verdict_stats holds (default: those verdict stats shows)"},
			&cli.StringFlag{Name: "percentiles", Value: "50,90,99", Usage: "comma-separated percentiles, 0-100"},
			&cli.StringFlag{Name: "method", Value: string(stats.Linear), Usage: "percentile method: linear, nearest_rank_floor, nearest_rank_cumulative or nearest_rank_cumulative_unmerged"},
			&cli.StringFlag{Name: "slo", Usage: "goodput limits, e.g. `ttft=200ms,tpot=50ms,itl=100ms,e2e=10s`"},
			&cli.StringFlag{Name: "trino-schema", Value: "hive.verdict", Usage: "the Hive `catalog.schema` the Trino script creates its tables and views in"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the script to `FILE` (default: standard output)", TakesFile: true},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usage("sql: takes no arguments (the dataset is --dataset)")
			}
			d, err := sqlgen.ParseDialect(cmd.String("dialect"))
			if err != nil {
				return usage("--dialect: %v", err)
			}
			sel, err := selectionFlags(cmd)
			if err != nil {
				return err
			}
			o := sqlgen.Options{Dialect: d, Dataset: cmd.String("dataset"), Metrics: sel.metrics, Percentiles: sel.percentiles,
				Method: sel.method, SLO: sel.slo, HasSLO: sel.hasSLO, TrinoSchema: cmd.String("trino-schema"), Version: verdictVersion()}
			var b bytes.Buffer
			if err := sqlgen.Write(&b, o); err != nil {
				if errors.Is(err, sqlgen.ErrOption) || errors.Is(err, sqlgen.ErrNoSQL) {
					return usage("sql: %v", err)
				}
				return err
			}
			if path := cmd.String("output"); path != "" {
				return writeFileAtomic(path, b.Bytes())
			}
			_, err = cmd.Root().Writer.Write(b.Bytes())
			return err
		},
	}
}
