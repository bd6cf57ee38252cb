package costing

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/internal/testkit"
)

// TestCorpus reads every file of the billing corpus in place
// (testkit.Corpus; see SOURCES.md there) and checks the detected format,
// the row counts and values picked by hand from each file. The files are
// never copied here.
func TestCorpus(t *testing.T) {
	dir := testkit.Corpus(t, "billing")
	at := func(s string) time.Time { return mustTime(s) }
	byLine := func(t *testing.T, b *Bill, line int) *Charge {
		t.Helper()
		for _, c := range b.Charges {
			if c.Source.Line == line {
				return c
			}
		}
		t.Fatalf("no charge from line %d", line)
		return nil
	}
	sum := func(b *Bill, basis CostBasis) Decimal {
		var s Decimal
		for _, c := range b.Charges {
			v, _ := c.Cost(basis)
			s = s.Add(v)
		}
		return s
	}
	eq := func(t *testing.T, what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	tests := map[string]struct {
		format string
		rows   int
		check  func(t *testing.T, b *Bill)
	}{
		"focus_1.0_sample_aws_azure_oci.csv": {"focus-1.0", 1000, func(t *testing.T, b *Bill) {
			// Σ BilledCost and Σ EffectiveCost over all 1000 rows, summed
			// exactly (Python decimal at 200 digits over the file gives the same).
			eq(t, "Σ billed", sum(b, Billed).String(), "20.52022672899")
			eq(t, "Σ effective", sum(b, Effective).String(), "14.97651418586")
			eq(t, "Σ list", sum(b, List).String(), "20.39090575119")
			c := byLine(t, b, 2)
			eq(t, "line 2 billed", c.BilledCost.String(), "0.00000080000") // trailing zeros kept
			eq(t, "line 2 start", c.ChargePeriodStart, at("2024-09-18T22:00:00Z"))
			eq(t, "line 2 end", c.ChargePeriodEnd, at("2024-09-18T23:00:00Z"))
			eq(t, "line 2 resource", c.ResourceID, "arn:ats:sqs:us-test-2:347410479675:mibelllmel-i-032l64f2065481b12")
			eq(t, "line 2 tags (NULL)", len(c.Tags), 0)
			eq(t, "line 3 tag", byLine(t, b, 3).Tags["application"], "BrightLensMatrix")
			cr := byLine(t, b, 458) // the credit row: NULL resource and NULL ConsumedQuantity
			eq(t, "credit category", cr.ChargeCategory, "Credit")
			eq(t, "credit frequency", cr.ChargeFrequency, "One-Time")
			eq(t, "credit billed", cr.BilledCost.String(), "-2.61370000000")
			eq(t, "credit effective", cr.EffectiveCost.String(), "-3.00000000000")
			eq(t, "credit resource", cr.ResourceID, "")
			eq(t, "credit consumed null", cr.ConsumedQuantity.Valid, false)
			oci := byLine(t, b, 927) // "Usage-based" and NULL ContractedCost
			eq(t, "oci frequency", oci.ChargeFrequency, "Usage-Based")
			eq(t, "oci contracted", oci.ContractedCost.Valid, false)
			eq(t, "oci region", oci.RegionID, "")
			ms := byLine(t, b, 948)
			eq(t, "azure daily", GranularityOf(ms.ChargePeriodStart, ms.ChargePeriodEnd), Daily)
			eq(t, "azure billed", ms.BilledCost.String(), "0.00001500000")
			providers := map[string]int{}
			freqs := map[string]int{}
			for _, c := range b.Charges {
				providers[c.Provider]++
				freqs[c.ChargeFrequency]++
			}
			eq(t, "AWS rows", providers["AWS"], 942)
			eq(t, "Microsoft rows", providers["Microsoft"], 51)
			eq(t, "Oracle rows", providers["Oracle"], 7)
			eq(t, "Usage-Based rows (casing folded)", freqs["Usage-Based"], 999)
		}},
		"aws_cur_legacy_ec2_hourly.csv": {"aws-cur-legacy", 2405, func(t *testing.T, b *Bill) {
			eq(t, "Σ billed", sum(b, Billed).String(), "25865.560894286837087083598")
			c := byLine(t, b, 2)
			eq(t, "line 2 resource", c.ResourceID, "i-35982005")
			eq(t, "line 2 billed", c.BilledCost.String(), "0.00377554707705832")
			eq(t, "line 2 list", c.ListCost.String(), "0.00377554707705832")
			eq(t, "line 2 start (no zone)", c.ChargePeriodStart, at("2018-06-20T01:00:00Z"))
			eq(t, "line 2 billing period end (ISO Z)", c.BillingPeriodEnd, at("2018-07-01T00:00:00Z"))
			eq(t, "line 2 unit", c.PricingUnit, "GB")
			eq(t, "line 2 metering", ClassifyCharge(c), QuantityMetered)
			last := byLine(t, b, 2406)
			eq(t, "last resource", last.ResourceID, "arn:aws:ec2:us-west-1b:6568388779672:snapshot/snap-34241028")
			eq(t, "last billed", last.BilledCost.String(), "83.20922802178863")
			eq(t, "last unit", last.PricingUnit, "GB-Mo")
			eq(t, "last metering", ClassifyCharge(last), TimeMetered)
			for _, c := range b.Charges {
				if g := GranularityOf(c.ChargePeriodStart, c.ChargePeriodEnd); g != Hourly {
					t.Fatalf("line %d: %s row, want hourly", c.Source.Line, g)
				}
			}
		}},
		"gcp_billing_export_standard_2020-11.csv": {"gcp-export-standard", 25, func(t *testing.T, b *Bill) {
			// cost sums to 0.000032; the Python-repr credits cancel it exactly.
			eq(t, "Σ billed", sum(b, Billed).Sign(), 0)
			c := byLine(t, b, 2)
			eq(t, "line 2 billed (5e-06 − 5e-06)", c.BilledCost.String(), "0.000000")
			eq(t, "line 2 start (+00:00)", c.ChargePeriodStart, at("2020-11-09T23:00:00Z"))
			eq(t, "line 2 pricing quantity", c.PricingQuantity.String(), "0.000023198314011096954")
			eq(t, "line 2 billing period", c.BillingPeriodStart, at("2020-11-01T00:00:00Z"))
			eq(t, "line 6 label", byLine(t, b, 6).Tags["goog-resource-type"], "bigquery_dataset")
			eq(t, "no resource IDs in the standard export", c.ResourceID, "")
		}},
		"gcp_billing_export_detailed_2022-08.csv": {"gcp-export-detailed", 9, func(t *testing.T, b *Bill) {
			eq(t, "Σ billed", sum(b, Billed).String(), "0.000012")
			c := byLine(t, b, 2)
			eq(t, "resource id", c.ResourceID, "//example")
			eq(t, "resource name", c.ResourceName, "instance-1")
			eq(t, "region", c.RegionID, "us-central1")
			eq(t, "start", c.ChargePeriodStart, at("2022-08-01T03:00:00Z"))
		}},
		"azure_ea_cost_details_amortized_2023-09.csv": {"azure-cost-details-ea", 28, func(t *testing.T, b *Bill) {
			// Amortised export (from the file name): EffectiveCost is Cost;
			// BilledCost is 0 on the Reservation and SavingsPlan usage rows.
			eq(t, "Σ effective", sum(b, Effective).String(), "16.2969321366366446274854190000")
			eq(t, "Σ billed", sum(b, Billed).String(), "15.7977801361686446274854190000")
			c := byLine(t, b, 2) // BOM before the header; Reservation row
			eq(t, "line 2 effective", c.EffectiveCost.String(), "0.493152")
			eq(t, "line 2 billed", c.BilledCost.Sign(), 0)
			eq(t, "line 2 period start (09/22/2023)", c.ChargePeriodStart, at("2023-09-22T00:00:00Z"))
			eq(t, "line 2 period end (+1 day)", c.ChargePeriodEnd, at("2023-09-23T00:00:00Z"))
			eq(t, "line 2 billing period end (inclusive 09/30 + 1 day)", c.BillingPeriodEnd, at("2023-10-01T00:00:00Z"))
			eq(t, "line 2 tags (no braces)", c.Tags["poolName"], "agentpool")
			eq(t, "line 2 tag count", len(c.Tags), 11)
			eq(t, "line 2 commitment", c.CommitmentDiscountStatus, "Used")
			eq(t, "line 3 savings plan billed", byLine(t, b, 3).BilledCost.Sign(), 0)
			c6 := byLine(t, b, 6)
			eq(t, "line 6 list (PayGPrice × Quantity)", c6.ListCost.String(), "2.480634996")
			eq(t, "line 6 unit", c6.PricingUnit, "1 GB/Month")
			if len(b.Warnings) != 0 {
				t.Errorf("warnings %v", b.Warnings)
			}
		}},
		"azure_mca_cost_details_2023-08.csv": {"azure-cost-details-mca", 4, func(t *testing.T, b *Bill) {
			c := byLine(t, b, 5)
			eq(t, "line 5 cost (24 decimals kept)", c.BilledCost.String(), "0.000000144000000000000000")
			eq(t, "line 5 resource (InstanceName)", c.ResourceID, "/subscriptions/2639de71-ca37-4a17-a104-17665a50e7fc/resourceGroups/costmgmt/providers/Microsoft.Storage/storageAccounts/costmgmtdiag")
			eq(t, "line 5 name (last segment)", c.ResourceName, "costmgmtdiag")
			eq(t, "line 5 tags", c.Tags["project"], "p1")
			eq(t, "line 5 region", c.RegionID, "eastus2")
			eq(t, "line 2 date", byLine(t, b, 2).ChargePeriodStart, at("2023-08-01T00:00:00Z"))
			eq(t, "empty billing period", byLine(t, b, 2).BillingPeriodStart.IsZero(), true)
			eq(t, "Σ billed", sum(b, Billed).String(), "0.000026241200000000000000")
			if len(b.Warnings) != 1 { // the unknown actual/amortised kind
				t.Errorf("warnings %v", b.Warnings)
			}
		}},
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".csv" {
			continue
		}
		seen = append(seen, e.Name())
		tc, ok := tests[e.Name()]
		if !ok {
			t.Errorf("%s: new corpus file without checks; add it to TestCorpus", e.Name())
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			b := readFile(t, filepath.Join(dir, e.Name()), ReaderOptions{})
			if b.Format.String() != tc.format {
				t.Errorf("format %s, want %s", b.Format, tc.format)
			}
			if b.Counts.Rows != tc.rows || b.Counts.Charges != tc.rows || b.Counts.Rejected != 0 {
				t.Errorf("counts %+v, want %d rows, all charges", b.Counts, tc.rows)
				for _, r := range b.Rejected[:min(5, len(b.Rejected))] {
					t.Log(r)
				}
			}
			tc.check(t, b)
		})
	}
	for name := range tests {
		if !slices.Contains(seen, name) {
			t.Errorf("%s: expected in the corpus but missing", name)
		}
	}
}

// TestCorpusStreaming reads the largest corpus file with the streaming
// Reader and ReuseCharge, and checks it agrees with ReadAll.
func TestCorpusStreaming(t *testing.T) {
	path := testkit.CorpusFile(t, "billing", "aws_cur_legacy_ec2_hourly.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f, ReaderOptions{FileName: "cur.csv", ReuseCharge: true})
	if err != nil {
		t.Fatal(err)
	}
	var total Decimal
	for r.Scan() {
		if c, ok := r.Record().(*Charge); ok {
			total = total.Add(c.BilledCost)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if total.String() != "25865.560894286837087083598" || r.Counts().Charges != 2405 {
		t.Errorf("streamed Σ %s over %d charges", total, r.Counts().Charges)
	}
}
