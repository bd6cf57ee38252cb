package costing

import (
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func loadQuote(t *testing.T, name string) *Quote {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuote(data, name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestQuoteRunWithoutBill prices a 45-minute run from testdata/quote_h100.yaml
// with no bill at all, by hand:
//
//	GPU      8 GPUs, 2700 s billed per second (rounded up: 2700; minimum 60 s)
//	         GPU_HOURS = 8 × 2700 × 1 / 3600            = 6
//	         GPU_COST  = 2.49 × 6                       = 14.94
//	storage  500 GB × 2700 s / (730 h × 3600 s) GB-months = 0.5136986301369863…  → 0.513698630137
//	         0.10 × that                                 = 0.05136986301369863… → 0.051369863014
//	start-up 0.50 × 1 start                              = 0.50
//	egress   0.09 × 12 GB (caller's usage)               = 1.08
//	idle     listed, but no quantity given: left out, with a warning
//	snapshots  usage given, not on the quote: unknown, never priced
//
//	OTHER_LISTED_COST = 0.051369863014 + 0.50 + 1.08     = 1.631369863014
//	TOTAL_COST        = 14.94 + 1.631369863014           = 16.571369863014
//
//	per successful request  16.571369863014 / 1000                = 0.016571369863014
//	per 1M output tokens    16.571369863014 × 1e6 / 2,000,000     = 8.285684931507
//	per 1M total tokens     16.571369863014 × 1e6 / 5,000,000     = 3.3142739726028
func TestQuoteRunWithoutBill(t *testing.T) {
	q := loadQuote(t, "quote_h100.yaml")
	run := RunWindow{RunID: "quoted", Start: time.Date(2025, 6, 10, 10, 30, 0, 0, time.UTC),
		End: time.Date(2025, 6, 10, 11, 15, 0, 0, time.UTC), SuccessfulRequests: 1000,
		OutputTokens: 2_000_000, TotalTokens: 5_000_000}
	qc, err := q.Cost(run, map[string]Decimal{"egress": dec("12"), "snapshots": dec("3")})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got Decimal, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s = %s, want %s", what, got, want)
		}
	}
	check("GPU_HOURS", qc.GPU.Quantity, "6")
	check("GPU billed units", qc.GPU.BilledUnits, "2700")
	check("GPU_COST", qc.GPUCost, "14.94")
	check("OTHER_LISTED_COST", qc.OtherListedCost, "1.631369863014")
	check("TOTAL_COST", qc.TotalCost, "16.571369863014")
	if qc.GPU.Rate.String() != "2.49" || qc.GPU.Multiplier.String() != "8" || qc.GPU.BillingUnitSeconds != 1 ||
		qc.GPU.RateUnitSeconds.String() != "3600" || qc.GPU.RunSeconds.String() != "2700" {
		t.Errorf("GPU line inputs %+v", qc.GPU)
	}
	var names []string
	for _, ln := range qc.Other {
		names = append(names, ln.Name)
	}
	if strings.Join(names, ",") != "storage,start-up fee,egress" {
		t.Errorf("items used %v", names)
	}
	st := qc.Other[0]
	check("storage quantity", st.Quantity, "0.513698630137")
	check("storage cost", st.Cost, "0.051369863014")
	if !st.Rounded || st.RateUnitSeconds.String() != "2628000" || st.Multiplier.String() != "500" {
		t.Errorf("storage line %+v", st)
	}
	check("start-up", qc.Other[1].Cost, "0.50")
	check("egress", qc.Other[2].Cost, "1.08")
	if strings.Join(qc.Unknown, ",") != "snapshots" || !hasErr(qc.Warnings, ErrUnknownItem) || !hasErr(qc.Warnings, ErrNoQuantity) {
		t.Errorf("unknown %v warnings %v", qc.Unknown, qc.Warnings)
	}
	if qc.Formula != "TOTAL_COST = GPU_COST + OTHER_LISTED_COST" || qc.GPU.CostFormula != "RATE * QUANTITY" {
		t.Errorf("formulas %q %q", qc.Formula, qc.GPU.CostFormula)
	}

	out := UnitCosts(qc.Money(), run, Throughput{
		OutputTokensPerSecond: &Interval{Point: 740.74, Lo: 700, Hi: 780, Level: 0.95}})
	want := map[string]string{
		TotalCost:                "16.571369863014",
		CostPerSuccessfulRequest: "0.016571369863014",
		CostPer1MOutputTokens:    "8.285684931507",
		CostPer1MTotalTokens:     "3.3142739726028",
	}
	if len(out) != 4 {
		t.Fatalf("%d unit costs", len(out))
	}
	for _, u := range out {
		if u.Amount.String() != want[u.Metric] || u.Currency != "USD" {
			t.Errorf("%s = %s %s, want %s", u.Metric, u.Amount, u.Currency, want[u.Metric])
		}
	}
	if out[1].Population != "successful requests" || out[1].Denominator != 1000 || out[1].Formula != "TOTAL_COST / SUCCESSFUL_REQUESTS" {
		t.Errorf("per-request metadata %+v", out[1])
	}
	// Interval: ρ = 16.571369863014 / 2700 s; per 1M output tokens at
	// 780 and 700 tokens/s: ρ × 1e6 / 780 and ρ × 1e6 / 700.
	rho := 16.571369863014 / 2700
	o := out[2]
	if math.Abs(o.Lo-rho*1e6/780) > 1e-9 || math.Abs(o.Hi-rho*1e6/700) > 1e-9 || o.Level != 0.95 || o.Note != "" {
		t.Errorf("output-token interval [%v, %v] level %v note %q", o.Lo, o.Hi, o.Level, o.Note)
	}
	if !math.IsNaN(out[1].Lo) || !math.IsNaN(out[3].Hi) {
		t.Errorf("intervals without a throughput: %v %v", out[1].Lo, out[3].Hi)
	}
}

func TestQuoteStrict(t *testing.T) {
	_, err := ParseQuote([]byte(mustRead(t, "quote_unknown_key.yaml")), "quote_unknown_key.yaml")
	var qe *QuoteError
	if !errors.As(err, &qe) || qe.Line != 9 || !strings.Contains(qe.Msg, "minimun") || !errors.Is(err, ErrQuote) {
		t.Fatalf("unknown key: %v (%+v)", err, qe)
	}
	for _, tc := range []struct {
		yaml string
		line int
		msg  string
	}{
		{"provider: p\ncurrency: usd\ngpu: {count: 1, rate: 1, billing: {unit: second}}\n", 2, "ISO 4217"},
		{"provider: p\ncurrency: USD\ngpu:\n  count: 1\n  rate: 1\n  billing:\n    unit: fortnight\n", 7, "billing unit"},
		{"provider: p\ncurrency: USD\ngpu:\n  count: 0\n  rate: 1\n  billing: {unit: hour}\n", 4, "count"},
		{"provider: p\ncurrency: USD\ngpu:\n  count: 1\n  rate: cheap\n  billing: {unit: hour}\n", 5, "cheap"},
		{"provider: p\ncurrency: USD\ngpu: {count: 1, rate: 1, billing: {unit: hour}}\nother:\n  - name: s\n    basis: run-time\n    per: month\n    rate: 1\n", 7, "hours_per_month"},
		{"provider: p\ncurrency: USD\ngpu: {count: 1, rate: 1, billing: {unit: hour}}\nother:\n  - name: s\n    basis: per-run\n    size: 3\n    rate: 1\n", 7, "run-time only"},
		{"provider: p\ncurrency: USD\ngpu: {count: 1, rate: 1, billing: {unit: hour}}\nother:\n  - {name: a, basis: usage, rate: 1}\n  - {name: A, basis: usage, rate: 2}\n", 6, "used twice"},
		// issue 15: 14 bytes that panicked inside goccy/go-yaml
		{"other: !t 0\na:", 1, "cannot unmarshal !t `0`"},
		{"provider: " + strings.Repeat("[", 1001) + strings.Repeat("]", 1001), 1, "nesting deeper than 1000 levels"},
	} {
		_, err := ParseQuote([]byte(tc.yaml), "q.yaml")
		var qe *QuoteError
		if !errors.As(err, &qe) || qe.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err %v, want line %d containing %q", tc.yaml, err, tc.line, tc.msg)
		}
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBilledTime checks the rounding rules and minimums, with the rate at
// 1 per hour so that the cost equals the billed hours.
func TestBilledTime(t *testing.T) {
	test := func(dur time.Duration, unit, rounding, minimum string, wantUnits, wantHours string) {
		t.Helper()
		b := Billing{Unit: unit, Rounding: rounding}
		if minimum != "" {
			b.Minimum = dec(minimum)
		}
		ln := timeLine(dur, b, dec("1"), dec("1"), big3600())
		if ln.BilledUnits.String() != wantUnits || ln.Quantity.String() != wantHours || ln.Cost.String() != wantHours {
			t.Errorf("%v %s %s min %s: billed %s units, %s h, cost %s; want %s units, %s h",
				dur, unit, rounding, minimum, ln.BilledUnits, ln.Quantity, ln.Cost, wantUnits, wantHours)
		}
	}
	test(2700*time.Second+400*time.Millisecond, "second", "up", "", "2701", "0.750277777778")
	test(2700*time.Second+400*time.Millisecond, "second", "down", "", "2700", "0.75")
	test(2700*time.Second+500*time.Millisecond, "second", "nearest", "", "2701", "0.750277777778")
	test(2700*time.Second+499*time.Millisecond, "second", "nearest", "", "2700", "0.75")
	test(90*time.Second, "minute", "up", "", "2", "0.033333333333")
	test(90*time.Second, "minute", "nearest", "", "2", "0.033333333333")
	test(89*time.Second, "minute", "down", "", "1", "0.016666666667")
	test(30*time.Second, "hour", "up", "1", "1", "1")
	test(10*time.Second, "second", "up", "60", "60", "0.016666666667")
	test(1800*time.Second, "hour", "none", "", "0.5", "0.5")
	test(3*time.Hour, "hour", "up", "1", "3", "3")
}

func big3600() *big.Rat { return big.NewRat(3600, 1) }

func TestQuoteInstanceHourAndNoWindow(t *testing.T) {
	q, err := ParseQuote([]byte(`provider: p
currency: EUR
gpu:
  accelerator: MI300X
  count: 8
  rate: "19.20"
  per: instance-hour
  billing: {unit: minute, rounding: up, minimum: 10}
`), "q.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := RunWindow{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 1, 1, 0, 7, 30, 0, time.UTC)}
	qc, err := q.Cost(run, nil)
	// 7.5 min → 8 minutes (up) → minimum 10 minutes → 10 × 60 / 3600 = 1/6
	// instance-hour; 19.20 / 6 = 3.20.
	if err != nil || qc.TotalCost.String() != "3.2" || qc.GPU.RateUnit != "instance-hour" || len(qc.GPU.Notes) != 2 {
		t.Errorf("instance-hour: %v %s %+v", err, qc.TotalCost, qc.GPU)
	}
	if _, err := q.Cost(RunWindow{RunID: "x"}, nil); !errors.Is(err, ErrNoWindow) {
		t.Errorf("no window: %v", err)
	}
}
