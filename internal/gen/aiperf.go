package gen

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// AIPerfOptions size a synthetic AIPerf profile_export.jsonl.
type AIPerfOptions struct {
	Records int // records written
	Chunks  int // inter-chunk gaps per successful record
	// Bytes, when positive, writes records until the output reaches this
	// size instead of Records.
	Bytes int64
	Seed  uint64
}

// AIPerfRecords writes AIPerf 0.2+ profile_export.jsonl records (the
// per-record metrics layout); every 100th record is a cancelled request.
func AIPerfRecords(w io.Writer, o AIPerfOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var b []byte
	start := int64(1_764_669_600_000_000_000)
	x := o.Seed*2654435761 + 88172645463325252
	rnd := func() float64 { // xorshift: deterministic and cheap
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11) / (1 << 53)
	}
	ms := func(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 6, 64) }
	// Times are whole nanoseconds written in milliseconds, as AIPerf's
	// are, so that derived values (ITL) agree with the written ones.
	ns := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	var written int64
	for i := 0; o.Bytes > 0 && written < o.Bytes || o.Bytes <= 0 && i < o.Records; i++ {
		st := start + int64(i)*1_000_000
		b = append(b[:0], `{"metadata": {"session_num": `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `, "x_request_id": "req", "request_start_ns": `...)
		b = strconv.AppendInt(b, st, 10)
		if i%100 == 99 {
			b = append(b, `, "request_end_ns": `...)
			b = strconv.AppendInt(b, st+2_000_000, 10)
			b = append(b, `, "benchmark_phase": "profiling", "was_cancelled": true}, "metrics": {"error_isl": {"value": 120, "unit": "tokens"}}, "error": {"code": 499, "type": "RequestCancellationError", "message": "cancelled"}}`+"\n"...)
		} else {
			ttft := ns(20 + 30*rnd())
			lat := ttft
			b = append(b, `, "benchmark_phase": "profiling", "was_cancelled": false}, "metrics": {"inter_chunk_latency": {"value": [`...)
			for c := 0; c < o.Chunks; c++ {
				g := ns(12 + 10*rnd())
				lat = ns(lat + g)
				if c > 0 {
					b = append(b, ", "...)
				}
				b = ms(b, g)
			}
			osl := o.Chunks + 1
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
		}
		n, err := bw.Write(b)
		if err != nil {
			return err
		}
		written += int64(n)
	}
	return bw.Flush()
}
