package capture

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/capture/fakeserver"
	"github.com/verdict-llm/verdict/schemas"
)

// BenchmarkOverhead measures capture's own timing error with 1,000
// streams in flight. Client and reference server share the process and two
// cores (GOMAXPROCS=2). A warm-up of 1,000 requests opens the connections;
// the measured phase then sends 3,000 requests as Poisson arrivals at the
// rate that keeps 1,000 streams open (Little's law; capped at 1,000). Each
// request streams 40 one-token chunks, the first after 100 ms plus a
// per-request offset within one token delay (so that streams are not in
// lockstep), then one per token delay: the offered load is 1,000 / delay
// chunks per second.
//
// Reported, in milliseconds: p50 and p99 of |measured - server| for TTFT
// and for every chunk gap (ITL), where "server" is the time the server
// began writing the chunk, so the error is the loopback plus capture's own
// overhead; the p99 against the planned schedule (adding the server's
// timer lateness); the sustained chunks/s over the measured window; and
// the CPU the benchmark used and the CPU other processes used meanwhile
// (machine busy time from /proc/stat minus the benchmark's), in cores: when
// others took the CPU the tail measures the machine, not capture.
//
//	go test -run '^$' -bench Overhead -benchtime 1x ./capture
func BenchmarkOverhead(b *testing.B) {
	for _, delay := range []time.Duration{100 * time.Millisecond, 50 * time.Millisecond, 25 * time.Millisecond} {
		b.Run(fmt.Sprintf("streams=1000/delay=%s", delay), func(b *testing.B) {
			benchOverhead(b, 1000, delay)
		})
	}
}

func benchOverhead(b *testing.B, streams int, delay time.Duration) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const tokens = 40
	cfg := fakeserver.Config{TTFT: 100 * time.Millisecond, TTFTSpread: delay, TokenDelay: delay, OutputTokens: tokens, MaxTraces: 8 * streams}
	fs := fakeserver.New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: fs}
	go srv.Serve(ln)
	defer srv.Close()
	ds := synthetic(b, 64, "64", strconv.Itoa(tokens))
	perRequest := cfg.TTFT.Seconds() + cfg.TTFTSpread.Seconds()/2 + float64(tokens-1)*delay.Seconds()
	var last Calibration
	var chunksPerS, steadyPerS, otherPerS, cpuPerS, peak float64
	var lag time.Duration
	for b.Loop() {
		var sink MemorySink
		m0, c0, t0 := machineBusy(), cpuTime(), time.Now()
		res, err := Run(b.Context(), Options{Endpoint: "http://" + ln.Addr().String() + "/v1/completions", Model: "m", Dataset: ds,
			Scenario: schemas.ScenarioServer, Rate: float64(streams) / perRequest, MaxConcurrency: streams,
			NumPrompts: 3 * streams, Warmup: streams}, &sink)
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(t0).Seconds()
		ours := cpuTime() - c0
		cpuPerS, otherPerS = ours.Seconds()/wall, (machineBusy()-m0-ours).Seconds()/wall
		if res.Accounting.Failed > 0 {
			b.Fatalf("%d requests failed: %v", res.Accounting.Failed, res.Warnings)
		}
		var measured []schemas.Request
		var chunks int
		for _, r := range sink.Requests {
			if r.Phase == schemas.PhaseProfiling {
				measured = append(measured, r)
				chunks += len(r.ChunkGapsS) + 1
			}
		}
		last = Calibrate(measured, fs.Traces(res.Run.ID))
		chunksPerS = float64(chunks) / res.Run.DurationS.V
		steadyPerS = steadyRate(measured)
		peak = metric(res, schemas.PeakConcurrency, schemas.StatValue)
		lag = res.MaxLag
	}
	b.ReportMetric(last.TTFTvsSent.P50*1e3, "p50-ttft-err-ms")
	b.ReportMetric(last.TTFTvsSent.P99*1e3, "p99-ttft-err-ms")
	b.ReportMetric(last.ITLvsSent.P50*1e3, "p50-itl-err-ms")
	b.ReportMetric(last.ITLvsSent.P99*1e3, "p99-itl-err-ms")
	b.ReportMetric(last.TTFTvsPlan.P99*1e3, "p99-ttft-vs-plan-ms")
	b.ReportMetric(last.ITLvsPlan.P99*1e3, "p99-itl-vs-plan-ms")
	b.ReportMetric(chunksPerS, "chunks/s")
	b.ReportMetric(steadyPerS, "steady-chunks/s")
	b.ReportMetric(cpuPerS, "cpu-cores")
	b.ReportMetric(peak, "peak-streams")
	b.ReportMetric(float64(lag.Microseconds())/1e3, "max-dispatch-lag-ms")
	b.ReportMetric(otherPerS, "other-cpu-cores")
	b.ReportMetric(0, "ns/op")
}

// machineBusy is the machine's non-idle CPU time (user, nice, system,
// irq, softirq and steal) from /proc/stat; 0 elsewhere.
func machineBusy() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var jiffies int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		jiffies += v
	}
	return time.Duration(jiffies) * time.Second / 100 // USER_HZ
}

// steadyRate is the median number of chunks received per 1-second bin over
// the middle third of the requests' span, where all streams are open.
func steadyRate(reqs []schemas.Request) float64 {
	var times []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range reqs {
		if !r.TTFTS.OK {
			continue
		}
		t := r.StartS.V + r.TTFTS.V
		times = append(times, t)
		for _, g := range r.ChunkGapsS {
			t += g
			times = append(times, t)
		}
		lo, hi = math.Min(lo, r.StartS.V), math.Max(hi, t)
	}
	span := hi - lo
	from, to := lo+span/3, lo+2*span/3
	bins := make([]float64, int(to-from))
	for _, t := range times {
		if i := int(t - from); t >= from && i < len(bins) {
			bins[i]++
		}
	}
	if len(bins) == 0 {
		return math.NaN()
	}
	slices.Sort(bins)
	return bins[len(bins)/2]
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
