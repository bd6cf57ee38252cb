package capture

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/internal/testkit"
)

// golden compares got with testdata/name (testkit.Golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got)
}

var scrapeTime = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestDCGMFixtures(t *testing.T) {
	dir := testkit.Corpus(t, "dcgm")
	files, _ := filepath.Glob(filepath.Join(dir, "*.prom"))
	if len(files) == 0 {
		testkit.NoCorpus(t, "no DCGM scrapes (*.prom) in %s", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			sc, err := ParseDCGM(in, scrapeTime)
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Warnings) > 0 {
				t.Errorf("warnings on a real scrape: %v", sc.Warnings)
			}
			out, _ := json.MarshalIndent(sc, "", "  ")
			golden(t, filepath.Join("dcgm", strings.TrimSuffix(filepath.Base(f), ".prom")+".golden.json"), append(out, '\n'))
		})
	}
}

func TestDCGMFacts(t *testing.T) {
	read := func(name string) *DCGMScrape {
		t.Helper()
		in, err := os.Open(testkit.CorpusFile(t, "dcgm", name))
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		sc, err := ParseDCGM(in, scrapeTime)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	// The facts SOURCES.md states about the fixtures.
	l4 := read("dcgm-exporter_l4_aws_default-counters.prom")
	if len(l4.Samples) != 1 || l4.Driver != "580.105.08" {
		t.Fatalf("L4: %+v", l4)
	}
	s := l4.Samples[0]
	if s.DeviceUUID != "GPU-c2f76b33-7953-256e-8f33-1343419b1a1c" || s.DeviceName != "NVIDIA L4" || s.Host != "i-030791dc5a37cd257" || s.Device != "0" {
		t.Errorf("L4 labels %+v", s)
	}
	if s.PowerW.V != 16.365 || s.EnergyJ.V != 4742.776 || s.SMClockMHz.V != 210 || s.TempC.V != 31 || s.UtilPct.V != 0 {
		t.Errorf("L4 readings %+v", s)
	}
	if s.MemTotalBytes.V != 23033*mib || s.MemUsedBytes.V != 470*mib {
		t.Errorf("L4 memory %v / %v bytes, want 23033 MiB total and 470 MiB used (reserved)", s.MemUsedBytes, s.MemTotalBytes)
	}
	l40s := read("dcgm-exporter_l40s_upcloud_default-counters.prom")
	if s := l40s.Samples[0]; math.Abs(s.EnergyJ.V-5551899.580) > 1e-6 || s.MemTotalBytes.V != 46067*mib {
		t.Errorf("L40S %+v", s)
	}
	// The MIG excerpt: whole-GPU readings, and the MIG instance's series
	// hold only profiling fields capture does not map, so no sample for it;
	// no FB_RESERVED, so the total is unknown rather than guessed.
	mig := read("dcgm-exporter_a100_mig_excerpt.prom")
	if len(mig.Samples) != 1 {
		t.Fatalf("MIG: %d samples", len(mig.Samples))
	}
	if s := mig.Samples[0]; s.MemTotalBytes.OK || s.MemUsedBytes.V != 4845*mib || s.PowerW.V != 409.692 || s.Host != "ub20-a100-k8s" {
		t.Errorf("MIG %+v", s)
	}
}

func TestParseDCGM(t *testing.T) {
	in := `# a comment
DCGM_FI_DEV_GPU_UTIL{gpu="0",uuid="GPU-a",hostname="h",modelName="X \"quoted\""} 87 1700000000000
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b"} 9223372036854775794
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b"} 140737488355330
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b"} 44
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",GPU_I_PROFILE="1g.10gb",GPU_I_ID="3"} 100
DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL{gpu="0",UUID="GPU-a"} 12.5
not a line
DCGM_FI_DEV_SM_CLOCK{gpu="0" 5
DCGM_FI_DEV_SM_CLOCK 5
DCGM_FI_DEV_SM_CLOCK{gpu="0"} five
`
	sc, err := ParseDCGM(strings.NewReader(in), scrapeTime)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Warnings) != 4 {
		t.Errorf("warnings %v", sc.Warnings)
	}
	if len(sc.Samples) != 3 {
		t.Fatalf("samples %+v", sc.Samples)
	}
	a, b, mig := sc.Samples[0], sc.Samples[1], sc.Samples[2]
	if a.UtilPct.V != 87 || a.Host != "h" || a.DeviceName != `X "quoted"` || !a.Time.Equal(time.UnixMilli(1700000000000)) || a.EnergyJ.V != 12.5 {
		t.Errorf("a %+v", a)
	}
	if b.UtilPct.OK || b.PowerW.OK || b.TempC.V != 44 {
		t.Errorf("DCGM blanks must be unknown: %+v", b)
	}
	if mig.Device != "0 MIG 1g.10gb id 3" || mig.MemUsedBytes.V != 100*mib {
		t.Errorf("mig %+v", mig)
	}
}

// FuzzParseDCGM checks that the parser never panics and that every
// reading it keeps is finite and non-negative.
func FuzzParseDCGM(f *testing.F) {
	f.Add([]byte(`DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-x"} 16.3` + "\n"))
	f.Add([]byte(`DCGM_FI_DEV_FB_USED{gpu="0",UUID="u",GPU_I_ID="1"} 3 17` + "\n# HELP x\n"))
	f.Add([]byte(`DCGM_FI_DEV_GPU_TEMP{a="\\\"",UUID="u"} 1e400`))
	f.Fuzz(func(t *testing.T, in []byte) {
		sc, err := ParseDCGM(bytes.NewReader(in), scrapeTime)
		if err != nil {
			return
		}
		for _, s := range sc.Samples {
			for _, v := range []float64{s.UtilPct.V, s.PowerW.V, s.EnergyJ.V, s.SMClockMHz.V, s.TempC.V, float64(s.MemUsedBytes.V), float64(s.MemTotalBytes.V)} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("reading %v in %+v", v, s)
				}
			}
			if s.Source != "dcgm" || s.DeviceUUID == "" && s.Device == "" {
				t.Fatalf("sample %+v", s)
			}
		}
	})
}
