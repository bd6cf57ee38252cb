package aiperf

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/genaiperf/jtree"
	"github.com/verdict-llm/verdict/schemas"
)

// GPU energy from AIPerf's telemetry (docs/formats/aiperf-energy.md).
// energy_consumption is DCGM's cumulative counter (in MJ): its statistics
// are statistics of a counter, so the energy used is last - first per GPU,
// never an average. One GPU can be scraped by two DCGM exporters (AIPerf
// always adds :9400 to the endpoints the user gives), so GPUs are keyed by
// UUID and each counted once.

// zeroUUID is how AIPerf's aggregated JSON anonymises UUIDs in published
// fixtures; readings under it cannot be told apart.
const zeroUUID = "GPU-00000000-0000-0000-0000-000000000000"

// gpuCounter is one GPU's counter over the window, from one exporter.
type gpuCounter struct {
	uuid        string
	first, last float64 // joules
	power       float64 // mean sampled board power, W (summary only)
	powerOK     bool
	exporters   int
	reset       bool
}

// telemetryEnergy computes the run's GPU energy from telemetry_data's
// per-GPU statistics: max - min of the counter for each distinct GPU.
func (s *summaryRun) telemetryEnergy(t *jtree.Node, sink ingest.Sink) error {
	byUUID := map[string]*gpuCounter{}
	var order []string
	for _, ep := range t.Get("endpoints").Fields() {
		for _, g := range ep.Val.Get("gpus").Fields() {
			e := g.Val.Path("metrics", "energy_consumption")
			if e.IsNull() {
				continue
			}
			unit, _ := e.Get("unit").Str()
			lo, okLo := e.Get("min").Float()
			hi, okHi := e.Get("max").Float()
			if unit != "MJ" || !okLo || !okHi || hi < lo || math.IsNaN(lo) || math.IsInf(hi, 0) {
				sink.Reject(schemas.Rejection{Table: schemas.TableMetrics, Line: e.Pos.Line, Column: e.Pos.Col, Record: s.record,
					Field: "telemetry_data.endpoints." + ep.Key + ".gpus." + g.Key + ".metrics.energy_consumption", Reason: "expected min <= max in MJ"})
				continue
			}
			uuid, _ := g.Val.Get("gpu_uuid").Str()
			if uuid == "" {
				uuid = ep.Key + "/" + g.Key
			}
			c := &gpuCounter{uuid: uuid, first: lo * 1e6, last: hi * 1e6, exporters: 1}
			c.power, c.powerOK = g.Val.Path("metrics", "gpu_power_usage", "avg").Float()
			if old, dup := byUUID[uuid]; dup {
				// The same GPU from another exporter: its readings are one
				// counter, so the window's first and last readings are
				// the lowest and highest of both.
				old.exporters++
				old.first, old.last = min(old.first, c.first), max(old.last, c.last)
				continue
			}
			byUUID[uuid] = c
			order = append(order, uuid)
		}
	}
	if len(byUUID) == 0 {
		return nil
	}
	start, okS := localTime(t.Path("summary", "start_time"))
	end, okE := localTime(t.Path("summary", "end_time"))
	window := 0.0
	if okS && okE && end.After(start) {
		window = end.Sub(start).Seconds()
	}
	return s.emitEnergy(sink, byUUID, order, window, "max - min of each GPU's energy_consumption statistics (MJ)")
}

// emitEnergy writes gpu_energy, gpu_avg_power over window (when known) and,
// for one GPU, its mean sampled power; it warns about GPUs counted once
// for several exporters.
func (s *summaryRun) emitEnergy(sink ingest.Sink, byUUID map[string]*gpuCounter, order []string, window float64, how string) error {
	return emitEnergy(sink, s.path, s.run.ID, byUUID, order, window, how)
}

func emitEnergy(sink ingest.Sink, path, runID string, byUUID map[string]*gpuCounter, order []string, window float64, how string) error {
	total := 0.0
	for _, u := range order {
		c := byUUID[u]
		if c.reset {
			sink.Warn(fmt.Sprintf("%s: GPU %s's energy counter fell during the window (a driver reload): the run's GPU energy is unknown", path, u))
			return nil
		}
		total += c.last - c.first
		if c.exporters > 1 {
			msg := fmt.Sprintf("%s: GPU %s is reported by %d DCGM exporters; its energy is counted once", path, u, c.exporters)
			if u == zeroUUID {
				msg += " (the UUID is anonymised, so the readings are taken to be one GPU)"
			}
			sink.Warn(msg)
		}
	}
	add := func(id schemas.MetricID, v float64, note string) error {
		m := schemas.Metric{RunID: runID, MetricID: id, Stat: schemas.StatValue, Value: schemas.Some(v), Unit: schemas.MustLookup(id).Unit,
			Source: schemas.SourceComputed, N: schemas.Some(int64(len(order))), Note: note}
		return sink.Metric(&m)
	}
	if err := add(schemas.GPUEnergy, total, how+", GPUs counted once by UUID"); err != nil {
		return err
	}
	if window > 0 {
		if err := add(schemas.GPUAvgPower, total/window, "gpu_energy / the telemetry window"); err != nil {
			return err
		}
	}
	if c := byUUID[order[0]]; len(order) == 1 && c.powerOK {
		m := schemas.Metric{RunID: runID, MetricID: schemas.GPUPower, Stat: schemas.StatMean, Value: schemas.Some(c.power), Unit: schemas.UnitWatts,
			Method: "arithmetic", Source: schemas.SourceReported, NativeName: "gpu_power_usage.avg",
			Note: "mean of the sampled board power; it need not equal the counter-derived gpu_avg_power"}
		return sink.Metric(&m)
	}
	return nil
}

// localTime reads AIPerf's telemetry times (ISO-8601, local, no zone).
func localTime(n *jtree.Node) (time.Time, bool) {
	s, ok := n.Str()
	if !ok {
		return time.Time{}, false
	}
	for _, l := range []string{"2006-01-02T15:04:05.999999999", time.RFC3339Nano} {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// energySink watches the samples of a standalone gpu_telemetry_export.jsonl
// and keeps each GPU's counter readings per exporter.
type energySink struct {
	ingest.Sink
	readings map[string]map[string][]reading // GPU -> exporter (host) -> readings
}

type reading struct {
	t time.Time
	j float64
}

func (e *energySink) Sample(s *schemas.Sample) error {
	if s.EnergyJ.OK {
		if e.readings == nil {
			e.readings = map[string]map[string][]reading{}
		}
		key := s.DeviceUUID
		if key == "" {
			key = s.Host + "/" + s.Device
		}
		if e.readings[key] == nil {
			e.readings[key] = map[string][]reading{}
		}
		e.readings[key][s.Host] = append(e.readings[key][s.Host], reading{s.Time, s.EnergyJ.V})
	}
	return e.Sink.Sample(s)
}

// emit writes the standalone run's energy. Each exporter's readings of a
// GPU are one series in time order (a fall within it is a counter reset);
// the GPU's window runs from the lowest first reading to the highest last
// one over its exporters, whose scrapes interleave and differ by the
// counter's update lag.
func (e *energySink) emit(path, runID string) error {
	if len(e.readings) == 0 {
		return nil
	}
	byUUID := map[string]*gpuCounter{}
	var order []string
	var first, last time.Time
	for u, hosts := range e.readings {
		c := &gpuCounter{uuid: u, first: math.Inf(1), last: math.Inf(-1), exporters: len(hosts)}
		for _, rs := range hosts {
			sort.SliceStable(rs, func(i, j int) bool { return rs[i].t.Before(rs[j].t) })
			for i := 1; i < len(rs); i++ {
				c.reset = c.reset || rs[i].j < rs[i-1].j
			}
			c.first, c.last = min(c.first, rs[0].j), max(c.last, rs[len(rs)-1].j)
			if first.IsZero() || rs[0].t.Before(first) {
				first = rs[0].t
			}
			if rs[len(rs)-1].t.After(last) {
				last = rs[len(rs)-1].t
			}
		}
		byUUID[u], order = c, append(order, u)
	}
	slices.Sort(order)
	return emitEnergy(e.Sink, path, runID, byUUID, order, last.Sub(first).Seconds(),
		"last - first energy_consumption reading of each GPU over its exporters")
}
