package costing

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/internal/testkit"
)

// golden compares got with testdata/golden/name (testkit.Golden).
func golden(t *testing.T, name, got string) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// readFile reads a billing file with ReadAll.
func readFile(t testing.TB, path string, opts ReaderOptions) *Bill {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opts.FileName == "" {
		opts.FileName = filepath.Base(path)
	}
	b, err := ReadAll(f, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b.Counts.Rows != b.Counts.Charges+b.Counts.Rejected ||
		b.Counts.Charges != len(b.Charges) || b.Counts.Rejected != len(b.Rejected) {
		t.Fatalf("%s: counts do not add up: %+v, %d charges, %d rejected", path, b.Counts, len(b.Charges), len(b.Rejected))
	}
	return b
}

func ts(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// dumpBill writes a Bill in a stable text form for golden files.
func dumpBill(b *Bill) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "file %s format %s rows %d charges %d rejected %d\n",
		b.File, b.Format, b.Counts.Rows, b.Counts.Charges, b.Counts.Rejected)
	for _, w := range b.Warnings {
		fmt.Fprintf(&sb, "warning: %v\n", w)
	}
	type item struct {
		line int
		text string
	}
	var items []item
	for _, c := range b.Charges {
		items = append(items, item{c.Source.Line, dumpCharge(c)})
	}
	for _, r := range b.Rejected {
		items = append(items, item{r.Line, fmt.Sprintf("line %d REJECTED field=%q err=%v: %s\n", r.Line, r.Field, r.Err, r.Msg)})
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.line - b.line })
	for _, it := range items {
		sb.WriteString(it.text)
	}
	return sb.String()
}

func dumpCharge(c *Charge) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "line %d %s/%s [%s, %s) %s\n", c.Source.Line, c.Provider, c.Source.Format,
		ts(c.ChargePeriodStart), ts(c.ChargePeriodEnd), GranularityOf(c.ChargePeriodStart, c.ChargePeriodEnd))
	fmt.Fprintf(&sb, "  resource %q name %q type %q\n", c.ResourceID, c.ResourceName, c.ResourceType)
	fmt.Fprintf(&sb, "  billed %s effective %s list %s contracted %s %s\n",
		c.BilledCost, c.EffectiveCost, c.ListCost, c.ContractedCost, c.BillingCurrency)
	fmt.Fprintf(&sb, "  category %q class %q frequency %q native %q metering %s\n",
		c.ChargeCategory, c.ChargeClass, c.ChargeFrequency, c.NativeChargeType, ClassifyCharge(c))
	fmt.Fprintf(&sb, "  service %q/%q sku %q/%q description %q\n",
		c.ServiceName, c.ServiceCategory, c.SkuID, c.SkuPriceID, c.ChargeDescription)
	fmt.Fprintf(&sb, "  pricing %s %q consumed %s %q\n", c.PricingQuantity, c.PricingUnit, c.ConsumedQuantity, c.ConsumedUnit)
	fmt.Fprintf(&sb, "  region %q %q zone %q accounts %q/%q commitment %q %q\n",
		c.RegionID, c.RegionName, c.AvailabilityZone, c.BillingAccountID, c.SubAccountID,
		c.CommitmentDiscountID, c.CommitmentDiscountStatus)
	fmt.Fprintf(&sb, "  billing period [%s, %s)\n", ts(c.BillingPeriodStart), ts(c.BillingPeriodEnd))
	if len(c.Tags) > 0 {
		sb.WriteString("  tags")
		for _, k := range slices.Sorted(maps.Keys(c.Tags)) {
			fmt.Fprintf(&sb, " %q=%q", k, c.Tags[k])
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// dumpJoin writes a JoinResult in a stable text form for golden files.
func dumpJoin(res *JoinResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "charges %d without-resource %d matched %d\n", res.Charges, res.WithoutResource, res.Matched)
	for _, rc := range res.Runs {
		fmt.Fprintf(&sb, "run %q [%s, %s) status %s basis %s\n", rc.Run.RunID, ts(rc.Run.Start), ts(rc.Run.End), rc.Status, rc.Basis)
		for _, a := range rc.Allocations {
			fmt.Fprintf(&sb, "  %s:%d %s %s included=%t overlap %s of %s (%s) billed %s effective %s list %s rounded=%t\n",
				a.Charge.Source.File, a.Charge.Source.Line, a.Metering, a.Rule, a.Included, a.Overlap, a.Period,
				a.Granularity, a.Billed, a.Effective, a.List, a.Rounded)
			for _, n := range a.Notes {
				fmt.Fprintf(&sb, "    note: %s\n", n)
			}
		}
		for _, ct := range rc.Totals {
			fmt.Fprintf(&sb, "  total %s billed %s effective %s list %s rows %d\n", ct.Currency, ct.Billed, ct.Effective, ct.List, ct.Rows)
		}
		if rc.Total != nil {
			fmt.Fprintf(&sb, "  TOTAL %s (coarsest %s, %s)\n", rc.Total, rc.Coarsest, rc.MaxRowPeriod)
		} else {
			sb.WriteString("  TOTAL none\n")
		}
		for _, rm := range rc.Resources {
			fmt.Fprintf(&sb, "  resource %q rows %d overlapping %d extent [%s, %s) hint %q\n",
				rm.ResourceID, rm.Rows, rm.Overlapping, ts(rm.First), ts(rm.Last), rm.Hint)
		}
		for _, w := range rc.Warnings {
			fmt.Fprintf(&sb, "  warning: %v\n", w)
		}
	}
	return sb.String()
}

func mustTime(s string) time.Time {
	t, err := ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

func dec(s string) Decimal { return MustParseDecimal(s) }
