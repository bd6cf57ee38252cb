package schemas

// Quantities derived from one request row. Each has one function here,
// beside the registry entry that defines it, and every view (statistics,
// comparison, report, workbook, ingest recomputation, capture) calls it,
// so that the same request gives the same number everywhere.

// TPOTOf is the registry's TPOT for one request (see the TPOT definition):
// (e2e - ttft) / (output_tokens - 1), known when the TTFT, the E2E and the
// output token count are known and there is more than one output token.
// It does not look at the request's status: choosing the observations
// (successful requests of the profiling phase) is the caller's job.
func TPOTOf(ttftS, e2eS Opt[float64], outputTokens Opt[int64]) Opt[float64] {
	if !ttftS.OK || !e2eS.OK || !outputTokens.OK || outputTokens.V <= 1 {
		return Opt[float64]{}
	}
	return Some((e2eS.V - ttftS.V) / float64(outputTokens.V-1))
}

// TPOT is TPOTOf the request's TTFT, E2E and output token count.
func (q *Request) TPOT() Opt[float64] { return TPOTOf(q.TTFTS, q.E2ES, q.OutputTokens) }

// Chunks is the number of streamed chunks carrying output: one more than
// the chunk gaps (unknown when the gaps are).
func (q *Request) Chunks() Opt[int64] {
	if q.ChunkGapsS == nil {
		return Opt[int64]{}
	}
	return Some(int64(len(q.ChunkGapsS)) + 1)
}

// MaxChunkGap is the longest gap between two streamed chunks (itl_chunk),
// unknown when the gaps are unknown or there are none.
func (q *Request) MaxChunkGap() Opt[float64] {
	if len(q.ChunkGapsS) == 0 {
		return Opt[float64]{}
	}
	m := q.ChunkGapsS[0]
	for _, g := range q.ChunkGapsS[1:] {
		m = max(m, g)
	}
	return Some(m)
}
