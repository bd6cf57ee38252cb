package llmdbr

import (
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// BR fields, relative to the aggregate (v0.2: results.request_performance
// .aggregate, v0.1: metrics), as schemas names them.
const (
	fTTFT   = schemas.BRTTFT
	fTPOT   = schemas.BRTPOT
	fITL    = schemas.BRITL
	fNTPOT  = schemas.BRNTPOT
	fE2E    = schemas.BRRequestLat
	fISL    = schemas.BRInputLength
	fOSL    = schemas.BROutputLength
	fReqs   = schemas.BRRequestRate
	fInTok  = schemas.BRInputRate
	fOutTok = schemas.BROutputRate
	fTotTok = schemas.BRTotalRate
)

// A unit group is the set of units BR allows a field, with each unit's
// divisor to verdict's storage unit (1000 for ms: dividing rounds once).
type unitGroup map[string]float64

var (
	unitsTime       = unitGroup{"s": 1, "ms": 1000}
	unitsGenLatency = unitGroup{"s/token": 1, "ms/token": 1000}
	unitsCount      = unitGroup{"count": 1}
	unitsTokenRate  = unitGroup{"tokens/s": 1}
	unitsQueryRate  = unitGroup{"queries/s": 1}
)

// fieldUnits is what base.py's validators allow per field.
var fieldUnits = map[string]unitGroup{
	fTTFT: unitsTime, fE2E: unitsTime,
	fTPOT: unitsGenLatency, fITL: unitsGenLatency, fNTPOT: unitsGenLatency,
	fISL: unitsCount, fOSL: unitsCount,
	fReqs: unitsQueryRate, fInTok: unitsTokenRate, fOutTok: unitsTokenRate, fTotTok: unitsTokenRate,
}

// A mapping says what each BR field holds for one producer.
type mapping struct {
	defs map[string]schemas.MetricID
	// pct and std are the producer's percentile method and standard
	// deviation (population or sample); "" when unknown.
	pct, std string
	// verified is false when the mapping follows BR's schema text, not
	// the producer's code.
	verified bool
	note     string
}

// schemaText is what BR's schema descriptions say each field is
// (schema_v0_2.py AggregateLatency): used for producers verdict has not
// checked.
func schemaText() map[string]schemas.MetricID {
	return map[string]schemas.MetricID{
		fTTFT: schemas.TTFT, fTPOT: schemas.TPOT, fITL: schemas.ITLChunk, fNTPOT: schemas.TPOTInclTTFT, fE2E: schemas.E2E,
		fISL: schemas.InputTokens, fOSL: schemas.OutputTokens,
		fReqs: schemas.RequestThroughput, fInTok: schemas.InputTokenThroughput, fOutTok: schemas.OutputTokenThroughput, fTotTok: schemas.TotalTokenThroughput,
	}
}

// producerMapping returns the definitions behind a producer's fields
// (docs/formats/llmd-br.md section 3).
func producerMapping(producer string, native bool) mapping {
	m := schemaText()
	switch producer {
	case "inference-perf":
		// Lifecycle summaries (through llm-d-benchmark's converter) and the
		// native v0.2.1 writer: ITL pools chunk-stamped token gaps, the
		// throughput window runs from the first start to the last end over
		// every request of the stage, failures included.
		m[fITL] = schemas.ITLTokenChunkStamped
		if native {
			// adapter.py skips requests with 0 output tokens for NTPOT and
			// takes stddev with ddof=1.
			return mapping{defs: m, pct: string(stats.Linear), std: "sample", verified: true}
		}
		m[fNTPOT] = schemas.TPOTInclTTFTZeroFilled
		return mapping{defs: m, pct: string(stats.Linear), verified: true}
	case "vllm-benchmark", "inferencemax":
		// vLLM's own keys copied across: ITL is the pooled chunk gap.
		delete(m, fNTPOT)
		return mapping{defs: m, pct: string(stats.Linear), std: "population", verified: true,
			note: "vLLM reports no NTPOT; a normalized_time_per_output_token field is read by BR's schema text"}
	}
	return mapping{defs: m, verified: false}
}

// defFor returns the definition of a field: the producer's, or BR's schema
// text for a field the producer mapping leaves out (fromText true).
func (m mapping) defFor(field string) (id schemas.MetricID, fromText, ok bool) {
	if id, ok := m.defs[field]; ok {
		return id, !m.verified, true
	}
	id, ok = schemaText()[field]
	return id, true, ok
}
