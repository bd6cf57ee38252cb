package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestReferenceCapacity checks the capacity reading against numpy:
// testdata/capacity_reference.json, written by
// testdata/make_capacity_reference.py, holds sweeps of lognormal latencies
// with each point's statistics (numpy.quantile, linear, averaged over the
// runs of a repeated point) and the capacity interpolated with
// numpy.interp between the last passing and first failing loads. Both
// compute the same formulas in floating point, so they agree to rounding.
func TestReferenceCapacity(t *testing.T) {
	b, err := os.ReadFile("testdata/capacity_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Numpy string
		Cases []struct {
			Name   string
			Limits []struct {
				Metric   string
				P, Bound float64
			}
			Points []struct {
				Load float64
				Runs []map[string][]float64
			}
			Statistics [][]float64
			Status     CapacityStatus
			Capacity   *float64
			LastPass   *float64 `json:"last_pass"`
			FirstFail  *float64 `json:"first_fail"`
			Binding    int
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 4 {
		t.Fatalf("%d cases", len(ref.Cases))
	}
	orNaN := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	same := func(got, want float64) bool {
		return math.IsNaN(got) && math.IsNaN(want) || close(got, want, 1e-12)
	}
	for _, c := range ref.Cases {
		var lims []CapacityLimit
		for _, l := range c.Limits {
			lims = append(lims, CapacityLimit{Metric: l.Metric, Statistic: QuantileStatistic(l.P, Linear), Bound: l.Bound})
		}
		var pts []LoadPoint
		for _, p := range c.Points {
			lp := LoadPoint{Load: p.Load}
			for _, r := range p.Runs {
				lp.Runs = append(lp.Runs, PointRun{Values: r})
			}
			pts = append(pts, lp)
		}
		got := CapacityUnderLimits(pts, CapacityOptions{Limits: lims, Series: SeriesOptions{Bootstrap: BootstrapOptions{Resamples: 200, Seed: 1}}})
		if got.Status != c.Status || got.Binding != c.Binding {
			t.Errorf("%s: status %s binding %d, numpy %s %d", c.Name, got.Status, got.Binding, c.Status, c.Binding)
		}
		for _, x := range []struct {
			name      string
			got, want float64
		}{{"capacity", got.Load, orNaN(c.Capacity)}, {"last pass", got.LastPass, orNaN(c.LastPass)}, {"first fail", got.FirstFail, orNaN(c.FirstFail)}} {
			if !same(x.got, x.want) {
				t.Errorf("%s: %s %.17g, numpy %.17g", c.Name, x.name, x.got, x.want)
			}
		}
		for i, row := range c.Statistics {
			for j, want := range row {
				if g := got.Points[i].Limits[j].Estimate; !close(g, want, 1e-12) {
					t.Errorf("%s: load %g %s: %.17g, numpy %.17g", c.Name, c.Points[i].Load, lims[j].Name(), g, want)
				}
			}
		}
	}
}
