package vllm

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/internal/jsonscan"

	"github.com/verdict-llm/verdict/schemas"
)

// energyKeys are the NVML energy members `vllm bench throughput
// --energy-gpu-ids` merges into its --output-json (vllm/benchmarks/lib
// /energy.py; docs/formats/vllm-bench.md section 2). They are absent, not null, when
// NVML was unavailable, a counter reset was seen or the window was empty.
var energyKeys = []string{"gpu_energy_j", "gpu_avg_power_w", "gpu_energy_per_output_token_j", "gpu_energy_duration_s", "energy_gpu_ids"}

// energy reads the energy members of a throughput run: whole-board energy
// of the selected GPUs summed (gpu_energy), its mean power over the energy
// window (gpu_avg_power), energy per output token. The window is the
// meter's, which includes request preparation and is longer than
// elapsed_time; it is kept as a label, and the average power is checked
// against energy / window.
func (r *runReader) energy(run *schemas.Run) error {
	base := schemas.Metric{RunID: run.ID, Stat: schemas.StatValue, Source: schemas.SourceReported}
	vals := map[string]schemas.Opt[float64]{}
	for _, k := range []struct {
		key string
		id  schemas.MetricID
	}{{"gpu_energy_j", schemas.GPUEnergy}, {"gpu_avg_power_w", schemas.GPUAvgPower}, {"gpu_energy_per_output_token_j", schemas.GPUEnergyPerOutputToken}} {
		v, err := r.num(k.key)
		if err != nil {
			return err
		}
		if !v.OK {
			continue
		}
		if v.V < 0 || math.IsNaN(v.V) || math.IsInf(v.V, 0) {
			mv, _ := r.rec.get(k.key)
			r.sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: mv.pos.Line, Column: mv.pos.Col,
				Record: r.recordName(), Field: k.key, Reason: "energy and power must be finite and non-negative"})
			continue
		}
		vals[k.key] = v
		m := base
		m.MetricID, m.Unit, m.NativeName, m.Value = k.id, schemas.MustLookup(k.id).Unit, k.key, v
		m.Note = "NVML total energy counters of the selected GPUs, summed; the window includes request preparation"
		if err := r.sink.Metric(&m); err != nil {
			return err
		}
	}
	dur, err := r.num("gpu_energy_duration_s")
	if err != nil {
		return err
	}
	if dur.OK {
		if run.Labels == nil {
			run.Labels = map[string]string{}
		}
		run.Labels["vllm.energy_window_s"] = strconv.FormatFloat(dur.V, 'g', -1, 64)
	}
	if ids, ok := r.use("energy_gpu_ids"); ok {
		text, err := r.gpuIDs(ids)
		if err != nil {
			return err
		}
		if run.Labels == nil {
			run.Labels = map[string]string{}
		}
		run.Labels["vllm.energy_gpu_ids"] = text
	}
	e, p := vals["gpu_energy_j"], vals["gpu_avg_power_w"]
	if e.OK && p.OK && dur.OK && dur.V > 0 {
		if want := e.V / dur.V; math.Abs(want-p.V) > 1e-6*math.Max(1, p.V) {
			r.sink.Warn(fmt.Sprintf("%s: gpu_avg_power_w %v is not gpu_energy_j / gpu_energy_duration_s = %v", r.recordName(), p.V, want))
		}
	}
	return nil
}

// gpuIDs renders the physical NVML indices the energy was read on.
func (r *runReader) gpuIDs(v value) (string, error) {
	if v.kind != jsonscan.BeginArray {
		text, _ := labelText(v)
		return text, nil
	}
	if v.n == 0 {
		return "[]", nil
	}
	c, err := openCursor(r.in, "energy_gpu_ids", v)
	if err != nil {
		return "", err
	}
	defer c.close()
	var parts []string
	for i := 0; i < v.n; i++ {
		tok, err := c.next()
		if err != nil {
			return "", err
		}
		parts = append(parts, string(tok.Raw))
		if err := c.sc.Skip(tok); err != nil {
			return "", syntaxErr(r.in.Path, err)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}
