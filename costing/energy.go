package costing

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// An EnergySample is one reading of a GPU's cumulative energy counter:
// NVML GetTotalEnergyConsumption or DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION,
// in millijoules since the driver was loaded. Key GPUs by UUID, not index.
type EnergySample struct {
	GPU         string
	Time        time.Time
	Millijoules uint64
}

// EnergyOptions configures MeasureEnergy. The zero value treats every
// decrease of a counter as a reset and warns when samples start or stop
// more than 5 s inside the window.
type EnergyOptions struct {
	// CounterMax is the largest value the counter holds before it wraps
	// to zero. When set, a decrease is read as a wrap:
	// delta = CounterMax − previous + current + 1. When zero (NVML's
	// 64-bit millijoule counter does not wrap in practice), a decrease is
	// a reset (driver reload): the energy since the reset, the current
	// value, is counted and the energy between the previous sample and
	// the reset is lost, with a warning.
	CounterMax uint64
	// MaxEdgeGap is how far the first and last samples may lie inside
	// the window before a warning says energy at the edges is missing;
	// 0 means 5 s.
	MaxEdgeGap time.Duration
}

// GPUEnergy is one GPU's energy over a window.
type GPUEnergy struct {
	GPU string
	// Samples counts the readings inside the window; First and Last are
	// the first and last of them. The energy covers [First, Last].
	Samples     int
	First, Last time.Time
	Millijoules uint64
	Resets      int // decreases read as resets
	Wraps       int // decreases read as wraps
	Warnings    []error
}

// Joules returns the GPU's energy in joules.
func (g GPUEnergy) Joules() float64 { return float64(g.Millijoules) / 1e3 }

// Energy is the GPU energy of a run window.
type Energy struct {
	Start, End time.Time
	GPUs       []GPUEnergy // sorted by GPU
	// Joules and KWh sum the GPUs. They cover GPU board power only: not
	// host CPUs, memory, network, cooling or power-supply losses.
	Joules   float64
	KWh      float64
	Warnings []error
}

// MeasureEnergy computes each GPU's energy in [start, end] as the sum of
// the differences of its cumulative counter between consecutive samples
// inside the window, i.e. the counter's last minus first reading when
// nothing reset. It never averages or integrates power. Samples may come
// in any order and mix GPUs.
func MeasureEnergy(samples []EnergySample, start, end time.Time, opts EnergyOptions) Energy {
	if opts.MaxEdgeGap == 0 {
		opts.MaxEdgeGap = 5 * time.Second
	}
	e := Energy{Start: start, End: end}
	byGPU := map[string][]EnergySample{}
	for _, s := range samples {
		if s.Time.Before(start) || s.Time.After(end) {
			continue
		}
		byGPU[s.GPU] = append(byGPU[s.GPU], s)
	}
	for gpu, ss := range byGPU {
		slices.SortStableFunc(ss, func(a, b EnergySample) int { return a.Time.Compare(b.Time) })
		g := GPUEnergy{GPU: gpu, Samples: len(ss), First: ss[0].Time, Last: ss[len(ss)-1].Time}
		for i := 1; i < len(ss); i++ {
			prev, cur := ss[i-1].Millijoules, ss[i].Millijoules
			switch {
			case cur >= prev:
				g.Millijoules += cur - prev
			case opts.CounterMax > 0 && prev <= opts.CounterMax:
				g.Wraps++
				g.Millijoules += opts.CounterMax - prev + cur + 1
			default:
				g.Resets++
				g.Millijoules += cur
				g.Warnings = append(g.Warnings, fmt.Errorf("costing: GPU %s energy counter fell from %d to %d mJ between %s and %s: read as a reset; energy before the reset in that interval is missing",
					gpu, prev, cur, fmtTime(ss[i-1].Time), fmtTime(ss[i].Time)))
			}
		}
		if len(ss) < 2 {
			g.Warnings = append(g.Warnings, fmt.Errorf("costing: GPU %s has %d counter sample(s) in the window: no energy measured", gpu, len(ss)))
		} else if g.First.Sub(start) > opts.MaxEdgeGap || end.Sub(g.Last) > opts.MaxEdgeGap {
			g.Warnings = append(g.Warnings, fmt.Errorf("costing: GPU %s counter samples cover %s to %s of window %s to %s: energy at the edges is not counted",
				gpu, fmtTime(g.First), fmtTime(g.Last), fmtTime(start), fmtTime(end)))
		}
		e.GPUs = append(e.GPUs, g)
	}
	slices.SortFunc(e.GPUs, func(a, b GPUEnergy) int { return cmp.Compare(a.GPU, b.GPU) })
	var mJ uint64
	for _, g := range e.GPUs {
		mJ += g.Millijoules
		e.Warnings = append(e.Warnings, g.Warnings...)
	}
	if len(e.GPUs) == 0 {
		e.Warnings = append(e.Warnings, fmt.Errorf("costing: no energy counter samples in window %s to %s", fmtTime(start), fmtTime(end)))
	}
	e.Joules = float64(mJ) / 1e3
	e.KWh = e.Joules / 3.6e6
	return e
}

// A Scope2Method names how Scope 2 (purchased electricity) emissions were
// computed. The GHG Protocol requires the two to be reported separately,
// and so does this package: they are never summed or compared.
type Scope2Method string

const (
	// LocationBasedMethod uses the average emission intensity of the grid
	// where the energy was consumed.
	LocationBasedMethod Scope2Method = "location-based"
	// MarketBasedMethod uses the emission factors of the electricity the
	// consumer contracted (supplier mix, PPAs, certificates).
	MarketBasedMethod Scope2Method = "market-based"
)

// An EmissionFactor is a carbon intensity the caller supplies, with its
// provenance; the package holds no factors of its own.
type EmissionFactor struct {
	GramsCO2ePerKWh float64
	// Source says where the factor comes from (grid operator, supplier
	// contract, dataset and year); it is repeated in results.
	Source string
	Region string
}

// Emissions is a Scope 2 figure for one method.
type Emissions struct {
	Method    Scope2Method
	KWh       float64
	Factor    EmissionFactor
	GramsCO2e float64
	// Scope states what the energy covers.
	Scope string
}

const energyScope = "GPU board energy only (no host, network, cooling or PSU losses)"

// LocationBased returns location-based Scope 2 emissions of e at the grid
// average intensity grid.
func LocationBased(e Energy, grid EmissionFactor) Emissions {
	return Emissions{Method: LocationBasedMethod, KWh: e.KWh, Factor: grid,
		GramsCO2e: e.KWh * grid.GramsCO2ePerKWh, Scope: energyScope}
}

// MarketBased returns market-based Scope 2 emissions of e at the
// contractual emission factor contract.
func MarketBased(e Energy, contract EmissionFactor) Emissions {
	return Emissions{Method: MarketBasedMethod, KWh: e.KWh, Factor: contract,
		GramsCO2e: e.KWh * contract.GramsCO2ePerKWh, Scope: energyScope}
}
