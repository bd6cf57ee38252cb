package costing

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandFixtures reads each hand-written file in testdata and compares
// the whole outcome, charges and rejections, with its golden dump.
func TestHandFixtures(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format string
		rows   int
		opts   ReaderOptions
	}{
		{"focus_1.2_small.csv", "focus-1.2", 7, ReaderOptions{}},
		{"focus_1.1_small.csv", "focus-1.1", 2, ReaderOptions{}},
		{"focus_pre1.0_small.csv", "focus-pre-1.0", 2, ReaderOptions{}},
		{"aws_cur2_small.csv", "aws-cur-2.0", 5, ReaderOptions{}},
		{"aws_cur_legacy_small.csv", "aws-cur-legacy", 3, ReaderOptions{}},
		{"gcp_detailed_small.csv", "gcp-export-detailed", 3, ReaderOptions{}},
		{"azure_mca_bom_small.csv", "azure-cost-details-mca", 3, ReaderOptions{AzureCost: AzureActual}},
		{"azure_ea_small.csv", "azure-cost-details-ea", 2, ReaderOptions{}},
		{"focus_bad_rows.csv", "focus-1.0", 12, ReaderOptions{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b := readFile(t, filepath.Join("testdata", tc.file), tc.opts)
			if b.Format.String() != tc.format {
				t.Errorf("format %s, want %s", b.Format, tc.format)
			}
			if b.Counts.Rows != tc.rows {
				t.Errorf("rows %d, want %d", b.Counts.Rows, tc.rows)
			}
			golden(t, strings.TrimSuffix(tc.file, ".csv")+".txt", dumpBill(b))
		})
	}
}

// TestRejections checks that each bad row of focus_bad_rows.csv is
// rejected with the right line, field and sentinel, and that good rows
// after a two-line quoted field keep their real line numbers.
func TestRejections(t *testing.T) {
	b := readFile(t, filepath.Join("testdata", "focus_bad_rows.csv"), ReaderOptions{})
	type want struct {
		line  int
		field string
		err   error
	}
	wants := []want{
		{3, "BilledCost", ErrSyntax},
		{4, "ChargePeriodEnd", ErrPeriod},
		{5, "BilledCost", ErrMissing},
		{6, "", ErrFieldCount},
		{7, "ChargePeriodStart", ErrTime},
		{8, "Tags", ErrValue},
		{9, "", ErrCSV},
		{10, "BillingCurrency", ErrMissing},
		{13, "ChargePeriodStart", ErrTime},
	}
	if len(b.Rejected) != len(wants) {
		for _, r := range b.Rejected {
			t.Log(r)
		}
		t.Fatalf("%d rejections, want %d", len(b.Rejected), len(wants))
	}
	for i, w := range wants {
		r := b.Rejected[i]
		if r.Line != w.line || r.Field != w.field || !errors.Is(r, w.err) || r.File != "focus_bad_rows.csv" {
			t.Errorf("rejection %d = %v (line %d field %q err %v), want line %d field %q err %v",
				i, r, r.Line, r.Field, r.Err, w.line, w.field, w.err)
		}
	}
	var lines []int
	for _, c := range b.Charges {
		lines = append(lines, c.Source.Line)
	}
	if got := fmt.Sprint(lines); got != "[2 11 14]" {
		t.Errorf("charge lines %s, want [2 11 14]", got)
	}
}

func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   string
	}{
		{"BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeClass", "focus-1.0"},
		{"BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd", "focus-1.0"},
		{"billedcost,billing_currency,charge_period_start,charge_period_end,SkuMeter", "focus-1.1"},
		{"BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,SkuPriceDetails,InvoiceId", "focus-1.2"},
		{"BilledCost,AmortizedCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeType,UsageQuantity", "focus-pre-1.0"},
		{"\ufeffBilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,PricingCurrency", "focus-1.2"},
		{"lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,lineItem/CurrencyCode", "aws-cur-legacy"},
		{"line_item_usage_start_date,line_item_usage_end_date,line_item_unblended_cost,line_item_currency_code", "aws-cur-legacy"},
		{"line_item_usage_start_date,line_item_usage_end_date,line_item_unblended_cost,line_item_currency_code,product,resource_tags", "aws-cur-2.0"},
		{"billing_account_id,usage_start_time,usage_end_time,cost,currency", "gcp-export-standard"},
		{"billing_account_id,usage_start_time,usage_end_time,cost,currency,resource.name,resource.global_name", "gcp-export-detailed"},
		{"billing_account_id,usage_start_time,usage_end_time,cost,currency,resource_global_name", "gcp-export-detailed"},
		{"Date,MeterCategory,Cost,BillingCurrency,AccountOwnerId", "azure-cost-details-ea"},
		{"date,meterCategory,costInBillingCurrency,billingCurrency,invoiceSectionId", "azure-cost-details-mca"},
		{"UsageDateTime,MeterCategory,PreTaxCost,Currency", "azure-cost-details-ea"},
	} {
		f, err := DetectFormat(strings.Split(tc.header, ","))
		if err != nil || f.String() != tc.want {
			t.Errorf("DetectFormat(%s) = %v, %v; want %s", tc.header, f, err, tc.want)
		}
	}
	if _, err := DetectFormat([]string{"a", "b"}); err == nil {
		t.Error("DetectFormat of an unknown header: no error")
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]Format{
		"":                       {},
		"auto":                   {},
		"focus":                  {Kind: FOCUS},
		"FOCUS-1.1":              {FOCUS, "1.1"},
		"aws-cur-2.0":            {AWSCUR, "2.0"},
		"gcp-export":             {Kind: GCPExport},
		"azure-cost-details-mca": {AzureCostDetails, "mca"},
	} {
		if got, err := ParseFormat(s); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"focus-9", "csv", "aws"} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q): no error", s)
		}
	}
	if n := len(Formats()); n != 10 {
		t.Errorf("Formats() has %d entries, want 10", n)
	}
}

// TestOverride forces a version the header would not give and a kind
// whose columns are missing.
func TestOverride(t *testing.T) {
	in := "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd\n1,USD,2025-01-01,2025-01-02\n"
	b, err := ReadAll(strings.NewReader(in), ReaderOptions{FileName: "x.csv", Format: Format{FOCUS, "1.2"}})
	if err != nil || b.Format.String() != "focus-1.2" || b.Counts.Charges != 1 {
		t.Fatalf("override focus-1.2: %v %+v", err, b)
	}
	_, err = ReadAll(strings.NewReader(in), ReaderOptions{FileName: "x.csv", Format: Format{Kind: AWSCUR}})
	if err == nil || !errors.Is(err, ErrMissing) || !strings.HasPrefix(err.Error(), "x.csv:1: aws-cur") {
		t.Fatalf("AWS override on a FOCUS file: err = %v", err)
	}
	_, err = ReadAll(strings.NewReader(""), ReaderOptions{FileName: "empty.csv"})
	if err == nil || !strings.HasPrefix(err.Error(), "empty.csv:1:") {
		t.Fatalf("empty file: err = %v", err)
	}
}

// TestReuseCharge streams with ReuseCharge and checks the Charge pointer
// is stable while the values change.
func TestReuseCharge(t *testing.T) {
	in := "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,Tags\n" +
		"1,USD,2025-01-01,2025-01-02,\"{\"\"a\"\":\"\"1\"\"}\"\n" +
		"2,USD,2025-01-02,2025-01-03,\n"
	r, err := NewReader(strings.NewReader(in), ReaderOptions{ReuseCharge: true})
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []*Charge
	var costs []string
	var tags []int
	for r.Scan() {
		c := r.Record().(*Charge)
		ptrs = append(ptrs, c)
		costs = append(costs, c.BilledCost.String())
		tags = append(tags, len(c.Tags))
	}
	if len(ptrs) != 2 || ptrs[0] != ptrs[1] || costs[0] != "1" || costs[1] != "2" || tags[0] != 1 || tags[1] != 0 {
		t.Errorf("reuse: ptrs %v costs %v tags %v", ptrs, costs, tags)
	}
}
