package costing

import (
	"fmt"
	"math"
	"time"
)

// TokenEnergy is the GPU energy of a run per output token, from the
// energy counters' differences over the run window ([MeasureEnergy]),
// never from an average of power samples.
type TokenEnergy struct {
	// Joules is the GPU energy over the window and OutputTokens the
	// tokens generated in it (successful requests).
	Joules       float64
	OutputTokens float64
	// JoulesPerToken is Joules / OutputTokens.
	JoulesPerToken float64
	// TokensPerSecondPerKW is the throughput per kilowatt of mean GPU
	// power: (tokens / window) / (Joules / window / 1000), which is
	// 1000 / JoulesPerToken, tokens per kilojoule. The window cancels, so
	// it needs no power samples.
	TokensPerSecondPerKW float64
	// Coverage is the smallest share of the window that any GPU's counter
	// samples span; below 1 the edges' energy is missing and
	// JoulesPerToken is low by up to that share.
	Coverage float64
	// Scope states what the energy covers (GPU boards only).
	Scope    string
	Warnings []error
}

// minCoverage is the counter coverage below which EnergyPerToken warns.
const minCoverage = 0.95

// EnergyPerToken divides the energy of e by the output tokens generated in
// its window. It warns when the counters cover less than 95% of the
// window, and gives NaN ratios without tokens or energy.
func EnergyPerToken(e Energy, outputTokens float64) TokenEnergy {
	t := TokenEnergy{Joules: e.Joules, OutputTokens: outputTokens, JoulesPerToken: math.NaN(),
		TokensPerSecondPerKW: math.NaN(), Coverage: coverage(e), Scope: energyScope}
	t.Warnings = append(t.Warnings, e.Warnings...)
	switch {
	case len(e.GPUs) == 0 || !(e.Joules > 0):
		t.Warnings = append(t.Warnings, fmt.Errorf("costing: no GPU energy measured in the window; no energy per token"))
		return t
	case !(outputTokens > 0):
		t.Warnings = append(t.Warnings, fmt.Errorf("costing: no output tokens in the window; no energy per token"))
		return t
	}
	t.JoulesPerToken = e.Joules / outputTokens
	t.TokensPerSecondPerKW = 1000 / t.JoulesPerToken
	if t.Coverage < minCoverage {
		t.Warnings = append(t.Warnings, fmt.Errorf("costing: the energy counters cover %.0f%% of the run window; energy at the edges is missing, so %.4g J/token is low",
			100*t.Coverage, t.JoulesPerToken))
	}
	return t
}

// coverage is the smallest share of the window any GPU's samples span.
func coverage(e Energy) float64 {
	win := e.End.Sub(e.Start)
	if win <= 0 || len(e.GPUs) == 0 {
		return math.NaN()
	}
	c := 1.0
	for _, g := range e.GPUs {
		span := g.Last.Sub(g.First)
		if g.Samples < 2 {
			span = 0
		}
		c = min(c, float64(span)/float64(win))
	}
	return c
}

// TokenEmissions is a Scope 2 figure per million output tokens, labelled
// with its method; location- and market-based figures are never summed or
// compared.
type TokenEmissions struct {
	Method Scope2Method
	// GramsCO2ePerMTokens is the emissions of the energy of one million
	// output tokens at the factor.
	GramsCO2ePerMTokens float64
	Factor              EmissionFactor
	Scope               string
}

// PerMillionTokens returns the emissions of em spread over the tokens of
// t, per million output tokens, keeping em's method and factor.
func (t TokenEnergy) PerMillionTokens(em Emissions) TokenEmissions {
	per := math.NaN()
	if t.OutputTokens > 0 {
		per = em.GramsCO2e / t.OutputTokens * 1e6
	}
	return TokenEmissions{Method: em.Method, GramsCO2ePerMTokens: per, Factor: em.Factor, Scope: em.Scope}
}

// EnergySamplesFromJoules converts cumulative counter readings in joules
// (the samples table's energy_j) into the millijoule EnergySamples
// MeasureEnergy reads, rounding to the millijoule; negative or non-finite
// readings are skipped and counted.
func EnergySamplesFromJoules(gpu []string, times []time.Time, joules []float64) (out []EnergySample, skipped int) {
	for i := range joules {
		j := joules[i]
		if math.IsNaN(j) || math.IsInf(j, 0) || j < 0 {
			skipped++
			continue
		}
		out = append(out, EnergySample{GPU: gpu[i], Time: times[i], Millijoules: uint64(math.Round(j * 1000))})
	}
	return out, skipped
}
