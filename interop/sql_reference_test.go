package interop

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/sqlgen"
	"github.com/verdict-llm/verdict/stats"
)

// The reference: each definition with an SQL view recomputed in Go from
// the dataset's request rows, written from the registry's text (events,
// formula, population) and knownFlags' notes, not from the SQL. Every
// view must hold exactly these observations, to the bit.

// A refRow is what the reference sees of one request.
type refRow struct {
	run  schemas.Run
	q    *schemas.Request
	ok   bool // successful
	prof bool // profiling phase
}

func (r refRow) streamed() bool { return !r.run.Streaming.OK || r.run.Streaming.V }
func (r refRow) flagged(f string) bool {
	return slices.Contains(r.run.Flags, f)
}

// Flags that change what a column holds (validate's knownFlags): the first
// chunk gap is the TTFT, or E2E ends at [DONE].
const (
	flagITLTTFT = "itl_includes_ttft"
	flagE2EDone = "e2e_ends_at_done_event"
)

// tpotOf is the registry's TPOT formula.
func tpotOf(q *schemas.Request) float64 {
	return (q.E2ES.V - q.TTFTS.V) / float64(q.OutputTokens.V-1)
}

// reference maps each definition to its observations of one request.
var reference = map[schemas.MetricID]func(r refRow) []float64{
	schemas.TTFT: func(r refRow) []float64 { return one(r.ok && r.streamed() && r.q.TTFTS.OK, r.q.TTFTS.V) },
	schemas.TTFTAnswer: func(r refRow) []float64 {
		return one(r.ok && r.streamed() && r.q.TTFTAnswerS.OK, r.q.TTFTAnswerS.V)
	},
	schemas.TTST: func(r refRow) []float64 {
		return one(r.ok && r.streamed() && len(r.q.ChunkGapsS) > 0 && !r.flagged(flagITLTTFT), first(r.q.ChunkGapsS))
	},
	schemas.ITLChunk: func(r refRow) []float64 {
		if !r.ok || r.flagged(flagITLTTFT) {
			return nil
		}
		return r.q.ChunkGapsS
	},
	schemas.TPOT: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && q.TTFTS.OK && q.E2ES.OK && q.OutputTokens.OK && q.OutputTokens.V > 1 && !r.flagged(flagE2EDone), tpotOf(q))
	},
	schemas.TPOTInclTTFT: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && q.E2ES.OK && q.OutputTokens.OK && q.OutputTokens.V > 0 && !r.flagged(flagE2EDone), q.E2ES.V/float64(q.OutputTokens.V))
	},
	schemas.DecodeTimePerOutputToken: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && q.TTFTS.OK && q.E2ES.OK && q.OutputTokens.OK && q.OutputTokens.V > 0 && !r.flagged(flagE2EDone),
			(q.E2ES.V-q.TTFTS.V)/float64(q.OutputTokens.V))
	},
	schemas.TPOTInclTTFTZeroFilled: func(r refRow) []float64 {
		q := r.q
		v := 0.0
		if q.OutputTokens.V != 0 {
			v = q.E2ES.V / float64(q.OutputTokens.V)
		}
		return one(r.ok && q.E2ES.OK && q.OutputTokens.OK && !r.flagged(flagE2EDone), v)
	},
	// Chunks carrying output: one more than the gaps between them.
	schemas.TPOTPerChunk: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.TTFTS.OK && q.E2ES.OK && len(q.ChunkGapsS) >= 1 && !r.flagged(flagE2EDone) && !r.flagged(flagITLTTFT),
			(q.E2ES.V-q.TTFTS.V)/float64(len(q.ChunkGapsS)))
	},
	schemas.TPOTInclTTFTPerChunk: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.E2ES.OK && q.ChunkGapsS != nil && !r.flagged(flagE2EDone) && !r.flagged(flagITLTTFT),
			q.E2ES.V/float64(len(q.ChunkGapsS)+1))
	},
	schemas.RequestOutputChunkRate: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.E2ES.OK && q.E2ES.V > 0 && q.ChunkGapsS != nil && !r.flagged(flagE2EDone) && !r.flagged(flagITLTTFT),
			float64(len(q.ChunkGapsS)+1)/q.E2ES.V)
	},
	schemas.DecodeSpan: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.TTFTS.OK && q.E2ES.OK && !r.flagged(flagE2EDone), q.E2ES.V-q.TTFTS.V)
	},
	schemas.E2E:         func(r refRow) []float64 { return one(r.ok && r.q.E2ES.OK && !r.flagged(flagE2EDone), r.q.E2ES.V) },
	schemas.ClientQueue: func(r refRow) []float64 { return one(r.q.QueueS.OK, r.q.QueueS.V) },
	schemas.E2EInclClientQueue: func(r refRow) []float64 {
		return one(r.ok && r.q.QueueS.OK && r.q.E2ES.OK && !r.flagged(flagE2EDone), r.q.QueueS.V+r.q.E2ES.V)
	},
	schemas.InputTokens:     func(r refRow) []float64 { return one(r.ok && r.q.InputTokens.OK, float64(r.q.InputTokens.V)) },
	schemas.OutputTokens:    func(r refRow) []float64 { return one(r.ok && r.q.OutputTokens.OK, float64(r.q.OutputTokens.V)) },
	schemas.ReasoningTokens: func(r refRow) []float64 { return one(r.ok && r.q.ReasoningTokens.OK, float64(r.q.ReasoningTokens.V)) },
	schemas.InputTokensFailed: func(r refRow) []float64 {
		return one(r.q.Status == schemas.StatusError && r.q.InputTokens.OK, float64(r.q.InputTokens.V))
	},
	schemas.OutputTokenRatePerUser: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.TTFTS.OK && q.E2ES.OK && q.OutputTokens.OK && q.OutputTokens.V > 1 && q.E2ES.V > q.TTFTS.V && !r.flagged(flagE2EDone),
			1/tpotOf(q))
	},
	schemas.E2EOutputTokenRate: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && q.OutputTokens.OK && q.E2ES.OK && q.E2ES.V > 0 && !r.flagged(flagE2EDone), float64(q.OutputTokens.V)/q.E2ES.V)
	},
	schemas.PrefillRatePerUser: func(r refRow) []float64 {
		q := r.q
		return one(r.ok && r.streamed() && q.InputTokens.OK && q.TTFTS.OK && q.TTFTS.V > 0, float64(q.InputTokens.V)/q.TTFTS.V)
	},
}

func one(in bool, v float64) []float64 {
	if !in {
		return nil
	}
	return []float64{v}
}

func first(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return xs[0]
}

// referenceObservations recomputes every reference definition over the
// dataset: definition -> run -> sorted observations.
func referenceObservations(t *testing.T, ds string) (map[schemas.MetricID]map[string][]float64, []refRow) {
	t.Helper()
	ctx := context.Background()
	b, err := schemas.OpenBundle(ds)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := b.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]schemas.Run{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	out := map[schemas.MetricID]map[string][]float64{}
	var rows []refRow
	err = b.RequestColumns(ctx, nil, func(q *schemas.Request) error {
		run, ok := byID[q.RunID]
		if !ok || q.Phase != schemas.PhaseProfiling {
			return nil
		}
		cp := *q
		cp.ChunkGapsS = slices.Clone(q.ChunkGapsS)
		r := refRow{run: run, q: &cp, ok: q.Status == schemas.StatusOK, prof: true}
		rows = append(rows, r)
		for id, f := range reference {
			if vs := f(r); len(vs) > 0 {
				if out[id] == nil {
					out[id] = map[string][]float64{}
				}
				out[id][q.RunID] = append(out[id][q.RunID], vs...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range out {
		for _, vs := range m {
			sort.Float64s(vs)
		}
	}
	return out, rows
}

// TestSQLViewsEqualReference runs every definition view and compares its
// rows with the reference.
func TestSQLViewsEqualReference(t *testing.T) {
	ds := sqlDataset(t)
	db := runScript(t, sqlgen.Options{Dataset: ds})
	want, _ := referenceObservations(t, ds)
	for _, def := range schemas.Registry() {
		if !sqlgen.HasSQL(def.ID) {
			continue
		}
		ref, ok := reference[def.ID]
		if !ok || ref == nil {
			t.Errorf("%s has an SQL view but no reference here", def.ID)
			continue
		}
		rows, err := db.Query("SELECT run_id, value, definition_id, unit, registry_version FROM verdict_" + string(def.ID))
		if err != nil {
			t.Errorf("%s: %v", def.ID, err)
			continue
		}
		got := map[string][]float64{}
		for rows.Next() {
			var run, id, unit string
			var v float64
			var version int
			if err := rows.Scan(&run, &v, &id, &unit, &version); err != nil {
				t.Fatal(err)
			}
			if id != string(def.ID) || unit != def.Unit || version != schemas.RegistryVersion {
				t.Fatalf("verdict_%s row says %s, %s, version %d", def.ID, id, unit, version)
			}
			got[run] = append(got[run], v)
		}
		rows.Close()
		total := 0
		for run, ws := range want[def.ID] {
			vs := got[run]
			sort.Float64s(vs)
			if !slices.Equal(vs, ws) {
				t.Errorf("verdict_%s, run %s: %d SQL observations, %d in the reference (or values differ)", def.ID, run, len(vs), len(ws))
			}
			total += len(ws)
			delete(got, run)
		}
		for run, vs := range got {
			t.Errorf("verdict_%s, run %s: %d SQL observations, none in the reference", def.ID, run, len(vs))
		}
		t.Logf("%s: %d observations over %d runs", def.ID, total, len(want[def.ID]))
	}
}

// TestSQLGoodputUnknownIsNotGood checks goodput under each limit alone
// against a count from the request rows: a request whose limited value is
// unknown is not good (for ITL, a request with no recorded chunk gaps at
// all; one with an empty list meets the limit).
func TestSQLGoodputUnknownIsNotGood(t *testing.T) {
	ds := sqlDataset(t)
	_, rows := referenceObservations(t, ds)
	for _, slo := range []stats.SLO{{TTFT: 0.2}, {TPOT: 0.05}, {ITL: 0.1}, {E2E: 10}, testSLO} {
		want := map[string]int{}
		for _, r := range rows {
			if r.flagged(flagE2EDone) && (slo.TPOT > 0 || slo.E2E > 0) || r.flagged(flagITLTTFT) && slo.ITL > 0 {
				continue
			}
			if _, ok := want[r.run.ID]; !ok {
				want[r.run.ID] = 0
			}
			if r.ok && meets(slo, r.q) {
				want[r.run.ID]++
			}
		}
		db := runScript(t, sqlgen.Options{Dataset: ds, SLO: slo, HasSLO: true})
		got := map[string]int{}
		rs, err := db.Query("SELECT run_id, good FROM verdict_goodput")
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var run string
			var n int
			rs.Scan(&run, &n)
			got[run] = n
		}
		rs.Close()
		for run, n := range want {
			if got[run] != n {
				t.Errorf("SLO %+v, run %s: %d good in SQL, %d in the reference", slo, run, got[run], n)
			}
		}
		if len(got) != len(want) {
			t.Errorf("SLO %+v: goodput of %d runs in SQL, %d in the reference", slo, len(got), len(want))
		}
	}
}

// meets is the SLO written out from its documentation (limits inclusive;
// TPOT 0 for one output token or none, as vLLM; unknown is not good).
func meets(s stats.SLO, q *schemas.Request) bool {
	if s.TTFT > 0 && !(q.TTFTS.OK && q.TTFTS.V <= s.TTFT) {
		return false
	}
	if s.TPOT > 0 {
		if !q.OutputTokens.OK {
			return false
		}
		if q.OutputTokens.V > 1 && !(q.E2ES.OK && q.TTFTS.OK && tpotOf(q) <= s.TPOT) {
			return false
		}
	}
	if s.E2E > 0 && !(q.E2ES.OK && q.E2ES.V <= s.E2E) {
		return false
	}
	if s.ITL > 0 {
		if q.ChunkGapsS == nil {
			return false
		}
		for _, g := range q.ChunkGapsS {
			if g > s.ITL {
				return false
			}
		}
	}
	return true
}
