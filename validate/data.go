package validate

import (
	"context"
	"hash/fnv"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// RunData is what the rules see of one run: its row of the runs table, its
// metric rows and a summary of its request rows.
type RunData struct {
	// Bundle is the directory the run was read from ("" for runs built in
	// memory).
	Bundle  string
	Run     schemas.Run
	Metrics []schemas.Metric
	// Requests summarises the run's request rows; nil when there are none.
	Requests *RequestStats

	name string // unique display name, set by Validate
}

// Name is the run's display name in a report: its ID, qualified with the
// bundle's base name when two bundles hold the same ID.
func (d *RunData) Name() string {
	if d.name != "" {
		return d.name
	}
	return d.Run.ID
}

// RequestStats summarises a run's request rows: what the rules need, kept
// small whatever the number of chunks. Lengths are kept per request for
// the two-sample tests.
type RequestStats struct {
	Rows          int64 // request rows of the run
	Warmup        int64 // rows in the warm-up phase
	Cooldown      int64 // rows in the cool-down phase (sent after the measurement window)
	OK            int64 // successful profiling requests
	Failed        int64 // failed profiling requests
	UnknownStatus int64 // profiling requests whose success the source does not say
	Cancelled     int64 // profiling requests the user's interruption abandoned
	// FailedNoError counts failed requests with no error text.
	FailedNoError int64

	// InputTokens are the known prompt lengths of the profiling requests,
	// successful or not (the workload offered), in dispatch order.
	InputTokens []float64
	// InputSequence is a hash of InputTokens in dispatch order (0 when
	// there are none): equal hashes mean the same prompt lengths in the
	// same order, the trace of the same prompts.
	InputSequence uint64
	// OutputTokens are the known output lengths of successful requests.
	OutputTokens []float64
	// ReasoningKnown counts successful requests whose reasoning tokens are
	// known, ReasoningNonZero those of them with any.
	ReasoningKnown, ReasoningNonZero int64

	// TTFTAndE2E counts successful requests with both TTFT and E2E and
	// not known to have a single output token (whose TTFT is its E2E by
	// nature); TTFTEqualsE2E those of them whose TTFT equals their E2E
	// (within a microsecond): the response arrived in one piece.
	TTFTAndE2E, TTFTEqualsE2E int64
	// WithGaps counts successful requests with known chunk gaps and more
	// than one output token; OneChunk those of them that arrived in a
	// single chunk.
	WithGaps, OneChunk int64
	// GapChunks and GapTokens are the chunks and output tokens of the
	// successful requests with known chunk gaps and output tokens.
	GapChunks, GapTokens int64

	// FirstLatency is the TTFT (or, when TTFT is unknown, the E2E) of the
	// first successful profiling request in dispatch order, and
	// FirstIndex its index; Latencies holds the same quantity of every
	// successful profiling request, and LatencyMetric says which it is.
	FirstLatency  schemas.Opt[float64]
	FirstIndex    int64
	Latencies     []float64
	LatencyMetric string
	// Timeline holds the successful profiling requests in dispatch order
	// (steady-state rules); nil when there are none.
	Timeline *Timeline

	inIdx []int64 // dispatch indices of InputTokens, for ordering
}

// ReadBundle reads the runs, metric rows and request summaries of an open
// bundle (or dataset), in the order of the runs table; dir is the path it
// was opened from, kept as RunData.Bundle. Opening bundles is the
// application layer's job (package analysis); validate only reads what it
// is handed.
func ReadBundle(ctx context.Context, b *schemas.Bundle, dir string) ([]*RunData, error) {
	runs, err := b.Runs(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := b.Metrics(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*RunData, len(runs))
	byID := make(map[string]*RunData, len(runs))
	for i, r := range runs {
		out[i] = &RunData{Bundle: dir, Run: r}
		byID[r.ID] = out[i]
	}
	for _, m := range ms {
		if m.Dimension != "" {
			continue // a part of the run (one endpoint): the rules judge whole runs
		}
		if d := byID[m.RunID]; d != nil {
			d.Metrics = append(d.Metrics, m)
		}
	}
	acc := map[string]*statsBuilder{}
	err = b.Requests(ctx, func(r *schemas.Request) error {
		d := byID[r.RunID]
		if d == nil {
			return nil
		}
		sb := acc[r.RunID]
		if sb == nil {
			sb = &statsBuilder{}
			acc[r.RunID] = sb
		}
		sb.add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id, sb := range acc {
		byID[id].Requests = sb.finish()
	}
	return out, nil
}

// SummariseRequests builds a RequestStats from request rows held in
// memory (for callers that build runs without a bundle).
func SummariseRequests(reqs []schemas.Request) *RequestStats {
	if len(reqs) == 0 {
		return nil
	}
	var sb statsBuilder
	for i := range reqs {
		sb.add(&reqs[i])
	}
	return sb.finish()
}

type statsBuilder struct {
	s          RequestStats
	ttft, e2e  []float64
	firstTTFT  schemas.Opt[float64]
	firstE2E   schemas.Opt[float64]
	firstIndex int64
	haveFirst  bool
	timeline   timelineBuilder
}

func (b *statsBuilder) add(r *schemas.Request) {
	s := &b.s
	s.Rows++
	if !schemas.Measured(r.Phase) {
		if r.Phase == schemas.PhaseCooldown {
			s.Cooldown++
		} else {
			s.Warmup++
		}
		return
	}
	if r.InputTokens.OK {
		s.InputTokens = append(s.InputTokens, float64(r.InputTokens.V))
		s.inIdx = append(s.inIdx, r.Index)
	}
	switch r.Status {
	case schemas.StatusOK:
		s.OK++
	case schemas.StatusError:
		s.Failed++
		if strings.TrimSpace(r.Error) == "" {
			s.FailedNoError++
		}
		return
	case schemas.StatusCancelled:
		s.Cancelled++
		return
	default:
		s.UnknownStatus++
		return
	}
	b.timeline.add(r)
	if r.OutputTokens.OK {
		s.OutputTokens = append(s.OutputTokens, float64(r.OutputTokens.V))
	}
	if r.ReasoningTokens.OK {
		s.ReasoningKnown++
		if r.ReasoningTokens.V > 0 {
			s.ReasoningNonZero++
		}
	}
	if r.TTFTS.OK && r.E2ES.OK && !(r.OutputTokens.OK && r.OutputTokens.V <= 1) {
		s.TTFTAndE2E++
		if math.Abs(r.E2ES.V-r.TTFTS.V) <= math.Max(1e-6, 1e-6*r.E2ES.V) {
			s.TTFTEqualsE2E++
		}
	}
	if r.ChunkGapsS != nil && r.OutputTokens.OK {
		if r.OutputTokens.V > 1 {
			s.WithGaps++
			if len(r.ChunkGapsS) == 0 {
				s.OneChunk++
			}
		}
		s.GapChunks += int64(len(r.ChunkGapsS)) + 1
		s.GapTokens += r.OutputTokens.V
	}
	if r.TTFTS.OK {
		b.ttft = append(b.ttft, r.TTFTS.V)
	}
	if r.E2ES.OK {
		b.e2e = append(b.e2e, r.E2ES.V)
	}
	if !b.haveFirst || r.Index < b.firstIndex {
		b.haveFirst, b.firstIndex = true, r.Index
		b.firstTTFT, b.firstE2E = r.TTFTS, r.E2ES
	}
}

func (b *statsBuilder) finish() *RequestStats {
	s := &b.s
	if len(s.InputTokens) > 0 {
		if !slices.IsSorted(s.inIdx) {
			idx := make([]int, len(s.inIdx))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, c int) int {
				switch {
				case s.inIdx[a] < s.inIdx[c]:
					return -1
				case s.inIdx[a] > s.inIdx[c]:
					return 1
				}
				return 0
			})
			in := make([]float64, len(idx))
			for i, j := range idx {
				in[i] = s.InputTokens[j]
			}
			s.InputTokens = in
		}
		h := fnv.New64a()
		var buf []byte
		for _, v := range s.InputTokens {
			buf = strconv.AppendFloat(buf[:0], v, 'g', -1, 64)
			buf = append(buf, ',')
			h.Write(buf)
		}
		s.InputSequence = h.Sum64()
	}
	s.inIdx = nil
	s.Timeline = b.timeline.finish()
	if b.haveFirst {
		s.FirstIndex = b.firstIndex
		switch {
		case len(b.ttft) > 0 && b.firstTTFT.OK:
			s.FirstLatency, s.Latencies, s.LatencyMetric = b.firstTTFT, b.ttft, "ttft"
		case len(b.e2e) > 0 && b.firstE2E.OK:
			s.FirstLatency, s.Latencies, s.LatencyMetric = b.firstE2E, b.e2e, "e2e"
		}
	}
	return s
}

// uniqueNames gives every run a display name: its ID, or bundle/ID where
// the ID is not unique, or that with a counter.
func uniqueNames(runs []*RunData) {
	count := map[string]int{}
	for _, d := range runs {
		count[d.Run.ID]++
	}
	used := map[string]bool{}
	for _, d := range runs {
		name := d.Run.ID
		if count[name] > 1 && d.Bundle != "" {
			name = filepath.Base(d.Bundle) + "/" + d.Run.ID
		}
		base := name
		for i := 2; used[name]; i++ {
			name = base + "#" + strconv.Itoa(i)
		}
		used[name] = true
		d.name = name
	}
}

// inventoryField is one field of schemas.Inventory under its JSON name.
type inventoryField struct {
	Name  string // JSON name, e.g. "gpu_model"
	Value string // "" when unknown
}

// inventoryFields lists an inventory's fields under their JSON names, in
// declaration order, read by reflection so that a field added to
// schemas.Inventory is checked without a change here.
func inventoryFields(inv schemas.Inventory) []inventoryField {
	v := reflect.ValueOf(inv)
	t := v.Type()
	out := make([]inventoryField, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, inventoryField{Name: name, Value: fieldText(v.Field(i))})
	}
	return out
}

func fieldText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fieldText(v.Index(i))
		}
		return strings.Join(parts, " ")
	case reflect.Struct: // schemas.Opt[T]
		if ok := v.FieldByName("OK"); ok.IsValid() {
			if !ok.Bool() {
				return ""
			}
			return fieldText(v.FieldByName("V"))
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return ""
}

// inventoryFieldNames lists the JSON names of the inventory's fields.
func inventoryFieldNames() []string {
	fs := inventoryFields(schemas.Inventory{})
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// inventoryValue returns one inventory field by JSON name.
func inventoryValue(inv schemas.Inventory, name string) string {
	for _, f := range inventoryFields(inv) {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}
