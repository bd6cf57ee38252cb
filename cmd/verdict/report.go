package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/render"
	"github.com/verdict-llm/verdict/render/html"
	"github.com/verdict-llm/verdict/render/plot"
	"github.com/verdict-llm/verdict/render/xlsx"
	"github.com/verdict-llm/verdict/stats"
	"github.com/verdict-llm/verdict/validate"
)

func reportCommand() *cli.Command {
	def := analysis.DefaultStats
	return &cli.Command{
		Name:      "report",
		Usage:     "write the report: Excel workbook, plots, HTML and Markdown",
		ArgsUsage: "BUNDLE... (or none with --trend)",
		Description: `Reads every BUNDLE, validates the runs (comparing the bundles when there are
several), computes the headline figures with bootstrap intervals, costs
the runs from --billing exports and --quote files, and writes:

   --xlsx FILE      a workbook for procurement reviews: Summary (one row per
                    run, never ranked; incomplete results marked), Runs,
                    Metrics, Validation, Costs (live formulas over named
                    inputs: change a rate and the totals move), Charts,
                    Plots, Requests (every request, up to Excel's row limit)
   --plots DIR      the figures as SVG and PNG: ECDFs and histograms of TTFT,
                    TPOT, ITL and E2E, latency vs throughput, GPU telemetry,
                    cost per 1M output tokens
   --html FILE      one self-contained HTML file with the tables and figures
   --markdown FILE  every table as Markdown (for CI step summaries)

and prints the Summary, validation and cost tables in --format. With --slo
the report adds the capacity section of verdict capacity (tables, its
figures, a Capacity sheet): the largest load each bundle's sweep carries
within the limits, with its interval, and the cost per 1M output tokens
there from the --billing exports or the --quote files.

--interval says how every interval resamples requests (see verdict stats
--help): without it the run figures and the differences between runs
treat requests as independent (BCa), as verdict stats and compare do, and
the capacity section resamples blocks of neighbouring requests; --interval
block, stationary or ess keeps neighbours together everywhere, --interval
iid nowhere. The report's notes say which method every interval used.

With --trend DATASET the report adds the trend section of verdict trend
over that dataset (verdict export --dataset): per series a figure of
each statistic over the runs in order with each run's 95 % interval, the
change points marked and the regressions named in its legend, and the
table of change points (HTML section, Trend sheet, figures trend-N-*
in --plots DIR, and the tables in --format). --trend-by, --trend-metric,
--trend-min-change, --trend-vary and --trend-split are verdict trend's
--by, --metric, --min-change, --vary and --split; the report has no
gate (verdict trend --gate is the gate). With --trend the BUNDLEs may be
left out: the report is then the trend alone.

Costs: a bill is joined to a run by the resource IDs of its inventory
(cloud.resource_ids in the --sut file) over the run's timestamped window;
a run without timestamps (most tools record none) cannot be billed, and
the report says so. A quote prices run time: without timestamps its hours
come from the run's duration (duration_s), and the Costs sheet says so.
Give one --quote for every run, or one per BUNDLE in the order of the
bundles.

The exit status is 0 when the report was written, whatever the
validation verdict (verdict validate is the gate), and 2 on usage or
input errors.

Examples:
   verdict report --xlsx report.xlsx --html report.html a.bundle b.bundle
   verdict report --quote quote-a.yaml --quote quote-b.yaml --plots plots/ a.bundle b.bundle
   verdict report --billing focus-2025-06.csv --xlsx costs.xlsx capture.bundle
   verdict report --format markdown a.bundle >> "$GITHUB_STEP_SUMMARY"
   verdict report --slo 'ttft:p99<=500ms,tpot:p99<=80ms' --html capacity.html h100.bundle l40s.bundle
   verdict report --trend history.dataset --trend-by label:engine_version --html trend.html --xlsx trend.xlsx
   verdict report --trend history.dataset --html nightly.html h100.bundle`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "billing", Usage: "billing export `FILE` (FOCUS, AWS CUR, GCP, Azure; repeatable)", TakesFile: true},
			&cli.StringSliceFlag{Name: "quote", Usage: "quote `FILE` (YAML): one for every run, or one per BUNDLE in order (repeatable)", TakesFile: true},
			&cli.StringFlag{Name: "xlsx", Usage: "write the Excel workbook to `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "plots", Usage: "write the figures as SVG and PNG into `DIR`", TakesFile: true},
			&cli.StringFlag{Name: "html", Usage: "write the HTML report to `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "markdown", Usage: "write every table as Markdown to `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "title", Value: "verdict report", Usage: "the report's `TITLE`"},
			&cli.StringFlag{Name: "policy", Usage: "validation policy `FILE` (YAML)", TakesFile: true},
			&cli.BoolFlag{Name: "no-validate", Usage: "do not validate (the report says validation is not available)"},
			&cli.FloatFlag{Name: "ci", Value: def.Confidence, Usage: "confidence of the bootstrap intervals (0 turns them off)"},
			&cli.IntFlag{Name: "resamples", Value: def.Resamples, Usage: "bootstrap resamples"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "bootstrap seed"},
			&cli.IntFlag{Name: "max-request-rows", Usage: "cap the workbook's Requests sheet at `N` rows (0: Excel's limit)"},
			&cli.StringFlag{Name: "slo", Usage: "add the capacity section under these limits, e.g. `ttft:p99<=2s,tpot:p99<=50ms` (see verdict capacity --help)"},
			&cli.StringFlag{Name: "interval", Usage: "how every interval resamples requests: block, stationary, ess or iid (default: iid for the run figures and differences, block for the capacity section)"},
			&cli.BoolFlag{Name: "force", Usage: "replace output files that exist (outputs inside an input are always refused)"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "output `FORMAT`: table, json or markdown"},
			&cli.StringFlag{Name: "trend", Usage: "add the trend section of the history in `DATASET` (verdict export --dataset; see verdict trend --help)", TakesFile: true},
			&cli.StringFlag{Name: "trend-by", Value: "created", Usage: "order the trend's runs by `created` or label:KEY (verdict trend --by)"},
			&cli.StringSliceFlag{Name: "trend-metric", Usage: "the trend's statistics `METRIC[:STAT],...` (verdict trend --metric)"},
			&cli.StringFlag{Name: "trend-min-change", Value: "2%", Usage: "the trend's smallest regression (`PCT`; verdict trend --min-change)"},
			&cli.StringSliceFlag{Name: "trend-vary", Usage: "fields that may change along a trend series (`FIELD,...`; verdict trend --vary)"},
			&cli.StringSliceFlag{Name: "trend-split", Usage: "fields that separate trend series (`FIELD,...`; verdict trend --split)"},
		}, costFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			dataset := cmd.String("trend")
			if cmd.NArg() == 0 && dataset == "" {
				return usage("report: give at least one BUNDLE (or --trend DATASET)")
			}
			inputs := cmd.Args().Slice()
			if dataset != "" {
				inputs = append(inputs, dataset)
			}
			if err := checkOutputs(inputs, map[string]string{"xlsx": cmd.String("xlsx"), "html": cmd.String("html"),
				"markdown": cmd.String("markdown"), "plots": cmd.String("plots")}, map[string]bool{"plots": true}, cmd.Bool("force")); err != nil {
				return err
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil || f == render.CSV {
				return usage("--format: use table, markdown or json")
			}
			ci := cmd.Float("ci")
			if ci == 0 {
				ci = -1 // analysis.ReportOptions: negative turns intervals off
			}
			capOpts, err := reportCapacity(cmd)
			if err != nil {
				return err
			}
			var interval stats.Scheme
			if cmd.String("interval") != "" {
				if interval, err = intervalOption(cmd); err != nil {
					return err
				}
			}
			cs, err := costSettings(cmd)
			if err != nil {
				return err
			}
			to, err := trendOptions(cmd, "trend-")
			if err != nil {
				return err
			}
			a := reportArgs{bundles: cmd.Args().Slice(), format: f, xlsx: cmd.String("xlsx"), plots: cmd.String("plots"),
				html: cmd.String("html"), markdown: cmd.String("markdown"), policy: cmd.String("policy"), noValidate: cmd.Bool("no-validate"),
				maxRequestRows: cmd.Int("max-request-rows"),
				opts: analysis.ReportOptions{Title: cmd.String("title"), VerdictVersion: verdictVersion(), Billing: cmd.StringSlice("billing"),
					Quotes: cmd.StringSlice("quote"), Confidence: ci, Resamples: cmd.Int("resamples"), Seed: cmd.Uint64("seed"), Interval: interval, Capacity: capOpts, Cost: cs,
					TrendDataset: dataset, Trend: to}}
			return writeReport(ctx, a, cmd.Root().Writer, cmd.Root().ErrWriter)
		},
	}
}

// reportArgs are the report command's inputs.
type reportArgs struct {
	bundles                     []string
	format                      render.Format
	xlsx, plots, html, markdown string
	policy                      string
	noValidate                  bool
	maxRequestRows              int
	opts                        analysis.ReportOptions
}

// writeReport validates, loads the report, draws the figures and writes
// every output asked for; files are listed on stderr.
func writeReport(ctx context.Context, a reportArgs, stdout, stderr io.Writer) error {
	if len(a.opts.Quotes) > 1 && len(a.opts.Quotes) != len(a.bundles) {
		return usage("--quote: give one quote for every run, or one per BUNDLE (%d quotes, %d bundles)", len(a.opts.Quotes), len(a.bundles))
	}
	switch {
	case len(a.bundles) == 0:
		a.opts.ValidationNote = "no bundles were given (a report of a trend alone)"
	case a.noValidate:
		a.opts.ValidationNote = "--no-validate was given"
	default:
		opts := validate.Options{Compare: len(a.bundles) > 1}
		if a.policy != "" {
			p, err := validate.LoadPolicy(a.policy)
			if err != nil {
				return usage("--policy: %v", err)
			}
			opts.Policy = &p
		}
		// Validation runs alongside the reading of the runs.
		a.opts.ValidateWith = func(ctx context.Context) (*analysis.ReportValidation, error) {
			v, err := analysis.Validate(ctx, a.bundles, opts)
			if err != nil {
				return nil, err
			}
			return analysis.ValidationOf(v), nil
		}
	}
	var bars *statsBars
	if p := newProgress(ctx, stderr); p != nil {
		bars = &statsBars{p: p}
		a.opts.Progress = bars
	}
	rep, err := analysis.LoadReport(ctx, a.bundles, a.opts)
	if bars != nil {
		bars.finish()
	}
	if errors.Is(err, analysis.ErrTrendInput) {
		return usage("report --%s", strings.Replace(err.Error(), analysis.ErrTrendInput.Error()+": ", "", 1))
	}
	if err != nil {
		return err
	}
	if why, failed := strings.CutPrefix(rep.ValidationNote, "the validator failed: "); failed && rep.Validation == nil {
		fmt.Fprintf(stderr, "warning: validation not available: %s\n", why)
	}
	var figs, trendFigs []plot.Figure
	var skipped, ts []string
	if a.xlsx != "" || a.plots != "" || a.html != "" {
		if figs, skipped, err = plot.Report(rep, plot.Options{}); err != nil {
			return err
		}
		if rep.Capacity != nil {
			cf, cs, err := plot.Capacity(rep.Capacity, plot.Options{})
			if err != nil {
				return err
			}
			figs, skipped = append(figs, cf...), append(skipped, cs...)
		}
		if rep.Trend != nil {
			if trendFigs, ts, err = plot.Trend(rep.Trend, plot.Options{}); err != nil {
				return err
			}
			skipped = append(skipped, ts...)
		}
	}
	wrote := func(path string) { fmt.Fprintln(stderr, "wrote", path) }
	if a.plots != "" {
		if err := os.MkdirAll(a.plots, 0o755); err != nil {
			return err
		}
		drawn := 0
		for _, f := range slices.Concat(figs, trendFigs) {
			if f.SVG == nil {
				continue // a trend series with nothing to draw (skipped says why)
			}
			drawn++
			for ext, data := range map[string][]byte{".svg": f.SVG, ".png": f.PNG} {
				if err := writeFileAtomic(filepath.Join(a.plots, f.Name+ext), data); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(stderr, "wrote %d figures (SVG and PNG) to %s\n", drawn, a.plots)
	}
	if a.xlsx != "" {
		o := xlsx.Options{Requests: analysis.RequestRows(rep), MaxRequestRows: a.maxRequestRows, Notes: prefixed("figure not drawn: ", skipped)}
		for _, f := range figs {
			o.Pictures = append(o.Pictures, xlsx.Picture{Name: f.Name, Title: f.Title, Caption: f.Caption, PNG: f.PNG})
		}
		for _, f := range trendFigs {
			o.TrendPictures = append(o.TrendPictures, xlsx.Picture{Name: f.Name, Title: f.Title, Caption: f.Caption, PNG: f.PNG})
		}
		finish := func() {}
		if p := newProgress(ctx, stderr); p != nil {
			var end func()
			o.Progress, end = p.rows("requests sheet", rep.RequestCount())
			finish = func() { end(); p.wait() }
		}
		err := xlsx.Write(ctx, a.xlsx, rep, o)
		finish()
		if err != nil {
			return fmt.Errorf("--xlsx: %w", err)
		}
		wrote(a.xlsx)
	}
	if a.html != "" {
		css, err := plot.FontFaceCSS()
		if err != nil {
			return err
		}
		o := html.Options{FontCSS: css, Notes: prefixed("figure not drawn: ", skipped)}
		for _, f := range figs {
			o.Figures = append(o.Figures, html.Figure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: f.SVG})
		}
		for _, f := range trendFigs {
			o.TrendFigures = append(o.TrendFigures, html.Figure{Name: f.Name, Title: f.Title, Caption: f.Caption, SVG: f.SVG})
		}
		if err := html.Write(ctx, a.html, rep, o); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		wrote(a.html)
	}
	if a.markdown != "" {
		var b bytes.Buffer
		b.WriteString("# " + render.MarkdownText(rep.Title) + "\n\n")
		if err := render.WriteReport(&b, rep, render.Markdown, false); err != nil {
			return err
		}
		if err := writeFileAtomic(a.markdown, b.Bytes()); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		wrote(a.markdown)
	}
	// Scripts get every table; people at a terminal the short form.
	return render.WriteReport(stdout, rep, a.format, a.format != render.JSON)
}

func prefixed(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
