package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/verdict-llm/verdict/internal/gen"
)

const capacityDemo = "../../testdata/capacity/"

// capacityBundles ingests the hand-made two-platform sweep as the README
// does.
func capacityBundles(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for _, p := range []string{"h100", "l40s"} {
		files, _ := filepath.Glob(capacityDemo + p + "/*.json")
		dest := filepath.Join(dir, p+".bundle")
		args := append([]string{"ingest", "--sut", capacityDemo + "sut-" + p + ".yaml", "--label", "platform=" + p, "-o", dest}, files...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("ingest: %s", errs)
		}
		out = append(out, dest)
	}
	return out[0], out[1]
}

func TestCapacityCommand(t *testing.T) {
	a, b := capacityBundles(t)
	plots := filepath.Join(t.TempDir(), "plots")
	code, out, errs := runCLI(t, "capacity", "--slo", "ttft:p99<=500ms,tpot:p99<=80ms", "--resamples", "500",
		"--quote", capacityDemo+"quote-h100.yaml", "--quote", capacityDemo+"quote-l40s.yaml", "--interactivity", "35", "--plots", plots, a, b)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	cliGolden(t, "capacity-demo.table", strings.ReplaceAll(out, filepath.Dir(a), "DIR"))
	for _, name := range []string{"capacity.svg", "capacity.png", "capacity-latency-vs-throughput.svg", "pareto-frontier.png"} {
		if fi, err := os.Stat(filepath.Join(plots, name)); err != nil || fi.Size() == 0 {
			t.Errorf("figure %s: %v", name, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capacity", a}, "give the limits with --slo"},
		{[]string{"capacity", "--slo", "ttft:p99<=2"}, "give at least one BUNDLE"},
		{[]string{"capacity", "--slo", "ttft:p99<=2", a}, "--slo:"},
		{[]string{"capacity", "--slo", "ttft:p99<=2s", "--interval", "bags", a}, "--interval"},
		{[]string{"capacity", "--slo", "ttft:p99<=2s", "--axis", "time", a}, "--axis"},
		{[]string{"capacity", "--slo", "ttft:p99<=2s", "--quote", "x.yaml", "--quote", "y.yaml", "--quote", "z.yaml", a, b}, "--quote"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("verdict %s: %d %q", strings.Join(c.args, " "), code, errs)
		}
	}
}

// TestReportCapacity: verdict report --slo adds the capacity section to
// every output.
func TestReportCapacity(t *testing.T) {
	a, b := capacityBundles(t)
	dir := t.TempDir()
	html, md := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.md")
	code, out, errs := runCLI(t, "report", "--resamples", "200", "--slo", "ttft:p99<=500ms", "--interval", "stationary",
		"--html", html, "--markdown", md, a, b)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	if !strings.Contains(out, "Capacity under ttft:p99<=500ms") || !strings.Contains(out, "(--interval stationary)") {
		t.Errorf("stdout lacks the capacity summary:\n%s", out)
	}
	// --interval applies to the run figures and differences too.
	if !strings.Contains(out, "of the run figures and of the differences (--interval stationary): stationary bootstrap") {
		t.Errorf("stdout does not say the run figures resample as stationary blocks:\n%s", out)
	}
	for _, c := range []struct{ path, want string }{{html, `id="capacity"`}, {html, "Throughput per GPU vs interactivity"}, {md, "Sweep of h100.bundle"}} {
		data, err := os.ReadFile(c.path)
		if err != nil || !strings.Contains(string(data), c.want) {
			t.Errorf("%s lacks %q (%v)", c.path, c.want, err)
		}
	}
	if code, _, errs := runCLI(t, "report", "--slo", "ttft<=1s", a); code != 2 || !strings.Contains(errs, "goodput>=SHARE") {
		t.Errorf("bad --slo: %d %s", code, errs)
	}
}

// TestCapacityUnknownGPUs: a sweep without a GPU count has no throughput
// per GPU: "-" in the tables (as the sweep tables write an unknown), null
// in JSON, never "nan".
func TestCapacityUnknownGPUs(t *testing.T) {
	files, _ := filepath.Glob(capacityDemo + "h100/*.json")
	dest := filepath.Join(t.TempDir(), "nogpu.bundle")
	if code, _, errs := runCLI(t, append([]string{"ingest", "-o", dest}, files...)...); code != 0 {
		t.Fatalf("ingest: %s", errs)
	}
	args := []string{"capacity", "--resamples", "100", "--slo", "ttft:p99<=500ms", dest}
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	if strings.Contains(strings.ToLower(out), "nan") {
		t.Errorf("table prints nan:\n%s", out)
	}
	// The summary row ends "... tokens/s  -": the throughput, then per GPU
	// (no cost or energy here, so those cells are empty).
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "nogpu.bundle ") {
			row = l
			break
		}
	}
	if f := strings.Fields(row); len(f) < 2 || f[len(f)-1] != "-" || f[len(f)-2] != "tokens/s" {
		t.Errorf("summary row lacks '-' per GPU: %q", row)
	}
	code, out, errs = runCLI(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", "json", "capacity.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out)); err != nil || sch.Validate(inst) != nil {
		t.Errorf("does not match docs/json/capacity.schema.json: %v %v", err, sch.Validate(inst))
	}
	var doc struct {
		Configurations []map[string]json.RawMessage `json:"configurations"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Configurations) != 1 {
		t.Fatalf("%v %d", err, len(doc.Configurations))
	}
	if got := string(doc.Configurations[0]["throughput_per_gpu"]); got != "null" {
		t.Errorf("throughput_per_gpu = %s, want null", got)
	}
	if got := string(doc.Configurations[0]["gpu_count"]); got != "0" {
		t.Errorf("gpu_count = %s, want 0", got)
	}
}

// TestCapacityBilling: --billing prices the capacity point at the bill's
// steady rate. gen.TwoLoadBundle's sweep on i-0c0ffee0c0ffee001 meets
// ttft:p99<=400ms up to 1.5 requests/s, 20 output tokens/s; the hand-made
// bill testdata/capacity/focus-capacity.csv charges its two 100 s runs at
// 3.60 and 7.20 USD per hour, 5.40 USD per hour over both, so 5.40 / 3600
// * 1e6 / 20 = 75 USD per 1M output tokens; with --basis list (4.00 and
// 8.00 USD) 6.00 USD per hour and 83.33 USD. verdict report --slo carries
// the bill into its capacity section.
func TestCapacityBilling(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "sweep.bundle")
	if err := gen.TwoLoadBundle(b, time.Date(2026, 11, 24, 10, 10, 0, 0, time.UTC), []string{"i-0c0ffee0c0ffee001"}); err != nil {
		t.Fatal(err)
	}
	bill := capacityDemo + "focus-capacity.csv"
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", "json", "capacity.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		basis         string
		perHour, perM float64
	}{{"", 5.40, 75}, {"list", 6, 6.0 / 3600 * 1e6 / 20}} {
		args := []string{"capacity", "--resamples", "200", "--slo", "ttft:p99<=400ms", "--billing", bill, "--format", "json", b}
		if c.basis != "" {
			args = append(args, "--basis", c.basis)
		}
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%d %s", code, errs)
		}
		if inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out)); err != nil || sch.Validate(inst) != nil {
			t.Errorf("does not match docs/json/capacity.schema.json: %v %v", err, sch.Validate(inst))
		}
		var doc struct {
			Configurations []struct {
				Cost struct {
					Source     string   `json:"source"`
					Billing    []string `json:"billing"`
					BilledRuns int      `json:"billed_runs"`
					Runs       int      `json:"runs"`
					PerHour    float64  `json:"per_hour"`
					PerMillion struct {
						Value float64 `json:"value"`
					} `json:"per_million_output_tokens"`
				} `json:"cost"`
			} `json:"configurations"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Configurations) != 1 {
			t.Fatalf("%v\n%s", err, out)
		}
		x := doc.Configurations[0].Cost
		if x.Source != "bill" || len(x.Billing) != 1 || x.BilledRuns != 2 || x.Runs != 2 || math.Abs(x.PerHour-c.perHour) > 1e-9 || math.Abs(x.PerMillion.Value-c.perM) > 1e-9 {
			t.Errorf("basis %q: cost %+v, want a bill of 2 runs at %v per hour, %v per 1M", c.basis, x, c.perHour, c.perM)
		}
	}
	code, out, errs := runCLI(t, "report", "--resamples", "200", "--slo", "ttft:p99<=400ms", "--billing", bill, b)
	if code != 0 {
		t.Fatalf("report: %d %s", code, errs)
	}
	if !strings.Contains(out, "75 [75, 75] USD (bill)") {
		t.Errorf("report's capacity section lacks the bill's cost per 1M tokens:\n%s", out)
	}
	if code, _, errs := runCLI(t, "capacity", "--slo", "ttft:p99<=400ms", "--billing", filepath.Join(dir, "none.csv"), b); code != 2 || !strings.Contains(errs, "none.csv") {
		t.Errorf("missing bill: %d %s", code, errs)
	}
}
