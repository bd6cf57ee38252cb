//go:build linux && cgo

package capture

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"github.com/verdict-llm/verdict/schemas"
)

// mockH200 returns go-nvml's DGX H200 mock with the telemetry calls the
// sampler makes filled in (the mock leaves them nil): device i draws
// 100+i W, has used 1 GiB, and its energy counter advances 1 J per call.
func mockH200() *server.Server {
	s := dgxh200.New()
	for i, d := range s.Devices {
		dev := d.(*server.Device)
		energy := uint64(1_000_000 * (i + 1)) // mJ
		dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: uint32(10 * i), Memory: 5}, nvml.SUCCESS
		}
		dev.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: dev.MemoryInfo.Total, Used: 1 << 30, Free: dev.MemoryInfo.Total - 1<<30}, nvml.SUCCESS
		}
		dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(100_000 + 1000*i), nvml.SUCCESS } // mW
		dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) {
			energy += 1000
			return energy, nvml.SUCCESS
		}
		dev.GetClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c != nvml.CLOCK_SM {
				return 0, nvml.ERROR_INVALID_ARGUMENT
			}
			return 1980, nvml.SUCCESS
		}
		dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) {
			if i == 7 {
				return 0, nvml.ERROR_NOT_SUPPORTED
			}
			return 40, nvml.SUCCESS
		}
	}
	return s
}

func TestNVMLMock(t *testing.T) {
	lib := mockH200()
	s, err := NewNVML(lib, "node-1")
	if err != nil {
		t.Fatal(err)
	}
	dev := s.Devices()
	if dev.GPUModel != "NVIDIA H200 141GB HBM3e" || dev.GPUCount != 8 || dev.Driver != "550.54.15" || dev.CUDA != "12.4" {
		t.Errorf("devices %+v", dev)
	}
	a, err := s.Sample(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Sample(t.Context())
	if len(a) != 8 || len(b) != 8 {
		t.Fatalf("%d, %d samples", len(a), len(b))
	}
	uuids := map[string]bool{}
	for i, x := range a {
		uuids[x.DeviceUUID] = true
		if x.Source != "nvml" || x.Host != "node-1" || x.DeviceName != dev.GPUModel || !strings.HasPrefix(x.DeviceUUID, "GPU-") {
			t.Errorf("sample %d labels %+v", i, x)
		}
		if x.PowerW.V != 100+float64(i) || x.UtilPct.V != float64(10*i) || x.SMClockMHz.V != 1980 || x.MemUsedBytes.V != 1<<30 || x.MemTotalBytes.V != 144384<<20 {
			t.Errorf("sample %d readings %+v", i, x)
		}
		// The energy counter is cumulative, in joules (mJ / 1000).
		if d := b[i].EnergyJ.V - x.EnergyJ.V; d != 1 || x.EnergyJ.V != float64(1000*(i+1))+1 {
			t.Errorf("device %d energy %v then %v", i, x.EnergyJ, b[i].EnergyJ)
		}
		if (i == 7) == x.TempC.OK {
			t.Errorf("device %d temperature %v: unsupported must be unknown", i, x.TempC)
		}
	}
	if len(uuids) != 8 {
		t.Error("samples must be keyed by distinct UUIDs")
	}
	if un := s.Unsupported(); len(un) != 1 || un[0] != "temperature" {
		t.Errorf("unsupported %v", un)
	}
	if err := s.Close(); err != nil || len(lib.ShutdownCalls()) != 1 {
		t.Errorf("close: %v, %d shutdowns", err, len(lib.ShutdownCalls()))
	}
	if _, err := s.Sample(t.Context()); err == nil {
		t.Error("sampling after Close")
	}
}

func TestNVMLInitFails(t *testing.T) {
	lib := mockH200()
	lib.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	if _, err := NewNVML(lib, ""); err == nil || !strings.Contains(err.Error(), "NVML unavailable: nvmlInit: ERROR_LIBRARY_NOT_FOUND") {
		t.Errorf("error %v", err)
	}
	lib = mockH200()
	lib.DeviceGetCountFunc = func() (int, nvml.Return) { return 0, nvml.SUCCESS }
	if _, err := NewNVML(lib, ""); err == nil || len(lib.ShutdownCalls()) != 1 {
		t.Errorf("no GPU: %v, %d shutdowns", err, len(lib.ShutdownCalls()))
	}
}

func TestNVMLCapture(t *testing.T) {
	_, url := startServer(t, quick)
	s, err := NewNVML(mockH200(), "")
	if err != nil {
		t.Fatal(err)
	}
	res, sink := runCapture(t, t.Context(), Options{Endpoint: url + "/v1/completions", Model: "m", Dataset: synthetic(t, 4, "5", "5"),
		Scenario: schemas.ScenarioSingleStream, NumPrompts: 4, Sampler: s, SampleInterval: 10 * time.Millisecond})
	if res.Samples < 16 || res.Run.SUT.GPUCount.V != 8 || res.Run.SUT.Driver != "550.54.15" {
		t.Errorf("%d samples, inventory %+v", res.Samples, res.Run.SUT)
	}
	for _, smp := range sink.Samples {
		if smp.RunID != res.Run.ID {
			t.Fatalf("sample of run %q", smp.RunID)
		}
	}
}

// TestNVMLReal samples the machine's GPUs for 2 s. It runs only with
// VERDICT_NVML_REAL=1, on a machine with an NVIDIA driver.
func TestNVMLReal(t *testing.T) {
	if os.Getenv("VERDICT_NVML_REAL") != "1" {
		t.Skip("set VERDICT_NVML_REAL=1 to sample a real GPU")
	}
	s, err := OpenNVML()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dev := s.Devices()
	t.Logf("devices: %+v", dev)
	if dev.GPUCount < 1 || dev.GPUModel == "" || dev.Driver == "" {
		t.Errorf("devices %+v", dev)
	}
	var rounds [][]schemas.Sample
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		ss, err := s.Sample(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		rounds = append(rounds, ss)
		time.Sleep(250 * time.Millisecond)
	}
	first, last := rounds[0], rounds[len(rounds)-1]
	for i, x := range last {
		t.Logf("%s %s: util %v%% mem %v/%v B power %v W energy %v J sm %v MHz temp %v °C",
			x.DeviceUUID, x.DeviceName, x.UtilPct.V, x.MemUsedBytes.V, x.MemTotalBytes.V, x.PowerW.V, x.EnergyJ.V, x.SMClockMHz.V, x.TempC.V)
		if !strings.HasPrefix(x.DeviceUUID, "GPU-") && !strings.HasPrefix(x.DeviceUUID, "MIG-") {
			t.Errorf("UUID %q", x.DeviceUUID)
		}
		if !x.MemTotalBytes.OK || x.MemTotalBytes.V < 1<<30 || x.MemUsedBytes.V > x.MemTotalBytes.V {
			t.Errorf("memory %v / %v", x.MemUsedBytes, x.MemTotalBytes)
		}
		if x.PowerW.OK && (x.PowerW.V <= 0 || x.PowerW.V > 2000) {
			t.Errorf("power %v W", x.PowerW.V)
		}
		if x.UtilPct.OK && x.UtilPct.V > 100 {
			t.Errorf("utilization %v %%", x.UtilPct.V)
		}
		if x.TempC.OK && (x.TempC.V < 5 || x.TempC.V > 110) {
			t.Errorf("temperature %v °C", x.TempC.V)
		}
		if x.SMClockMHz.OK && x.SMClockMHz.V > 5000 {
			t.Errorf("SM clock %v MHz", x.SMClockMHz.V)
		}
		// The energy counter must not run backwards, and over 2 s an
		// idle-to-busy GPU draws between a few and a few thousand J.
		if x.EnergyJ.OK {
			d := x.EnergyJ.V - first[i].EnergyJ.V
			if d < 0 || d > 5000 {
				t.Errorf("energy counter moved %v J in 2 s", d)
			}
		}
	}
}
