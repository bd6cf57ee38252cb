package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/verdict-llm/verdict/analysis"
	"github.com/verdict-llm/verdict/costing"
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

Bills are totalled on every basis they have: billed (invoiced: FOCUS
BilledCost, AWS CUR net unblended else unblended cost), effective
(amortised, commitment-aware: FOCUS EffectiveCost, CUR reservation and
savings-plan effective cost) and list (on-demand: FOCUS ListCost, CUR
public on-demand cost); --basis chooses the one TOTAL_COST and the unit
costs use. Unit costs come twice: steady state (the rate per hour over the
measured throughput, with its interval) and billed for the test run (its
own cost, minimums and rounding included, over its counts).

A run without timestamps (most tools record none) cannot be billed; a quote
then prices its duration_s. vLLM's date is the local end of the run without
a zone: with --timezone Area/City (or time_zone in the run's inventory) the
run's window is that moment minus its duration. The table "Billing by run"
says which runs could not be billed and why (no window, no resource ID, no
matching lines). Costs in several currencies are never added up
unless --currency names one and --fx gives the rate from each other:
--currency USD --fx EUR=1.08 states 1 EUR as 1.08 USD.

Examples:
   verdict cost --quote quote-a.yaml out/platform-a.bundle
   verdict cost --billing focus-2026-11.csv --billing cur-2026-11.csv capture.bundle
   verdict cost --quote a.yaml --quote b.yaml --format json a.bundle b.bundle
   verdict cost --billing focus.csv --basis list --currency USD --fx EUR=1.08 capture.bundle`,
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "billing", Usage: "billing export `FILE` (repeatable)", TakesFile: true},
			&cli.StringSliceFlag{Name: "quote", Usage: "quote `FILE` (YAML): one for every run, or one per BUNDLE in order", TakesFile: true},
			&cli.BoolFlag{Name: "no-store", Usage: "print only; do not write costs.parquet into the bundles"},
			formatFlag("table"),
		}, costFlags()...),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() == 0 {
				return usage("cost: give at least one BUNDLE")
			}
			f, err := render.ParseFormat(cmd.String("format"))
			if err != nil {
				return usage("%v", err)
			}
			s, err := costSettings(cmd)
			if err != nil {
				return err
			}
			o := analysis.CostOptions{Billing: cmd.StringSlice("billing"), Quotes: cmd.StringSlice("quote"), Store: !cmd.Bool("no-store"), Settings: s}
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

// costFlags are the cost choices verdict cost and verdict report share.
func costFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "basis", Usage: "`BASIS` of the bill costs that TOTAL_COST and unit costs use: effective (amortised, the default), billed (invoiced) or list (on-demand)"},
		&cli.StringFlag{Name: "currency", Usage: "state every cost in `CUR` (ISO 4217), converting with --fx"},
		&cli.StringSliceFlag{Name: "fx", Usage: "exchange rate `FROM=RATE`: 1 FROM is RATE of --currency (repeatable; exact decimal, e.g. EUR=1.08)"},
		&cli.StringFlag{Name: "timezone", Usage: "time `ZONE` (Area/City) of local times without a zone (vLLM's date) for runs whose inventory has no time_zone: the run's window for billing"},
	}
}

var currencyCode = regexp.MustCompile(`^[A-Za-z]{3}$`)

// costSettings reads --basis, --currency and --fx.
func costSettings(cmd *cli.Command) (analysis.CostSettings, error) {
	var s analysis.CostSettings
	switch b := costing.CostBasis(cmd.String("basis")); b {
	case "", costing.Effective, costing.Billed, costing.List:
		s.Basis = b
	default:
		return s, usage("--basis %q: want effective, billed or list", b)
	}
	if c := cmd.String("currency"); c != "" {
		if !currencyCode.MatchString(c) {
			return s, usage("--currency %q: want a three-letter ISO 4217 code such as USD", c)
		}
		s.Currency = strings.ToUpper(c)
	}
	if z := cmd.String("timezone"); z != "" {
		l, err := time.LoadLocation(z)
		if err != nil || z == "Local" {
			return s, usage("--timezone %q: want an IANA time zone name such as Europe/Berlin or UTC", z)
		}
		s.TimeZone = l
	}
	for _, fx := range cmd.StringSlice("fx") {
		from, rate, ok := strings.Cut(fx, "=")
		d, err := costing.ParseDecimal(rate)
		if !ok || !currencyCode.MatchString(from) || err != nil || d.Sign() <= 0 {
			return s, usage("--fx %q: want FROM=RATE, e.g. EUR=1.08 (1 EUR = 1.08 of --currency)", fx)
		}
		if s.Currency == "" {
			return s, usage("--fx %s needs --currency: the currency the rate converts into", fx)
		}
		from = strings.ToUpper(from)
		for _, r := range s.FX {
			if r.From == from {
				return s, usage("--fx %s given twice", from)
			}
		}
		s.FX = append(s.FX, costing.ExchangeRate{From: from, To: s.Currency, Rate: d, Source: fmt.Sprintf("--fx %s=%s", from, rate)})
	}
	return s, nil
}
