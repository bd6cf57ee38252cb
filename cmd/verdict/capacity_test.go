package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
