// Package costing turns cloud bills and price quotes into the cost of
// benchmark runs: total cost, cost per successful request and per million
// tokens, and (optionally) energy and Scope 2 emissions.
//
// It is a library: it reads from io.Readers, writes nothing, and knows
// nothing of Arrow, bundles or command lines. The pipeline is:
//
//  1. Read billing exports with a [Reader] (or [ReadAll]). FOCUS 1.0–1.2
//     (and pre-1.0 column names), AWS CUR legacy and 2.0, the GCP billing
//     export (standard and detailed, flattened to CSV) and Azure EA and MCA
//     cost details are detected from their header row ([DetectFormat]) and
//     normalised into [Charge] rows: FOCUS-style columns, UTC [start, end)
//     periods and exact [Decimal] money. Every data row becomes either a
//     Charge or a [RowError] that names file, line and column, so
//     Counts.Rows == Counts.Charges + Counts.Rejected.
//  2. Join charges to runs with a [Joiner] (or [Join]). A [RunWindow] names a
//     run's resource IDs and its [Start, End) window; charges of those
//     resources that overlap the window are allocated to it by the rules on
//     [Rule], giving a [RunCost] with per-currency totals, the granularity
//     of the rows used, and reports of what did not match.
//  3. Price runs that have no bill yet from a YAML [Quote]: [Quote.Cost]
//     applies GPU_COST = GPU_RATE × GPU_HOURS and
//     TOTAL_COST = GPU_COST + OTHER_LISTED_COST, using listed items only.
//  4. Derive [UnitCosts] from either total.
//  5. Optionally, [MeasureEnergy] from GPU energy counters and turn it into
//     Scope 2 emissions with [LocationBased] or [MarketBased].
//  6. Flatten results into [CostRecord] rows ([BillRecords], [QuoteRecords],
//     [UnitCostRecords]) for whoever stores the cost table (the bundle's
//     costs.parquet) or builds a workbook: amounts as exact decimal text,
//     with the rates, quantities and formula text that reproduce them.
//
// The seams are plain types: a caller fills a [RunWindow] per run (run ID,
// the resource IDs captured at run time, the [Start, End) window and the
// successful-request and token counts) and, optionally, a [Throughput]
// with intervals from the stats package; everything else comes back as
// values.
//
// The package is opinionated in three ways. Money is exact: billing files
// are read into Decimals that keep every digit, and sums never pass through
// float64. Nothing is invented: a null stays null, a charge that cannot be
// attributed is reported rather than prorated, an item missing from a
// quote is reported as unknown, and currencies are never mixed without a
// rate the caller supplies. Caveats are values: per-row problems are
// RowErrors, and result types carry Warnings []error for things a reader
// of the numbers must see (coarse billing rows, unmatched resources), in
// the manner of golang.org/x/perf/benchmath.
//
// The billing formats, the mapping to FOCUS and the time-window rules are
// described in docs/formats/billing.md; each reader's doc comment
// lists the mapping it applies.
package costing
