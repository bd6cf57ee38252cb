// Package gen writes large synthetic tool outputs for benchmarks and
// scale tests. The data are random but seeded, so a size and seed always
// give the same bytes.
package gen

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// VLLMOptions size a synthetic `vllm bench serve --save-detailed` result.
type VLLMOptions struct {
	Requests int    // number of requests
	Chunks   int    // streamed chunks per successful request (gaps = Chunks-1)
	Seed     uint64 // random seed
	// FailEvery makes every FailEvery-th request fail (0: none fail).
	FailEvery int
}

// VLLMDetailed writes a vLLM serve result in the 2026-09 layout with
// per-request arrays. Summary statistics are not written (computing them
// would need the whole sample); the ingestor recomputes them.
func VLLMDetailed(w io.Writer, o VLLMOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	n := o.Requests
	failed := func(i int) bool { return o.FailEvery > 0 && i%o.FailEvery == o.FailEvery-1 }
	nFailed := 0
	for i := range n {
		if failed(i) {
			nFailed++
		}
	}
	var buf []byte
	f := func(v float64) { buf = strconv.AppendFloat(buf[:0], v, 'g', 17, 64); bw.Write(buf) }
	d := func(v int) { buf = strconv.AppendInt(buf[:0], int64(v), 10); bw.Write(buf) }
	s := func(x string) { bw.WriteString(x) }
	array := func(key string, elem func(i int)) {
		s(`, "` + key + `": [`)
		for i := range n {
			if i > 0 {
				s(", ")
			}
			elem(i)
		}
		s("]")
	}
	s(`{"date": "20261201-120000", "endpoint_type": "openai", "backend": "openai", "label": null, "model_id": "synthetic/model", "tokenizer_id": "synthetic/model", "num_prompts": `)
	d(n)
	s(`, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 256, "duration": `)
	f(float64(n) / 500)
	s(`, "completed": `)
	d(n - nFailed)
	s(`, "failed": `)
	d(nFailed)
	// Per-request values are drawn once per array from a seeded stream per
	// request, so that arrays stay index-aligned without holding them.
	val := func(i, k int) *rand.Rand { return rand.New(rand.NewPCG(o.Seed^uint64(i), uint64(k))) }
	array("input_lens", func(i int) { d(100 + val(i, 1).IntN(400)) })
	array("output_lens", func(i int) {
		if failed(i) {
			d(0)
		} else {
			d(o.Chunks)
		}
	})
	array("ttfts", func(i int) {
		if failed(i) {
			s("0.0")
		} else {
			f(0.02 + val(i, 2).ExpFloat64()*0.05)
		}
	})
	array("itls", func(i int) {
		if failed(i) {
			s("[]")
			return
		}
		r := val(i, 3)
		s("[")
		for c := 0; c < o.Chunks-1; c++ {
			if c > 0 {
				s(", ")
			}
			f(0.008 + math.Abs(r.NormFloat64())*0.002)
		}
		s("]")
	})
	array("start_times", func(i int) { f(353399.0 + float64(i)/500) })
	array("errors", func(i int) {
		if failed(i) {
			s(`"Not Found"`)
		} else {
			s(`""`)
		}
	})
	array("generated_texts", func(i int) { s(`"lorem ipsum dolor"`) })
	s("}\n")
	return bw.Flush()
}
