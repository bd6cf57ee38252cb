package costing

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHandWorked45MinuteRun allocates a 45-minute run, 10:30 to 11:15,
// over two hourly rows, worked by hand:
//
//	row                        period         effective   share            allocated
//	A  p5 instance hour        10:00–11:00     98.3200    30 min / 60 min   98.3200 × 1/2 = 49.1600
//	B  p5 instance hour        11:00–12:00    101.1700    15 min / 60 min  101.1700 × 1/4 = 25.2925
//	C  correction of A, no unit 10:00–11:00    -4.9160    like A: 1/2       -4.9160 × 1/2 = -2.4580
//	D  egress, GB              10:00–11:00      0.0123    quantity-metered, partly overlapping: not allocated
//	E  marketplace purchase    10:40 (instant)  0 (billed 12.50)  one-off inside the window: whole
//	F  tax, no resource        June             7.15      no resource: never attributed
//	G  another run's instance  10:00–11:00     55.0000    other resource: not matched
//
//	effective = 49.1600 + 25.2925 − 2.4580 + 0      = 71.9945  → 71.99 to the cent
//	billed    = 49.1600 + 25.2925 − 2.4580 + 12.50  = 84.4945  → 84.49 to the cent
func TestHandWorked45MinuteRun(t *testing.T) {
	const bill = `BilledCost,EffectiveCost,ListCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeFrequency,ResourceId,SkuId,PricingQuantity,PricingUnit,ProviderName
98.3200,98.3200,98.3200,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,,Usage-Based,i-0gpu1,P5,1,Hours,AWS
101.1700,101.1700,101.1700,USD,2025-06-10T11:00:00Z,2025-06-10T12:00:00Z,Usage,,Usage-Based,i-0gpu1,P5,1,Hours,AWS
-4.9160,-4.9160,-4.9160,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,Correction,Usage-Based,i-0gpu1,P5,,,AWS
0.0123,0.0123,0.0123,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,,Usage-Based,i-0gpu1,DTO,0.1367,GB,AWS
12.50,0,12.50,USD,2025-06-10T10:40:00Z,2025-06-10T10:40:00Z,Purchase,,One-Time,i-0gpu1,AMI,1,Units,AWS
7.15,7.15,,USD,2025-06-01T00:00:00Z,2025-07-01T00:00:00Z,Tax,,Recurring,,,,,AWS
55.0000,55.0000,55.0000,USD,2025-06-10T10:00:00Z,2025-06-10T11:00:00Z,Usage,,Usage-Based,i-0other,P5,1,Hours,AWS
`
	b, err := ReadAll(strings.NewReader(bill), ReaderOptions{FileName: "hand.csv"})
	if err != nil || b.Counts.Charges != 7 {
		t.Fatalf("reading: %v, %+v", err, b.Counts)
	}
	run := RunWindow{RunID: "r45", ResourceIDs: []string{"i-0gpu1"},
		Start: time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC),
		End:   time.Date(2025, 6, 10, 11, 15, 0, 0, time.UTC)}
	res := Join([]RunWindow{run}, b.Charges, JoinOptions{})
	rc := res.Runs[0]

	type want struct {
		line      int
		rule      Rule
		included  bool
		effective string
		billed    string
	}
	wants := map[int]want{
		2: {2, RuleProrated, true, "49.1600", "49.1600"},
		3: {3, RuleProrated, true, "25.2925", "25.2925"},
		4: {4, RuleProrated, true, "-2.4580", "-2.4580"},
		5: {5, RuleCoincident, false, "0", "0"},
		6: {6, RuleInside, true, "0", "12.50"},
	}
	if len(rc.Allocations) != len(wants) {
		t.Fatalf("%d allocations, want %d:\n%s", len(rc.Allocations), len(wants), dumpJoin(res))
	}
	for _, a := range rc.Allocations {
		w, ok := wants[a.Charge.Source.Line]
		if !ok || a.Rule != w.rule || a.Included != w.included ||
			a.Effective.String() != w.effective || a.Billed.String() != w.billed {
			t.Errorf("line %d: %s included=%t effective %s billed %s; want %+v",
				a.Charge.Source.Line, a.Rule, a.Included, a.Effective, a.Billed, w)
		}
	}
	if len(rc.Totals) != 1 {
		t.Fatalf("totals %+v", rc.Totals)
	}
	tot := rc.Totals[0]
	if tot.Effective.String() != "71.9945" || tot.Billed.String() != "84.4945" || tot.Rows != 4 {
		t.Errorf("totals effective %s billed %s rows %d; want 71.9945, 84.4945, 4", tot.Effective, tot.Billed, tot.Rows)
	}
	if rc.Total == nil || rc.Total.Amount.Round(2).String() != "71.99" || rc.Total.Currency != "USD" {
		t.Errorf("Total = %v, want 71.99 USD to the cent", rc.Total)
	}
	if rc.Coarsest != Hourly || rc.Status != Costed {
		t.Errorf("coarsest %s status %s", rc.Coarsest, rc.Status)
	}
	if res.Charges != 7 || res.WithoutResource != 1 || res.Matched != 5 {
		t.Errorf("join counts %d/%d/%d, want 7/1/5", res.Charges, res.WithoutResource, res.Matched)
	}
}

// joinFixtureRuns are the runs of TestJoinFixtures, one per situation the
// join must report.
func joinFixtureRuns() []RunWindow {
	at := func(s string) time.Time { return mustTime(s) }
	return []RunWindow{
		{RunID: "aws-p5-45min", ResourceIDs: []string{"i-0gpu0000000000001"},
			Start: at("2025-06-10T10:30:00Z"), End: at("2025-06-10T11:15:00Z")},
		{RunID: "aws-cur2-arn-suffix", ResourceIDs: []string{"i-0aaa111", "i-0bbb222"},
			Start: at("2025-05-02T14:10:00Z"), End: at("2025-05-02T14:40:00Z")},
		{RunID: "azure-daily-case", ResourceIDs: []string{"/subscriptions/sub-1/resourcegroups/bench/providers/microsoft.compute/virtualmachines/gpu-vm-2"},
			Start: at("2025-01-16T12:00:00Z"), End: at("2025-01-16T12:45:00Z")},
		{RunID: "gcp-by-name", ResourceIDs: []string{"gpu-vm-1"},
			Start: at("2025-02-03T08:15:00Z"), End: at("2025-02-03T08:45:00Z")},
		{RunID: "no-window", ResourceIDs: []string{"i-0gpu0000000000001"}},
		{RunID: "unmatched-and-no-overlap", ResourceIDs: []string{"i-doesnotexist", "i-0gpu0000000000001"},
			Start: at("2025-06-11T10:00:00Z"), End: at("2025-06-11T11:00:00Z")},
		{RunID: "vmss-instance", ResourceIDs: []string{"/subscriptions/sub-2/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-ss/virtualMachines/3"},
			Start: at("2025-09-22T00:00:00Z"), End: at("2025-09-22T01:00:00Z")},
		{RunID: "mixed-currency", ResourceIDs: []string{"i-0gpu0000000000001", "/subscriptions/0000/resourcegroups/bench/providers/microsoft.compute/virtualmachines/gpu-vm-1"},
			Start: at("2025-03-01T06:00:00Z"), End: at("2025-06-10T10:45:00Z")},
	}
}

func readFixtures(t *testing.T, names ...string) []*Charge {
	var all []*Charge
	for _, n := range names {
		opts := ReaderOptions{}
		if strings.HasPrefix(n, "azure_mca") {
			opts.AzureCost = AzureActual
		}
		all = append(all, readFile(t, filepath.Join("testdata", n), opts).Charges...)
	}
	return all
}

// TestJoinFixtures joins the hand-written bills to runs covering every
// reported situation and compares the result with a golden dump.
func TestJoinFixtures(t *testing.T) {
	charges := readFixtures(t, "focus_1.2_small.csv", "focus_1.1_small.csv", "aws_cur2_small.csv",
		"azure_mca_bom_small.csv", "azure_ea_small.csv", "gcp_detailed_small.csv")
	res := Join(joinFixtureRuns(), charges, JoinOptions{})
	golden(t, "join_fixtures.txt", dumpJoin(res))

	byID := map[string]RunCost{}
	for _, rc := range res.Runs {
		byID[rc.Run.RunID] = rc
	}
	if rc := byID["no-window"]; rc.Status != NoWindow || !hasErr(rc.Warnings, ErrNoWindow) || rc.Resources[0].Rows == 0 {
		t.Errorf("no-window run: %s %v %+v", rc.Status, rc.Warnings, rc.Resources)
	}
	if rc := byID["unmatched-and-no-overlap"]; !hasErr(rc.Warnings, ErrUnmatched) || !hasErr(rc.Warnings, ErrNoOverlap) || rc.Status != NoCharges {
		t.Errorf("unmatched run: %s %v", rc.Status, rc.Warnings)
	}
	if rc := byID["vmss-instance"]; rc.Resources[0].Hint == "" {
		t.Errorf("scale-set instance: no hint: %+v", rc.Resources)
	}
	if rc := byID["mixed-currency"]; rc.Total != nil || !hasErr(rc.Warnings, ErrMixedCurrency) || len(rc.Totals) != 2 {
		t.Errorf("mixed currencies: total %v, warnings %v", rc.Total, rc.Warnings)
	}
	if rc := byID["azure-daily-case"]; rc.Coarsest != Daily || rc.Total == nil || rc.Total.Currency != "EUR" {
		t.Errorf("azure daily: %s %v", rc.Coarsest, rc.Total)
	}
}

func hasErr(errs []error, target error) bool {
	for _, e := range errs {
		if errors.Is(e, target) {
			return true
		}
	}
	return false
}

// TestCurrencyConversion states a single total for a two-currency run
// only with a caller's rate, and refuses without one.
func TestCurrencyConversion(t *testing.T) {
	charges := readFixtures(t, "focus_1.2_small.csv", "focus_1.1_small.csv")
	runs := joinFixtureRuns()[7:8]
	// The window runs from 2025-03-01 06:00 to 2025-06-10 10:45.
	// USD effective: the 10:00–11:00 instance row for 45 of 60 minutes,
	// 98.3200 × 3/4 = 73.7400, its unit-less correction −4.9160 × 3/4 =
	// −3.6870, the instant purchase 0: 70.0530.
	// EUR effective: the daily VM row 1.5000 for 18 of 24 hours = 1.1250.
	res := Join(runs, charges, JoinOptions{Currency: "USD",
		Rates: []ExchangeRate{{From: "EUR", To: "USD", Rate: dec("1.0850"), Source: "test"}}})
	rc := res.Runs[0]
	// 70.0530 + 1.1250 × 1.0850 = 70.0530 + 1.22062500 = 71.27362500
	if rc.Total == nil || rc.Total.Amount.String() != "71.27362500" || rc.Total.Currency != "USD" {
		t.Fatalf("converted total %v; warnings %v\n%s", rc.Total, rc.Warnings, dumpJoin(res))
	}
	res = Join(runs, charges, JoinOptions{Currency: "USD"})
	if rc := res.Runs[0]; rc.Total != nil || !hasErr(rc.Warnings, ErrNoRate) {
		t.Errorf("no rate: total %v warnings %v", rc.Total, rc.Warnings)
	}
	res = Join(runs, charges, JoinOptions{Basis: Billed, Currency: "EUR",
		Rates: []ExchangeRate{{From: "USD", To: "EUR", Rate: dec("0.9"), Source: "test"}}})
	// Billed adds the 12.50 USD purchase: USD 73.7400 − 3.6870 + 12.50 =
	// 82.5530, × 0.9 = 74.29770; EUR 1.9200 × 18/24 = 1.4400; 75.73770.
	if rc := res.Runs[0]; rc.Total == nil || rc.Total.Amount.String() != "75.73770" {
		t.Errorf("billed in EUR: %v", rc.Total)
	}
}

// TestProrateQuantityUsage turns on prorating of partly overlapping
// quantity-metered rows.
func TestProrateQuantityUsage(t *testing.T) {
	charges := readFixtures(t, "focus_1.2_small.csv")
	runs := joinFixtureRuns()[:1]
	res := Join(runs, charges, JoinOptions{ProrateQuantityUsage: true})
	for _, a := range res.Runs[0].Allocations {
		if a.Charge.PricingUnit == "GB" {
			// 0.0123 × 30/60 = 0.00615
			if !a.Included || a.Effective.String() != "0.00615" {
				t.Errorf("egress row: included=%t effective %s, want 0.00615", a.Included, a.Effective)
			}
			return
		}
	}
	t.Error("egress row not allocated")
}

func TestOverlappingRunsWarn(t *testing.T) {
	w := joinFixtureRuns()[0]
	w2 := w
	w2.RunID = "concurrent"
	w2.ResourceIDs = []string{strings.ToUpper(w.ResourceIDs[0])}
	j := NewJoiner([]RunWindow{w, w2}, JoinOptions{})
	res := j.Result()
	for _, rc := range res.Runs {
		if len(rc.Warnings) == 0 || !strings.Contains(rc.Warnings[0].Error(), "overlap in time") {
			t.Errorf("%s: warnings %v", rc.Run.RunID, rc.Warnings)
		}
	}
}

func TestClassifyCharge(t *testing.T) {
	for _, tc := range []struct {
		category, freq, unit string
		want                 Metering
	}{
		{"Usage", "Usage-Based", "Hours", TimeMetered},
		{"Usage", "Usage-Based", "Hrs", TimeMetered},
		{"Usage", "Usage-Based", "1 Hour", TimeMetered},
		{"Usage", "Usage-Based", "GB-Mo", TimeMetered},
		{"Usage", "Usage-Based", "gibibyte month", TimeMetered},
		{"Usage", "Usage-Based", "byte-seconds", TimeMetered},
		{"Usage", "Usage-Based", "OCPU Per Hour", TimeMetered},
		{"Usage", "Recurring", "1/Day", TimeMetered},
		{"Usage", "Usage-Based", "GB", QuantityMetered},
		{"Usage", "Usage-Based", "10K", QuantityMetered},
		{"Usage", "Usage-Based", "Requests", QuantityMetered},
		{"Usage", "Usage-Based", "GiB/s", QuantityMetered},
		{"Credit", "", "", QuantityMetered},
		{"Purchase", "Recurring", "Hours", OneOff},
		{"Tax", "", "", OneOff},
		{"Usage", "One-Time", "Hours", OneOff},
	} {
		c := &Charge{ChargeCategory: tc.category, ChargeFrequency: tc.freq, PricingUnit: tc.unit}
		if got := ClassifyCharge(c); got != tc.want {
			t.Errorf("ClassifyCharge(%s, %s, %q) = %s, want %s", tc.category, tc.freq, tc.unit, got, tc.want)
		}
	}
}

func TestGranularityOf(t *testing.T) {
	at := mustTime
	for _, tc := range []struct {
		s, e string
		want Granularity
	}{
		{"2025-01-01T10:00:00Z", "2025-01-01T11:00:00Z", Hourly},
		{"2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", Daily},
		{"2025-02-01T00:00:00Z", "2025-03-01T00:00:00Z", Monthly},
		{"2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z", Monthly},
		{"2025-02-02T00:00:00Z", "2025-03-02T00:00:00Z", OtherGranularity},
		{"2025-01-01T10:00:00Z", "2025-01-01T10:15:00Z", OtherGranularity},
		{"2025-01-01T10:00:00Z", "2025-01-01T10:00:00Z", Instant},
	} {
		if got := GranularityOf(at(tc.s), at(tc.e)); got != tc.want {
			t.Errorf("GranularityOf(%s, %s) = %s, want %s", tc.s, tc.e, got, tc.want)
		}
	}
}
