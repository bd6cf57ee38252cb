package aiperf_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/ingest/aiperf"
	"github.com/verdict-llm/verdict/schemas"
)

// writeRecords writes n AIPerf 0.2+ profile_export.jsonl records with
// chunks streamed chunks each; every 100th record is a failed one.
func writeRecords(path string, n, chunks int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b []byte
	start := int64(1_764_669_600_000_000_000)
	x := uint64(88172645463325252)
	rnd := func() float64 { // xorshift: deterministic and cheap
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	ms := func(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 6, 64) }
	for i := 0; i < n; i++ {
		st := start + int64(i)*1_000_000
		b = append(b[:0], `{"metadata": {"session_num": `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `, "x_request_id": "req", "request_start_ns": `...)
		b = strconv.AppendInt(b, st, 10)
		if i%100 == 99 {
			b = append(b, `, "request_end_ns": `...)
			b = strconv.AppendInt(b, st+2_000_000, 10)
			b = append(b, `, "benchmark_phase": "profiling", "was_cancelled": true}, "metrics": {"error_isl": {"value": 120, "unit": "tokens"}}, "error": {"code": 499, "type": "RequestCancellationError", "message": "cancelled"}}`+"\n"...)
			if _, err := w.Write(b); err != nil {
				return err
			}
			continue
		}
		ttft := 20 + 30*rnd()
		lat := ttft
		b = append(b, `, "benchmark_phase": "profiling", "was_cancelled": false}, "metrics": {"inter_chunk_latency": {"value": [`...)
		for c := 0; c < chunks; c++ {
			g := 12 + 10*rnd()
			lat += g
			if c > 0 {
				b = append(b, ", "...)
			}
			b = ms(b, g)
		}
		osl := chunks + 1
		b = append(b, `], "unit": "ms"}, "time_to_first_token": {"value": `...)
		b = ms(b, ttft)
		b = append(b, `, "unit": "ms"}, "time_to_first_output_token": {"value": `...)
		b = ms(b, ttft)
		b = append(b, `, "unit": "ms"}, "request_latency": {"value": `...)
		b = ms(b, lat)
		b = append(b, `, "unit": "ms"}, "inter_token_latency": {"value": `...)
		b = strconv.AppendFloat(b, (lat-ttft)/float64(osl-1), 'g', -1, 64)
		b = append(b, `, "unit": "ms"}, "output_sequence_length": {"value": `...)
		b = strconv.AppendInt(b, int64(osl), 10)
		b = append(b, `, "unit": "tokens"}, "output_token_count": {"value": `...)
		b = strconv.AppendInt(b, int64(osl), 10)
		b = append(b, `, "unit": "tokens"}, "input_sequence_length": {"value": 512, "unit": "tokens"}}, "error": null}`+"\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// peakMemory samples the Go runtime's heap in use and total mapped memory
// until stopped.
func peakMemory() (stop func() (heapMiB, totalMiB float64)) {
	var mu sync.Mutex
	var heap, total uint64
	done := make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			heap = max(heap, s[0].Value.Uint64())
			total = max(total, s[1].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (float64, float64) {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return float64(heap) / (1 << 20), float64(total) / (1 << 20)
	}
}

// BenchmarkIngestRecords1M ingests a generated 1,000,000-record
// profile_export.jsonl (8 chunks per record) into a bundle through the
// driver `verdict ingest` uses, with the statistics recomputed.
func BenchmarkIngestRecords1M(b *testing.B) {
	n := benchRecords
	dir := b.TempDir()
	path := filepath.Join(dir, "profile_export.jsonl")
	if err := writeRecords(path, n, 8); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	var heap, total float64
	for b.Loop() {
		stop := peakMemory()
		sum, err := ingest.ToBundle(context.Background(), []string{path}, filepath.Join(dir, "out"),
			ingest.Options{Formats: []ingest.Format{aiperf.Format{}}, Bundle: schemas.BundleOptions{Overwrite: true}})
		h, t := stop()
		heap, total = max(heap, h), max(total, t)
		if err != nil {
			b.Fatal(err)
		}
		if c := sum.Totals(schemas.TableRequests); c.Ingested != int64(n) || c.Rejected != 0 {
			b.Fatalf("%+v", c)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(heap, "peak-heap-MiB")
	b.ReportMetric(total, "peak-mapped-MiB")
}

// benchRecords is the benchmark's record count; tests of the benchmark
// itself may lower it.
var benchRecords = 1_000_000
