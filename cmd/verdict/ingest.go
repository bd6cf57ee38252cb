package main

import (
	"context"
	"fmt"
	"regexp"
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
		Description: `Reads each FILE (the format is detected from the content; --input-format
forces one), maps every metric to its definition and writes a bundle directory
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
   verdict ingest --input-format vllm -o out.bundle results.txt

--format, the input format before, is a deprecated alias of --input-format
for this release (it prints a warning); on every other command --format is
the output format.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "bundle directory to write", Required: true, TakesFile: true},
			&cli.StringFlag{Name: "input-format", Value: "auto", Usage: "input `FORMAT`: auto or one of " + strings.Join(ingest.Names(formats), ", ")},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "deprecated alias of --input-format (removed in the next release)"},
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
			inFormat, err := ingestInputFormat(cmd)
			if err != nil {
				return err
			}
			opts := ingest.Options{Formats: formats, Format: inFormat, Strict: cmd.Bool("strict"), KeepPaths: cmd.Bool("keep-paths"),
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

// ingestInputFormat is --input-format, or the deprecated --format with a
// warning.
func ingestInputFormat(cmd *cli.Command) (string, error) {
	if !cmd.IsSet("format") {
		return cmd.String("input-format"), nil
	}
	old := cmd.String("format")
	if cmd.IsSet("input-format") && cmd.String("input-format") != old {
		return "", usage("ingest: --format %q and --input-format %q disagree; give --input-format only (--format is its deprecated alias)", old, cmd.String("input-format"))
	}
	fmt.Fprintln(cmd.Root().ErrWriter, "warning: ingest --format is deprecated: use --input-format (on every other command --format is the output format)")
	return old, nil
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
		for _, line := range warningLines(s) {
			fmt.Fprintln(errw, "warning:", line)
		}
		for _, line := range rejectionLines(s) {
			fmt.Fprintln(errw, "rejected:", line)
		}
	}
}

// numbers matches the digits that make one warning of a flood differ
// from the next (line numbers, counts, values).
var numbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// warningLines are a source's warnings for stderr: each names its file
// once (the source's path unless the warning begins with a file of its
// own), and warnings that differ only in their numbers are one line with
// how many there were.
func warningLines(s schemas.Source) []string {
	paths := []string{s.Path}
	for _, f := range s.Files {
		paths = append(paths, f.Path)
	}
	var order []string
	first, count := map[string]string{}, map[string]int{}
	for _, w := range s.Warnings {
		named := false
		for _, p := range paths {
			if strings.HasPrefix(w, p+": ") {
				named = true
			}
		}
		if !named {
			w = s.Path + ": " + w
		}
		key := numbers.ReplaceAllString(w, "#")
		if _, ok := first[key]; !ok {
			order = append(order, key)
			first[key] = w
		}
		count[key]++
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		line := first[k]
		if n := count[k]; n > 1 {
			line += fmt.Sprintf(" (and %d more like it)", n-1)
		}
		out = append(out, line)
	}
	return out
}

// rejectionCause is what one line of rejected rows stands for.
type rejectionCause struct{ table, field, reason string }

// rejectionLines are a source's rejected rows for stderr, one line per
// cause (table, field and reason) with how many rows it cost and where
// the first one is.
func rejectionLines(s schemas.Source) []string {
	type cause = rejectionCause
	var order []cause
	first := map[cause]schemas.Rejection{}
	listed := map[cause]int64{}
	for _, r := range s.Rejections {
		c := cause{r.Table, r.Field, r.Reason}
		if _, ok := first[c]; !ok {
			order = append(order, c)
			first[c] = r
		}
		listed[c]++
	}
	var out []string
	shown := map[string]int64{} // table/reason: rows accounted for by the lines
	for _, c := range order {
		n := listed[c]
		if total := s.Counts[c.table].Reasons[c.reason]; total > n && countCauses(order, c) == 1 {
			n = total // the rows past the listing limit, by reason
		}
		shown[c.table+"\x00"+c.reason] += n
		if n == 1 {
			out = append(out, s.Path+": "+first[c].String())
			continue
		}
		where := strings.TrimSuffix(strings.TrimSuffix(first[c].String(), causeText(c.field, c.reason)), ": ")
		out = append(out, fmt.Sprintf("%s: %d %s rows: %s (the first at %s)", s.Path, n, c.table, causeText(c.field, c.reason), where))
	}
	if s.RejectionsOmitted > 0 {
		var more int64
		for table, c := range s.Counts {
			for reason, n := range c.Reasons {
				more += max(0, n-shown[table+"\x00"+reason])
			}
		}
		if more > 0 {
			out = append(out, fmt.Sprintf("%s: %d more rows (counts by reason in the bundle's manifest.json)", s.Path, more))
		}
	}
	return out
}

// countCauses counts the causes of one table and reason (several fields
// may share a reason).
func countCauses(cs []rejectionCause, c rejectionCause) int {
	n := 0
	for _, o := range cs {
		if o.table == c.table && o.reason == c.reason {
			n++
		}
	}
	return n
}

func causeText(field, reason string) string {
	if field == "" {
		return reason
	}
	return field + ": " + reason
}
