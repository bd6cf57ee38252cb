package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/all"
	"github.com/verdict-llm/verdict/schemas"
)

func ingestCommand() *cli.Command {
	formats := all.Formats()
	var list strings.Builder
	for _, f := range formats {
		fmt.Fprintf(&list, "   %-10s %s\n", f.Name(), f.Description())
	}
	return &cli.Command{
		Name:      "ingest",
		Usage:     "read tool outputs into a bundle",
		ArgsUsage: "FILE...",
		Description: `Reads each FILE (the format is detected from the content; --format forces
one), maps every metric to its definition and writes a bundle directory
with runs.parquet, requests.parquet, metrics.parquet and manifest.json.
The bundle appears only when every file reads (it is written to a
temporary directory and renamed into place). Files compressed with gzip or
zstd are read as they are, whatever their name.

One tool run is one verdict run, whatever files it was given as: the files
one run of AIPerf (records, summary, GPU telemetry), LLMPerf (summary and
individual responses), Locust (the four CSVs of one --csv PREFIX) or MLPerf
LoadGen (summary and detail log) wrote are grouped by directory and name,
checked against each other, and read as one source that lists every file.
Files named as one run whose contents disagree are refused, naming them.

Rows that cannot be used (a negative latency, a wrong type) are rejected
with file, line and field, counted in the manifest and listed on stderr;
the command still succeeds unless --strict is given.

Formats:
` + list.String() + `
Examples:
   verdict ingest -o runs.bundle vllm-10qps.json vllm-inf.json
   verdict ingest --sut h100.yaml --label platform=h100 -o h100.bundle results/*.json
   verdict ingest --format vllm -o out.bundle results.txt`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "bundle directory to write", Required: true, TakesFile: true},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "auto", Usage: "input format: auto or one of " + strings.Join(ingest.Names(formats), ", ")},
			&cli.StringFlag{Name: "sut", Usage: "system-under-test inventory `FILE` (YAML) applied to every run", TakesFile: true},
			&cli.StringSliceFlag{Name: "label", Usage: "add a `key=value` label to every run (repeatable)"},
			&cli.BoolFlag{Name: "strict", Usage: "fail when any row is rejected"},
			&cli.BoolFlag{Name: "force", Usage: "replace an existing bundle"},
			&cli.BoolFlag{Name: "keep-paths", Usage: "store input paths as given (by default: relative to the working directory, or the file name alone)"},
			&cli.Int64Flag{Name: "max-decompressed", Value: ingest.DefaultMaxDecompressed, Usage: "limit in `BYTES` on the decompressed size of one .gz or .zst input"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("ingest: give at least one FILE")
			}
			if n := cmd.Int64("max-decompressed"); n <= 0 {
				return usage("--max-decompressed: give a positive number of bytes (got %d; the default is %d)", n, ingest.DefaultMaxDecompressed)
			}
			opts := ingest.Options{Formats: formats, Format: cmd.String("format"), Strict: cmd.Bool("strict"), KeepPaths: cmd.Bool("keep-paths"),
				MaxDecompressed: cmd.Int64("max-decompressed"),
				Bundle:          schemas.BundleOptions{VerdictVersion: verdictVersion(), Overwrite: cmd.Bool("force"), CreatedAt: time.Now().UTC().Truncate(time.Second)}}
			if path := cmd.String("sut"); path != "" {
				inv, err := schemas.LoadInventory(path)
				if err != nil {
					return usage("--sut: %v", err)
				}
				opts.SUT = inv
			}
			labels, err := parseLabels(cmd.StringSlice("label"))
			if err != nil {
				return err
			}
			opts.Labels = labels
			errw := cmd.Root().ErrWriter
			p := newProgress(ctx, errw)
			if p != nil {
				opts.Progress = p
			}
			sum, err := ingest.ToBundle(ctx, cmd.Args().Slice(), cmd.String("out"), opts)
			if p != nil {
				p.wait()
			}
			if err != nil {
				return err
			}
			reportIngest(cmd, sum)
			return nil
		},
	}
}

func parseLabels(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usage("--label %q: want key=value", kv)
		}
		out[k] = v
	}
	return out, nil
}

func reportIngest(cmd *cli.Command, sum ingest.Summary) {
	w, errw := cmd.Root().Writer, cmd.Root().ErrWriter
	for _, n := range sum.Recovered {
		fmt.Fprintln(errw, "note:", n)
	}
	runs := sum.Totals(schemas.TableRuns)
	reqs := sum.Totals(schemas.TableRequests)
	mets := sum.Totals(schemas.TableMetrics)
	files := 0
	for _, s := range sum.Manifest.Sources {
		files += max(1, len(s.Files)) // a several-file source lists its files
	}
	fmt.Fprintf(w, "wrote %s: %d runs, %d requests (%d rejected), %d metric rows (%d rejected) from %d files\n",
		sum.Dest, runs.Ingested, reqs.Ingested, reqs.Rejected, mets.Ingested, mets.Rejected, files)
	for _, s := range sum.Manifest.Sources {
		for _, warn := range s.Warnings {
			fmt.Fprintf(errw, "warning: %s: %s\n", s.Path, warn)
		}
		for _, r := range s.Rejections {
			fmt.Fprintf(errw, "rejected: %s: %s\n", s.Path, r)
		}
		if s.RejectionsOmitted > 0 {
			fmt.Fprintf(errw, "rejected: %s: %d more rows (counts by reason in %s/manifest.json)\n", s.Path, s.RejectionsOmitted, sum.Dest)
		}
	}
}
