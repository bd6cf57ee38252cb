//go:build linux && cgo

package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/verdict-llm/verdict/schemas"
)

// NVML samples the local GPUs through NVML (libnvidia-ml, loaded at run
// time). It depends on nvml.Interface only, so tests drive it with
// go-nvml's mocks.
type NVML struct {
	lib     nvml.Interface
	devs    []nvmlDevice
	info    Devices
	host    string
	closed  bool
	unknown map[string]bool // readings a device did not support
}

type nvmlDevice struct {
	d     nvml.Device
	index string
	uuid  string
	name  string
}

// OpenNVML initialises NVML from the system library. Without a driver it
// returns an error wrapping ErrNVMLUnavailable.
func OpenNVML() (Sampler, error) {
	s, err := NewNVML(nvml.New(), "")
	if err != nil {
		return nil, err
	}
	return s, nil
}

// NewNVML initialises lib and enumerates its devices; host labels the
// samples. Close shuts lib down.
func NewNVML(lib nvml.Interface, host string) (*NVML, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("%w: nvmlInit: %s", ErrNVMLUnavailable, ret.Error())
	}
	fail := func(what string, ret nvml.Return) (*NVML, error) {
		lib.Shutdown()
		return nil, fmt.Errorf("%w: %s: %s", ErrNVMLUnavailable, what, ret.Error())
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return fail("nvmlDeviceGetCount", ret)
	}
	if n == 0 {
		lib.Shutdown()
		return nil, fmt.Errorf("%w: NVML sees no GPU", ErrNVMLUnavailable)
	}
	s := &NVML{lib: lib, host: host, unknown: map[string]bool{}}
	var names []string
	for i := range n {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return fail(fmt.Sprintf("nvmlDeviceGetHandleByIndex(%d)", i), ret)
		}
		uuid, ret := d.GetUUID()
		if ret != nvml.SUCCESS {
			return fail(fmt.Sprintf("nvmlDeviceGetUUID(%d)", i), ret)
		}
		name, _ := d.GetName()
		s.devs = append(s.devs, nvmlDevice{d: d, index: fmt.Sprint(i), uuid: uuid, name: name})
		names = append(names, name)
	}
	s.info = Devices{GPUModel: modelOf(names), GPUCount: n}
	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		s.info.Driver = v
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS && v > 0 {
		s.info.CUDA = fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
	}
	return s, nil
}

// Source implements Sampler.
func (s *NVML) Source() string { return "nvml" }

// Devices implements Sampler.
func (s *NVML) Devices() Devices { return s.info }

// Sample implements Sampler: per device, GPU utilization (%), memory used
// and total (bytes; used is total - free as nvmlDeviceGetMemoryInfo
// reports it, driver-reserved memory included), power (mW -> W), the total
// energy counter (mJ -> J), SM clock (MHz) and GPU temperature (°C).
// Readings the device does not support stay unknown.
func (s *NVML) Sample(ctx context.Context) ([]schemas.Sample, error) {
	if s.closed {
		return nil, fmt.Errorf("nvml: sampler closed")
	}
	out := make([]schemas.Sample, 0, len(s.devs))
	for _, dv := range s.devs {
		d := dv.d
		smp := schemas.Sample{Source: "nvml", Host: s.host, Device: dv.index, DeviceUUID: dv.uuid, DeviceName: dv.name, Time: time.Now().UTC()}
		note := func(what string, ret nvml.Return) bool {
			if ret != nvml.SUCCESS {
				s.unknown[what] = true
				return false
			}
			return true
		}
		if u, ret := d.GetUtilizationRates(); note("utilization", ret) {
			smp.UtilPct = schemas.Some(float64(u.Gpu))
		}
		if m, ret := d.GetMemoryInfo(); note("memory", ret) {
			smp.MemUsedBytes = schemas.Some(int64(m.Used))
			smp.MemTotalBytes = schemas.Some(int64(m.Total))
		}
		if p, ret := d.GetPowerUsage(); note("power", ret) {
			smp.PowerW = schemas.Some(float64(p) / 1000)
		}
		if e, ret := d.GetTotalEnergyConsumption(); note("energy", ret) {
			smp.EnergyJ = schemas.Some(float64(e) / 1000)
		}
		if c, ret := d.GetClockInfo(nvml.CLOCK_SM); note("sm clock", ret) {
			smp.SMClockMHz = schemas.Some(float64(c))
		}
		if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); note("temperature", ret) {
			smp.TempC = schemas.Some(float64(t))
		}
		out = append(out, smp)
	}
	return out, nil
}

// Unsupported lists the readings some device did not return.
func (s *NVML) Unsupported() []string { return sortedKeys(s.unknown) }

// Close implements Sampler.
func (s *NVML) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if ret := s.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("nvml: shutdown: %s", ret.Error())
	}
	return nil
}
