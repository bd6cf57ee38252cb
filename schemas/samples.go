package schemas

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TableSamples is the resource-samples table: accelerator telemetry read
// from a tool's export (AIPerf, GenAI-Perf, DCGM) or sampled by capture.
const TableSamples = "samples"

// Units of resource samples.
const (
	UnitPercent = "%"
	UnitBytes   = "bytes"
	UnitWatts   = "W"
	UnitJoules  = "J"
	UnitMHz     = "MHz"
	UnitCelsius = "°C"
)

// LevelSample: one value per telemetry sample of one device.
const LevelSample Level = "sample"

// resourceDefinitions define the columns of the samples table.
var resourceDefinitions = []MetricDef{
	{ID: GPUUtilization, Name: "GPU utilization", Unit: UnitPercent, Level: LevelSample,
		Population: "samples of one device", Direction: NoDirection,
		Description: "Share of the last sample period in which a kernel ran on the GPU (NVML utilization.gpu, DCGM DCGM_FI_DEV_GPU_UTIL); not a measure of how full the SMs were."},
	{ID: GPUMemoryUsed, Name: "GPU memory used", Unit: UnitBytes, Level: LevelSample,
		Population: "samples of one device", Direction: NoDirection,
		Description: "Device memory in use at the sample time."},
	{ID: GPUMemoryTotal, Name: "GPU memory total", Unit: UnitBytes, Level: LevelSample,
		Population: "samples of one device", Direction: NoDirection,
		Description: "Device memory size."},
	{ID: GPUPower, Name: "GPU power", Unit: UnitWatts, Level: LevelSample,
		Population: "samples of one device", Direction: LowerIsBetter,
		Description: "Board power draw at the sample time (an average over the driver's short window)."},
	{ID: GPUEnergyCounter, Name: "GPU energy counter", Unit: UnitJoules, Level: LevelSample,
		Formula:    "cumulative counter since the driver loaded; energy over a window = last - first reading in it",
		Population: "samples of one device", Direction: NoDirection,
		Description: "Total energy consumed by the device as a cumulative counter. Never average it: take differences."},
	{ID: GPUSMClock, Name: "GPU SM clock", Unit: UnitMHz, Level: LevelSample,
		Population: "samples of one device", Direction: NoDirection,
		Description: "Streaming-multiprocessor clock at the sample time."},
	{ID: GPUTemperature, Name: "GPU temperature", Unit: UnitCelsius, Level: LevelSample,
		Population: "samples of one device", Direction: NoDirection,
		Description: "GPU core temperature at the sample time."},
}

// A Sample is one telemetry reading of one device at one time.
type Sample struct {
	RunID      string // the run whose window the sample belongs to; "" when not tied to one
	Source     string // "nvml", "dcgm", "aiperf", "genai-perf", ...
	Host       string
	Device     string // the device index as the source names it, e.g. "0"
	DeviceUUID string
	DeviceName string
	Time       time.Time

	UtilPct       Opt[float64] // gpu_utilization
	MemUsedBytes  Opt[int64]   // gpu_memory_used
	MemTotalBytes Opt[int64]   // gpu_memory_total
	PowerW        Opt[float64] // gpu_power
	EnergyJ       Opt[float64] // gpu_energy_counter (cumulative)
	SMClockMHz    Opt[float64] // gpu_sm_clock
	TempC         Opt[float64] // gpu_temperature
}

var samplesSchema = newTable(TableSamples, []arrow.Field{
	plain("run_id", str, true),
	plain("source", str, false),
	plain("host", str, true),
	plain("device", str, true),
	plain("device_uuid", str, true),
	plain("device_name", str, true),
	plain("time", tsUTC, false),
	metricField("util_pct", f64, GPUUtilization),
	metricField("mem_used_bytes", i64, GPUMemoryUsed),
	metricField("mem_total_bytes", i64, GPUMemoryTotal),
	metricField("power_w", f64, GPUPower),
	metricField("energy_j", f64, GPUEnergyCounter),
	metricField("sm_clock_mhz", f64, GPUSMClock),
	metricField("temp_c", f64, GPUTemperature),
})

// SamplesSchema is the Arrow schema of the samples table.
func SamplesSchema() *arrow.Schema { return samplesSchema }

// A SampleAppender appends samples to a builder made from SamplesSchema.
type SampleAppender struct{ f []array.Builder }

// NewSampleAppender binds an appender to b.
func NewSampleAppender(b *array.RecordBuilder) *SampleAppender { return &SampleAppender{b.Fields()} }

// Append appends one sample.
func (a *SampleAppender) Append(s *Sample) {
	f := a.f
	appendStr(f[0], s.RunID)
	f[1].(*array.StringBuilder).Append(s.Source)
	appendStr(f[2], s.Host)
	appendStr(f[3], s.Device)
	appendStr(f[4], s.DeviceUUID)
	appendStr(f[5], s.DeviceName)
	f[6].(*array.TimestampBuilder).Append(arrow.Timestamp(s.Time.UTC().UnixNano()))
	appendF64(f[7], s.UtilPct)
	appendI64(f[8], s.MemUsedBytes)
	appendI64(f[9], s.MemTotalBytes)
	appendF64(f[10], s.PowerW)
	appendF64(f[11], s.EnergyJ)
	appendF64(f[12], s.SMClockMHz)
	appendF64(f[13], s.TempC)
}

// DecodeSamples decodes every row of a samples record batch.
func DecodeSamples(rec arrow.RecordBatch) []Sample {
	c := newColumns(rec)
	out := make([]Sample, rec.NumRows())
	for i := range out {
		out[i] = Sample{
			RunID: c.str("run_id", i), Source: c.str("source", i), Host: c.str("host", i), Device: c.str("device", i),
			DeviceUUID: c.str("device_uuid", i), DeviceName: c.str("device_name", i), Time: c.ts("time", i).V,
			UtilPct: c.f64("util_pct", i), MemUsedBytes: c.i64("mem_used_bytes", i), MemTotalBytes: c.i64("mem_total_bytes", i),
			PowerW: c.f64("power_w", i), EnergyJ: c.f64("energy_j", i), SMClockMHz: c.f64("sm_clock_mhz", i), TempC: c.f64("temp_c", i),
		}
	}
	return out
}
