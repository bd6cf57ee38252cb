package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// TestCostQuote prices the demo run from its quote and stores the costs in
// the bundle: TOTAL_COST = GPU_RATE x GPU_HOURS + the listed storage.
func TestCostQuote(t *testing.T) {
	a, _ := demoBundles(t)
	code, out, errs := runCLI(t, "cost", "--quote", demo+"quote-a.yaml", a)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "TOTAL_COST") || !strings.Contains(out, "stored as costs.parquet") {
		t.Errorf("output: %s", out)
	}
	b, err := schemas.OpenBundle(a)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := b.Costs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := b.Runs(context.Background())
	byItem := map[string]schemas.CostRow{}
	for _, r := range rows {
		byItem[r.Item] = r
	}
	// quote-a: 2.49 USD per GPU-hour billed per second, rounding up; the
	// run has no timestamps, so its duration is the run time.
	secs := math.Ceil(runs[0].DurationS.V)
	gpu := 2.49 * secs / 3600
	if got := byItem["GPU_COST"].AmountValue.V; math.Abs(got-gpu) > 1e-9 {
		t.Errorf("GPU_COST %v, want 2.49 x %v s / 3600 = %v", got, secs, gpu)
	}
	total := byItem["TOTAL_COST"].AmountValue.V
	if other := byItem["OTHER_LISTED_COST"].AmountValue.V; math.Abs(total-(gpu+other)) > 1e-9 || other <= 0 {
		t.Errorf("TOTAL_COST %v != %v + %v", total, gpu, other)
	}
	if per := byItem["cost_per_successful_request"].AmountValue.V; math.Abs(per-total/float64(runs[0].Completed.V)) > 1e-12 {
		t.Errorf("per request %v", per)
	}
	// A run without timestamps has a run time, not a period: no row
	// claims the epoch as its start (it did before: 1970-01-01T00:00:00Z).
	for _, r := range rows {
		if r.PeriodStart.OK || r.PeriodEnd.OK {
			t.Errorf("%s %s: period %v..%v for a run without timestamps", r.Sort, r.Item, r.PeriodStart, r.PeriodEnd)
		}
	}
	if code, _, errs := runCLI(t, "cost", a); code != 2 || !strings.Contains(errs, "give --billing") {
		t.Errorf("no inputs: %d %s", code, errs)
	}
}

// TestCostBill joins an hourly bill to a 45-minute run with a window:
// 10:30-11:15 takes 30/60 of the 10:00 row and 15/60 of the 11:00 row,
// 49.16 + 24.58 = 73.74 USD; another resource's row is not the run's.
func TestCostBill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap.bundle")
	w, err := schemas.CreateBundle(dir, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC)
	w.AddRun(schemas.Run{ID: "capture-000000000001", Tool: "verdict-capture", Format: "capture", Scenario: schemas.ScenarioServer,
		Arrival: schemas.ArrivalPoisson, Completed: schemas.Some(int64(1000)), WindowStart: schemas.Some(start),
		WindowEnd: schemas.Some(start.Add(45 * time.Minute)), DurationS: schemas.Some(2700.0),
		SUT: schemas.Inventory{ResourceIDs: []string{"i-0a1b2c3d4e5f60718"}}})
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "cost", "--billing", "testdata/focus-hourly.csv", dir)
	if code != 0 {
		t.Fatal(errs)
	}
	b, _ := schemas.OpenBundle(dir)
	rows, _ := b.Costs(context.Background())
	var alloc, total, steady float64
	for _, r := range rows {
		if r.Item == "STEADY_RATE_PER_HOUR" && r.Source == "bill" {
			steady = r.AmountValue.V
		}
		if r.Sort == "allocation" && r.Included {
			alloc += r.AmountValue.V
		}
		if r.Sort == "total" && r.Source == "bill" && r.Item == "TOTAL_COST" {
			total = r.AmountValue.V
		}
		if r.ResourceID == "i-0someoneelse00000" {
			t.Errorf("another resource's charge was allocated: %+v", r)
		}
	}
	if math.Abs(alloc-73.74) > 0.005 || math.Abs(total-73.74) > 0.005 {
		t.Errorf("allocated %v, total %v, want 73.74\n%s", alloc, total, out)
	}
	// The steady-state rate: 73.74 USD over 0.75 h.
	if math.Abs(steady-73.74/0.75) > 1e-9 {
		t.Errorf("steady rate %v, want %v", steady, 73.74/0.75)
	}
}

// captureBundle writes a bundle of one run of resource i-0a1b2c3d4e5f60718
// with a timestamped window.
func captureBundle(t *testing.T, start time.Time, d time.Duration) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cap.bundle")
	w, err := schemas.CreateBundle(dir, schemas.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.AddRun(schemas.Run{ID: "capture-000000000002", Tool: "verdict-capture", Format: "capture", Scenario: schemas.ScenarioServer,
		Arrival: schemas.ArrivalPoisson, Completed: schemas.Some(int64(1000)), WindowStart: schemas.Some(start),
		WindowEnd: schemas.Some(start.Add(d)), DurationS: schemas.Some(d.Seconds()),
		SUT: schemas.Inventory{ResourceIDs: []string{"i-0a1b2c3d4e5f60718"}}})
	if err := w.Commit(schemas.Manifest{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCostBasesAndCurrencies: a 30-minute run takes half of an hourly USD
// row (billed 98.32, effective 80, list 120) and half of an hourly EUR row
// (10 on every basis). Without --currency there is no single total, and
// the message names the flags; with --currency USD --fx EUR=1.08 the
// total is, by hand, effective 40 + 5 x 1.08 = 45.40 USD, billed 49.16 +
// 5.40 = 54.56, list 60 + 5.40 = 65.40.
func TestCostBasesAndCurrencies(t *testing.T) {
	dir := captureBundle(t, time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), 30*time.Minute)
	bill := "testdata/focus-mixed.csv"
	code, out, errs := runCLI(t, "cost", "--no-store", "--billing", bill, dir)
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"Bill totals by basis", "49.16 USD", "40.00 USD", "60.00 USD", "5.00 EUR",
		"charges in several currencies: EUR, USD; give --currency CUR and --fx FROM=RATE"} {
		if !strings.Contains(out, want) {
			t.Errorf("without --currency: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out+errs, "JoinOptions") {
		t.Errorf("the message names a Go option:\n%s", out)
	}
	code, out, errs = runCLI(t, "cost", "--no-store", "--billing", bill, "--currency", "usd", dir)
	if code != 0 || !strings.Contains(out, "no exchange rate from EUR to USD: give --fx EUR=RATE") {
		t.Errorf("no rate: exit %d\n%s\n%s", code, out, errs)
	}
	for _, c := range []struct {
		basis string
		total string
	}{{"", "45.40"}, {"effective", "45.40"}, {"billed", "54.56"}, {"list", "65.40"}} {
		args := []string{"cost", "--billing", bill, "--currency", "USD", "--fx", "EUR=1.08", "--format", "json", "--no-store", dir}
		if c.basis != "" {
			args = append(args, "--basis", c.basis)
		}
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatal(errs)
		}
		var doc struct {
			Records []struct {
				Item, Amount, Currency, Sort string
				AmountValue                  float64 `json:"amount_value"`
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var total, steady string
		var rate float64
		for _, r := range doc.Records {
			switch r.Item {
			case "TOTAL_COST":
				total = r.Amount + " " + r.Currency
			case "STEADY_RATE_PER_HOUR":
				steady, rate = r.Currency, r.AmountValue
			}
		}
		want, _ := strconv.ParseFloat(c.total, 64)
		if total != c.total+" USD" && total != c.total+"00 USD" || steady != "USD" || math.Abs(rate-want*2) > 1e-9 {
			t.Errorf("--basis %q: TOTAL_COST %q, steady %v %s; want %s USD and %v USD/h", c.basis, total, rate, steady, c.total, want*2)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fx", "EUR=1.08"}, "--fx EUR=1.08 needs --currency"},
		{[]string{"--currency", "USD", "--fx", "EUR"}, `--fx "EUR": want FROM=RATE`},
		{[]string{"--currency", "USD", "--fx", "EUR=-1"}, `--fx "EUR=-1"`},
		{[]string{"--currency", "dollars"}, `--currency "dollars"`},
		{[]string{"--basis", "net"}, `--basis "net"`},
	} {
		code, _, errs := runCLI(t, append(append([]string{"cost", "--no-store", "--billing", bill}, c.args...), dir)...)
		if code != exitInput || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %s; want %q", c.args, code, errs, c.want)
		}
	}
}

// TestCostTimezone bills a vLLM run from its date: platform-a.json ends at
// 20261124-141500 local time and lasted 34.748682018 s. In Europe/Berlin
// (UTC+1 in November) that is the window 13:14:25.751Z to 13:15:00.5Z, all
// inside the 13:00 hourly row of 3.60 USD: 3.60 x 34.748682018 / 3600 =
// 0.034748682 USD. In UTC the window falls an hour later, outside every
// line; without a zone there is no window; a run without resource IDs
// matches nothing. Each reason is stated.
func TestCostTimezone(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bill := write("bill.csv", `BilledCost,EffectiveCost,ListCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeFrequency,ResourceId,SkuId,PricingQuantity,PricingUnit,ProviderName
3.60,3.60,3.60,USD,2026-11-24T13:00:00Z,2026-11-24T14:00:00Z,Usage,,Usage-Based,i-0demo,SKU-H100,1,Hours,AWS
`)
	ingest := func(name, sut string) string {
		out := filepath.Join(dir, name)
		args := []string{"ingest", "-o", out, demo + "platform-a.json"}
		if sut != "" {
			args = append(args, "--sut", write(name+".yaml", sut))
		}
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatal(errs)
		}
		return out
	}
	a := ingest("a.bundle", "cloud: {resource_ids: [i-0demo]}\n")
	noIDs := ingest("noids.bundle", "")
	zoned := ingest("zoned.bundle", "cloud: {resource_ids: [i-0demo]}\ntime_zone: Europe/Berlin\n")

	cost := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"cost", "--no-store", "--billing", bill}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return out
	}
	const window = "2026-11-24T13:14:25.751317982Z to 2026-11-24T13:15:00.5Z (from the tool's local date)"
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{a}, []string{"Billing by run", "NO", "no window: the run has no timestamps: its date 20261124-141500 is local time without a zone (give --timezone Area/City, or time_zone in its inventory)", "1 of 1 runs could not be billed"}},
		{[]string{"--timezone", "Europe/Berlin", a}, []string{window, "yes", "0.034748682", "the date 20261124-141500 (the local end of the run, to the second: ±0.5 s) in Europe/Berlin (--timezone)"}},
		{[]string{zoned}, []string{window, "yes", "in Europe/Berlin (the inventory's time_zone)"}},
		{[]string{"--timezone", "UTC", a}, []string{"NO", "no matching lines: no charge overlaps the run window: i-0demo has 1 charge(s) covering 2026-11-24T13:00:00Z to 2026-11-24T14:00:00Z"}},
		{[]string{"--timezone", "Europe/Berlin", noIDs}, []string{"NO", "no resource ID: its inventory names none (cloud.resource_ids"}},
	}
	for _, c := range cases {
		out := cost(c.args...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", c.args, w, out)
			}
		}
	}
	if code, _, errs := runCLI(t, "cost", "--billing", bill, "--timezone", "Mars/Olympus", a); code != exitInput || !strings.Contains(errs, `--timezone "Mars/Olympus"`) {
		t.Errorf("bad zone: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "ingest", "-o", filepath.Join(dir, "x.bundle"), "--sut", write("bad.yaml", "time_zone: CEST\n"), demo+"platform-a.json"); code != exitInput || !strings.Contains(errs, `time_zone "CEST" is not an IANA time zone name`) {
		t.Errorf("bad inventory zone: exit %d %s", code, errs)
	}
}
