package gen

import (
	"strconv"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// TwoLoadBundle writes, at dest, a sweep of two captured runs at 1 and 2
// requests/s, the first starting at t0 and the second an hour later, each
// with a 100 s window, on the resources ids: 200 requests each, every one
// with 10 output tokens and a TTFT of 0.2 s (at 1 req/s) or 0.6 s (at
// 2 req/s), and one GPU whose energy counter rises by 20 kJ over the first
// run's window and by 60 kJ over the second's (J/token: 20,000 / 2,000 =
// 10 and 60,000 / 2,000 = 30; its 5 kW power samples are far from the
// counters' 200 W and 600 W). A TTFT p99 limit of 0.4 s puts the capacity
// at 1.5 requests/s, where the throughput is 20 tokens/s.
func TwoLoadBundle(dest string, t0 time.Time, ids []string) error {
	w, err := schemas.CreateBundle(dest, schemas.BundleOptions{VerdictVersion: "test"})
	if err != nil {
		return err
	}
	for k, c := range []struct {
		rate, ttft, joules float64
	}{{1, 0.2, 20000}, {2, 0.6, 60000}} {
		id := "run-" + strconv.Itoa(k)
		start := t0.Add(time.Duration(k) * time.Hour)
		w.AddRun(schemas.Run{ID: id, Tool: "capture", Format: "capture", Scenario: schemas.ScenarioServer, Arrival: schemas.ArrivalPoisson,
			RequestRate: schemas.Some(c.rate), Burstiness: schemas.Some(1.0), MaxConcurrency: schemas.Some(int64(0)), Streaming: schemas.Some(true),
			DurationS: schemas.Some(100.0), WindowStart: schemas.Some(start), WindowEnd: schemas.Some(start.Add(100 * time.Second)),
			SUT: schemas.Inventory{GPUCount: schemas.Some(int64(1)), ResourceIDs: ids}})
		for i := range 200 {
			q := schemas.Request{RunID: id, Index: int64(i), Status: schemas.StatusOK, Phase: schemas.PhaseProfiling,
				StartS: schemas.Some(float64(i) / c.rate), TTFTS: schemas.Some(c.ttft), E2ES: schemas.Some(c.ttft + 0.9),
				OutputTokens: schemas.Some(int64(10))}
			if err := w.AddRequest(&q); err != nil {
				w.Abort()
				return err
			}
		}
		for s := 0; s <= 10; s++ {
			smp := schemas.Sample{RunID: id, Source: "nvml", Device: "0", DeviceUUID: "GPU-1", Time: start.Add(time.Duration(s*10) * time.Second),
				EnergyJ: schemas.Some(1e6 + c.joules*float64(s)/10), PowerW: schemas.Some(5000.0)}
			if err := w.AddSample(&smp); err != nil {
				w.Abort()
				return err
			}
		}
	}
	return w.Commit(schemas.Manifest{})
}
