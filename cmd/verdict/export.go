package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render/benchfmt"
	"github.com/verdict-llm/verdict/render/br"
	"github.com/verdict-llm/verdict/schemas"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write bundles' runs to a Parquet dataset, as llm-d Benchmark Reports, or in the Go benchmark format",
		ArgsUsage: "BUNDLE...",
		Description: `--format dataset (the default) writes every run of each BUNDLE into the
dataset DIR as table=<table>/tool=<tool>/run_id=<run>/part-0.parquet, one
partition per run and table (runs, requests, metrics, samples, costs), with
the stored Arrow schema, so that DuckDB, Spark, Trino or pandas read the
whole history with one glob. Runs already in the dataset are skipped unless
--replace is given. Every verdict command that reads a bundle also reads a
dataset. --compact DEST then writes a compacted copy of the dataset for
engines that pay per file: each table's rows in a few files, sorted by
run_id, small runs sharing row groups, with a bloom filter on run_id
(verdict sql --dataset DEST writes the views over it; verdict itself reads
the dataset); --replace rewrites an existing copy.

--format br writes each run as an llm-d Benchmark Report v0.2.1 (JSON),
<run_id>.br.json in the directory --out, valid against BR's JSON Schema. A
"verdict" stack component records the definition behind every field, the
run's version flags and its validation verdict (under the default policy),
so that verdict reads the report back with the same definitions.

--format benchfmt writes the Go benchmark format to --out (or stdout): the
workload as configuration lines and one line per run and metric, so that
benchstat can re-check a comparison: benchstat a.txt b.txt.

Run IDs and tool names are escaped in partition names as Hive escapes them
(x/y becomes x%2Fy; DuckDB and Spark decode it), so no name leaves DIR.
Exports into one dataset take turns (a lock on DIR/.verdict.lock) and every
run of each is kept. An export is written beside the data, in
DIR/.staging-*, and moved into place only when complete, the runs table
last; one interrupted after that point is completed by the next export or
by --repair, and until then verdict refuses to read the dataset.
--check lists what an interrupted export (or an older verdict) left behind
and exits 1 when anything is wrong; --repair fixes it.

Examples:
   verdict export --dataset history/ out/platform-a.bundle out/platform-b.bundle
   verdict show history/
   verdict export --check --dataset history/
   duckdb -c "SELECT tool, count(*) FROM read_parquet('history/table=requests/**/*.parquet', hive_partitioning=true) GROUP BY tool"
   verdict export --dataset history/ --compact history-compact/
   verdict export --format br -o reports/ out/platform-a.bundle
   verdict export --format benchfmt -o a.txt out/platform-a.bundle
   verdict export --format benchfmt -o b.txt out/platform-b.bundle`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "dataset", Usage: "`FORMAT`: dataset, br or benchfmt"},
			&cli.StringFlag{Name: "dataset", Usage: "dataset `DIR` (created when missing) for --format dataset", TakesFile: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `PATH`: a directory for br, a file for benchfmt (stdout when empty)", TakesFile: true},
			&cli.BoolFlag{Name: "replace", Usage: "re-export runs the dataset already has (and rewrite the --compact copy)"},
			&cli.StringFlag{Name: "compact", Usage: "then write a compacted copy of the dataset to `DEST` (--format dataset)", TakesFile: true},
			&cli.BoolFlag{Name: "check", Usage: "list leftovers of interrupted exports and runs missing data (exit 1 if any); no BUNDLE"},
			&cli.BoolFlag{Name: "repair", Usage: "complete or remove what --check finds; no BUNDLE"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Bool("check") || cmd.Bool("repair") {
				if cmd.NArg() > 0 {
					return usage("export: --check and --repair take no BUNDLE")
				}
				return checkDataset(ctx, cmd)
			}
			if cmd.NArg() == 0 && cmd.String("compact") == "" {
				return usage("export: give at least one BUNDLE (or --compact DEST)")
			}
			switch cmd.String("format") {
			case "dataset":
				return exportDataset(ctx, cmd)
			case "br":
				if cmd.String("out") == "" {
					return usage("export --format br: give the output directory with --out")
				}
				return exportBR(ctx, cmd)
			case "benchfmt":
				return exportBenchfmt(ctx, cmd)
			}
			return usage("export: unknown --format %q (known: dataset, br, benchfmt)", cmd.String("format"))
		},
	}
}

func exportDataset(ctx context.Context, cmd *cli.Command) error {
	if cmd.String("dataset") == "" {
		return usage("export --format dataset: give the dataset directory with --dataset")
	}
	w := cmd.Root().Writer
	exports, idx, err := analysis.ExportDataset(ctx, cmd.Args().Slice(), cmd.String("dataset"), cmd.Bool("replace"), cmd.String("compact"))
	for _, e := range exports {
		fmt.Fprintf(w, "%s: %d runs exported (%d requests), %d already in the dataset\n",
			e.Bundle, len(e.Exported), e.Rows[schemas.TableRequests], len(e.Skipped))
	}
	if err != nil {
		return err
	}
	if idx != nil {
		t := idx.Tables[schemas.TableRequests]
		fmt.Fprintf(w, "%s: %d runs compacted (%d requests in %d files, %d row groups)\n", cmd.String("compact"), len(idx.Runs), t.Rows, len(t.Files), t.RowGroups)
	}
	return nil
}

func exportBR(ctx context.Context, cmd *cli.Command) error {
	runs, err := analysis.ExportRuns(ctx, cmd.Args().Slice())
	if err != nil {
		return err
	}
	dir := cmd.String("out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range runs {
		var buf bytes.Buffer
		notes, err := br.Write(&buf, br.Run{Run: r.Run, Metrics: r.Metrics, Validation: r.Validation, VerdictVersion: verdictVersion()})
		if err != nil {
			return err
		}
		if !safeName(r.Run.ID) {
			return fmt.Errorf("run ID %q cannot name a file", r.Run.ID)
		}
		path := filepath.Join(dir, r.Run.ID+".br.json")
		if err := writeFileAtomic(path, buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(cmd.Root().Writer, "%s: run %s written as BR %s\n", path, r.Run.ID, br.Version)
		for _, n := range notes {
			fmt.Fprintf(cmd.Root().ErrWriter, "verdict: %s: %s\n", r.Run.ID, n)
		}
	}
	return nil
}

func exportBenchfmt(ctx context.Context, cmd *cli.Command) error {
	runs, err := analysis.ExportRuns(ctx, cmd.Args().Slice())
	if err != nil {
		return err
	}
	var out []benchfmt.Run
	for _, r := range runs {
		v := ""
		if r.Validation != nil {
			v = r.Validation.Verdict
		}
		out = append(out, benchfmt.Run{Run: r.Run, Metrics: r.Metrics, Verdict: v})
	}
	var buf bytes.Buffer
	if err := benchfmt.Write(&buf, out); err != nil {
		return err
	}
	if path := cmd.String("out"); path != "" {
		return writeFileAtomic(path, buf.Bytes())
	}
	_, err = cmd.Root().Writer.Write(buf.Bytes())
	return err
}

// safeName reports whether a run ID can be a file name as it is: the IDs
// verdict makes are tool-hash, and anything else (a bundle from elsewhere)
// never becomes a path.
func safeName(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func checkDataset(ctx context.Context, cmd *cli.Command) error {
	w, ds, repair := cmd.Root().Writer, cmd.String("dataset"), cmd.Bool("repair")
	if ds == "" {
		return usage("export --check/--repair: give the dataset directory with --dataset")
	}
	probs, err := analysis.CheckDataset(ctx, ds, repair)
	for _, p := range probs {
		fmt.Fprintln(w, p)
	}
	switch {
	case err != nil:
		return err
	case len(probs) == 0:
		fmt.Fprintf(w, "%s: no problems found\n", ds)
	case repair:
		fmt.Fprintf(w, "%s: %d problems repaired\n", ds, len(probs))
	default:
		return fmt.Errorf("%s: %d problems found (verdict export --repair --dataset %s fixes them): %w", ds, len(probs), ds, errGate)
	}
	return nil
}
