package validate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/stats"
)

// Pair rules: a is the run of the first group, b of the second.

func scenarioUnknown(s schemas.Scenario) bool { return s == "" || s == schemas.ScenarioUnknown }

func checkScenario(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	sa, sb := a.Run.Scenario, b.Run.Scenario
	var o outcome
	switch {
	case scenarioUnknown(sa) || scenarioUnknown(sb):
		var missing []string
		for _, d := range []*RunData{a, b} {
			if scenarioUnknown(d.Run.Scenario) {
				missing = append(missing, d.Name())
			}
		}
		f := s.finding(fmt.Sprintf("the load scenario of %s is unknown (the source does not say how load was offered), so whether both runs offered load the same way cannot be verified",
			joinAnd(missing)))
		f.Unverified, f.Fields, f.Values = true, []string{"scenario"}, []string{orUnknown(string(sa)), orUnknown(string(sb))}
		o.add(f)
	case sa != sb:
		f := s.finding(fmt.Sprintf("%s ran the %s scenario and %s the %s scenario: they measure different operating points",
			a.Name(), sa, b.Name(), sb))
		f.Fields, f.Values = []string{"scenario"}, []string{string(sa), string(sb)}
		o.add(f)
	default:
		o.note("scenario " + string(sa))
	}
	return o
}

func arrivalUnknown(a schemas.Arrival) bool { return a == "" || a == schemas.ArrivalUnknown }

func arrivalText(d *RunData) string {
	s := orUnknown(string(d.Run.Arrival))
	if d.Run.Burstiness.OK {
		s += " (burstiness " + sig(d.Run.Burstiness.V) + ")"
	}
	return s
}

func checkArrival(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	if mlperfServer(a) && mlperfServer(b) {
		// The target QPS is each submission's result, not the load offered.
		return checkMLPerfServer(s)
	}
	var o outcome
	unverified := func(field, what string, va, vb string, missing ...*RunData) {
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = d.Name()
		}
		f := s.finding(fmt.Sprintf("the %s of %s is unknown, so whether the runs offered the same %s cannot be verified", what, joinAnd(names), what))
		f.Unverified, f.Fields, f.Values = true, []string{field}, []string{va, vb}
		o.add(f)
	}
	differ := func(field, msg, va, vb string) {
		f := s.finding(msg)
		f.Fields, f.Values = []string{field}, []string{va, vb}
		o.add(f)
	}

	// Request rate.
	ra, rb := a.Run.RequestRate, b.Run.RequestRate
	switch {
	case ra.OK && rb.OK:
		ia, ib := math.IsInf(ra.V, 1), math.IsInf(rb.V, 1)
		switch {
		case ia != ib:
			fin, inf := a, b
			if ia {
				fin, inf = b, a
			}
			differ("request_rate", fmt.Sprintf("%s offered a finite rate of %s while %s released every request at once (rate inf, maximum throughput): latency at a set rate and at saturation are different measurements",
				fin.Name(), rateText(fin.Run.RequestRate), inf.Name()), rateText(ra), rateText(rb))
		case !ia && !approxEqual(ra.V, rb.V):
			differ("request_rate", fmt.Sprintf("the request rates differ: %s for %s, %s for %s", rateText(ra), a.Name(), rateText(rb), b.Name()),
				rateText(ra), rateText(rb))
		}
	case ra.OK != rb.OK:
		missing := a
		if ra.OK {
			missing = b
		}
		unverified("request_rate", "request rate", rateText(ra), rateText(rb), missing)
	}

	// Arrival process and burstiness.
	aa, ab := a.Run.Arrival, b.Run.Arrival
	switch {
	case !arrivalUnknown(aa) && !arrivalUnknown(ab) && aa != ab:
		differ("arrival", fmt.Sprintf("the arrival processes differ: %s for %s, %s for %s", arrivalText(a), a.Name(), arrivalText(b), b.Name()),
			arrivalText(a), arrivalText(b))
	case !arrivalUnknown(aa) && aa == ab:
		ba, bb := a.Run.Burstiness, b.Run.Burstiness
		if aa == schemas.ArrivalGamma && ba.OK && bb.OK && !approxEqual(ba.V, bb.V) {
			differ("burstiness", fmt.Sprintf("both runs have gamma arrivals but different burstiness: %s for %s, %s for %s (lower is burstier; 1 is Poisson)",
				sig(ba.V), a.Name(), sig(bb.V), b.Name()), sig(ba.V), sig(bb.V))
		}
	case arrivalUnknown(aa) != arrivalUnknown(ab):
		missing := a
		if !arrivalUnknown(aa) {
			missing = b
		}
		unverified("arrival", "arrival process", arrivalText(a), arrivalText(b), missing)
	}

	// Client concurrency limit.
	ca, cb := a.Run.MaxConcurrency, b.Run.MaxConcurrency
	switch {
	case ca.OK && cb.OK && ca.V != cb.V:
		differ("max_concurrency", fmt.Sprintf("the client concurrency limits differ: %s for %s, %s for %s",
			concurrencyText(ca), a.Name(), concurrencyText(cb), b.Name()), concurrencyText(ca), concurrencyText(cb))
	case ca.OK != cb.OK:
		missing := a
		if ca.OK {
			missing = b
		}
		unverified("max_concurrency", "client concurrency limit", concurrencyText(ca), concurrencyText(cb), missing)
	}

	// Ramp-up.
	if a.Run.RampUp != b.Run.RampUp {
		va, vb := a.Run.RampUp, b.Run.RampUp
		if va == "" {
			va = "none"
		}
		if vb == "" {
			vb = "none"
		}
		differ("ramp_up", fmt.Sprintf("the ramp-up differs: %s for %s, %s for %s", va, a.Name(), vb, b.Name()), va, vb)
	}
	if len(o.findings) == 0 {
		o.note(fmt.Sprintf("rate %s, arrival %s, concurrency limit %s", rateText(ra), arrivalText(a), concurrencyText(ca)))
	}
	return o
}

// streamedFamilies are the families whose measurement needs streaming.
var streamedFamilies = []string{"TTFT", "TTST", "ITL/TPOT"}

// familiesOf maps each family to the definition IDs with a usable value in
// the run, sorted.
func familiesOf(d *RunData) map[string][]schemas.MetricID {
	out := map[string][]schemas.MetricID{}
	for _, m := range d.Metrics {
		if !m.Value.OK {
			continue
		}
		f := familyOf(m.MetricID)
		if !slices.Contains(out[f], m.MetricID) {
			out[f] = append(out[f], m.MetricID)
		}
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

func checkStreaming(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	sa, sb := a.Run.Streaming, b.Run.Streaming
	var o outcome
	if sa.OK && sb.OK && sa.V != sb.V {
		f := s.finding(fmt.Sprintf("%s streamed its responses and %s did not: the server delivered them differently, and TTFT, ITL and TPOT of the non-streamed run are not streaming measurements",
			pick(sa.V, a, b).Name(), pick(sa.V, b, a).Name()))
		f.Fields, f.Values = []string{"streaming"}, []string{boolText(sa), boolText(sb)}
		o.add(f)
		return o
	}
	if sa.OK && sb.OK {
		o.note("streaming " + boolText(sa) + " on both")
		return o
	}
	fa, fb := familiesOf(a), familiesOf(b)
	compared := false
	for _, f := range streamedFamilies {
		if len(fa[f]) > 0 && len(fb[f]) > 0 {
			compared = true
		}
	}
	if !compared {
		return skipped("the streaming mode is unknown on one side, and no TTFT, TTST, ITL or TPOT is reported by both runs")
	}
	var missing []string
	for _, d := range []*RunData{a, b} {
		if !d.Run.Streaming.OK {
			missing = append(missing, d.Name())
		}
	}
	f := s.finding(fmt.Sprintf("whether %s streamed is unknown, so the TTFT, ITL and TPOT compared cannot be verified as streaming measurements", joinAnd(missing)))
	f.Unverified, f.Fields, f.Values = true, []string{"streaming"}, []string{boolText(sa), boolText(sb)}
	o.add(f)
	return o
}

func pick[T any](cond bool, x, y T) T {
	if cond {
		return x
	}
	return y
}

// mismatch is a family both runs report under no common definition.
type mismatch struct {
	family       string
	a, b         []schemas.MetricID // IDs on each side
	what, window bool               // how the definitions differ
	unknownIDs   []schemas.MetricID // IDs not in the registry
}

func familyMismatches(a, b *RunData) []mismatch {
	fa, fb := familiesOf(a), familiesOf(b)
	var out []mismatch
	for _, fam := range sortedKeys(fa) {
		ia, ib := fa[fam], fb[fam]
		if len(ib) == 0 || intersects(ia, ib) {
			continue
		}
		m := mismatch{family: fam, a: ia, b: ib}
		for _, x := range ia {
			for _, y := range ib {
				dx, okx := schemas.Lookup(x)
				dy, oky := schemas.Lookup(y)
				if !okx && !slices.Contains(m.unknownIDs, x) {
					m.unknownIDs = append(m.unknownIDs, x)
				}
				if !oky && !slices.Contains(m.unknownIDs, y) {
					m.unknownIDs = append(m.unknownIDs, y)
				}
				if okx && oky {
					w, win := definitionsDiffer(dx, dy)
					if !w && !win {
						w = true // distinct IDs are distinct definitions
					}
					m.what = m.what || w
					m.window = m.window || win
				}
			}
		}
		out = append(out, m)
	}
	return out
}

func intersects[T comparable](a, b []T) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// idStrings returns ids as the strings a finding holds.
func idStrings(ids []schemas.MetricID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// describeIDs lists definition IDs with their names.
func describeIDs(ids []schemas.MetricID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if d, ok := schemas.Lookup(id); ok {
			parts[i] = string(id) + " (" + d.Name + ")"
		} else {
			parts[i] = string(id) + " (not in the registry)"
		}
	}
	return joinAnd(parts)
}

// defineIDs spells out the definitions of ids, one sentence each.
func defineIDs(ids ...[]schemas.MetricID) string {
	var parts []string
	seen := map[schemas.MetricID]bool{}
	for _, list := range ids {
		for _, id := range list {
			if seen[id] {
				continue
			}
			seen[id] = true
			if d, ok := schemas.Lookup(id); ok {
				parts = append(parts, string(id)+": "+d.Summary())
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " Definitions: " + strings.Join(parts, ". ") + "."
}

func checkDefinition(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	var o outcome
	fa, fb := familiesOf(a), familiesOf(b)
	common := 0
	for fam := range fa {
		if len(fb[fam]) > 0 {
			common++
		}
	}
	if common == 0 {
		return skipped("the runs report no metric in common, under any definition")
	}
	for _, m := range familyMismatches(a, b) {
		switch {
		case len(m.unknownIDs) > 0:
			f := s.finding(fmt.Sprintf("%s is reported as %s by %s and as %s by %s; %s not in this verdict's registry, so whether the definitions match cannot be verified",
				m.family, describeIDs(m.a), a.Name(), describeIDs(m.b), b.Name(), joinAnd(idStrings(m.unknownIDs))+pick(len(m.unknownIDs) == 1, " is", " are")))
			f.Unverified, f.Metric, f.Fields, f.Values = true, m.family, []string{"metric_id"}, []string{strings.Join(idStrings(m.a), ", "), strings.Join(idStrings(m.b), ", ")}
			o.add(f)
		case m.what:
			af, assumed, hint := reasoningAssumed(s, a, b, m)
			if assumed {
				o.add(af)
				continue
			}
			if x, flag := uncertainFamily(m.family, a, b); x != nil {
				f := s.finding(fmt.Sprintf("%s is reported under different definitions, %s by %s and %s by %s, but %s cannot tell which definition applies (flag %s), so whether they measure the same cannot be verified",
					m.family, describeIDs(m.a), a.Name(), describeIDs(m.b), b.Name(), x.Name(), flag))
				f.Unverified, f.Metric, f.Fields, f.Values = true, m.family, []string{"metric_id", "flags"}, []string{strings.Join(idStrings(m.a), ", "), strings.Join(idStrings(m.b), ", ")}
				o.add(f)
				continue
			}
			f := s.finding(fmt.Sprintf("%s is reported under different definitions: %s by %s, %s by %s; no definition is common to both runs, so the numbers measure different things.%s%s",
				m.family, describeIDs(m.a), a.Name(), describeIDs(m.b), b.Name(), defineIDs(m.a, m.b), hint))
			f.Metric, f.Fields, f.Values = m.family, []string{"metric_id"}, []string{strings.Join(idStrings(m.a), ", "), strings.Join(idStrings(m.b), ", ")}
			o.add(f)
		}
	}
	// Flags on one side only, about a family both runs report.
	for _, pair := range [][2]*RunData{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		for _, flag := range x.Run.Flags {
			if slices.Contains(y.Run.Flags, flag) {
				continue
			}
			fam := flagFamily(flag)
			if fam == "" || !intersects(fa[fam], fb[fam]) {
				continue // not compared, or compared under different IDs (reported above)
			}
			eff, note := effectOfFlag(flag)
			if eff == flagNoEffect {
				continue
			}
			values := []string{flag, "(none)"}
			if x == b {
				values = []string{"(none)", flag}
			}
			var f Finding
			if eff == flagChanges {
				f = s.finding(fmt.Sprintf("%s has the flag %s (%s) and %s does not: the %s of the two runs is measured differently under the same definition ID",
					x.Name(), flag, note, y.Name(), fam))
			} else {
				f = s.finding(fmt.Sprintf("%s has the flag %s (%s) and %s does not: whether the %s of the two runs means the same cannot be verified",
					x.Name(), flag, note, y.Name(), fam))
				f.Unverified = true
			}
			f.Metric, f.Fields, f.Values = fam, []string{"flags"}, values
			o.add(f)
		}
	}
	if len(o.findings) == 0 {
		o.note(fmt.Sprintf("%d metric families compared under common definitions", common))
	}
	return o
}

// methodStats are the statistics whose value depends on a method.
var methodStats = []string{schemas.StatP, schemas.StatMedian, schemas.StatStd}

func statLabel(m schemas.Metric) string {
	if m.Stat == schemas.StatP && m.Percentile.OK {
		return pctText(m.Percentile.V)
	}
	return m.Stat
}

func checkPercentileMethod(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	type key struct {
		id   schemas.MetricID
		stat string
	}
	methods := func(d *RunData) (map[key][]string, []key) {
		out := map[key][]string{}
		var order []key
		for _, m := range d.Metrics {
			if !m.Value.OK || !slices.Contains(methodStats, m.Stat) {
				continue
			}
			k := key{m.MetricID, statLabel(m)}
			if _, ok := out[k]; !ok {
				order = append(order, k)
			}
			if !slices.Contains(out[k], m.Method) {
				out[k] = append(out[k], m.Method)
			}
		}
		return out, order
	}
	ma, order := methods(a)
	mb, _ := methods(b)
	type diff struct {
		stats    []string
		va, vb   []string
		unknownM bool
	}
	byMetric := map[schemas.MetricID]*diff{}
	var metrics []schemas.MetricID
	compared := 0
	for _, k := range order {
		xa, xb := ma[k], mb[k]
		if len(xb) == 0 {
			continue
		}
		compared++
		if intersects(xa, xb) {
			continue
		}
		d := byMetric[k.id]
		if d == nil {
			d = &diff{}
			byMetric[k.id] = d
			metrics = append(metrics, k.id)
		}
		d.stats = append(d.stats, k.stat)
		d.va = append(d.va, k.stat+" "+methodText(xa))
		d.vb = append(d.vb, k.stat+" "+methodText(xb))
		if slices.Contains(xa, "") || slices.Contains(xb, "") {
			d.unknownM = true
		}
	}
	if compared == 0 {
		return skipped("no percentile, median or standard deviation of one metric in both runs")
	}
	var o outcome
	for _, id := range metrics {
		d := byMetric[id]
		var f Finding
		if d.unknownM {
			f = s.finding(fmt.Sprintf("%s of %s: the method is not recorded on one side (%s for %s, %s for %s), so whether the statistics are computed alike cannot be verified",
				joinAnd(d.stats), id, strings.Join(d.va, ", "), a.Name(), strings.Join(d.vb, ", "), b.Name()))
			f.Unverified = true
		} else {
			f = s.finding(fmt.Sprintf("%s of %s %s computed differently: %s for %s, %s for %s; nearest-rank and interpolated percentiles (or population and sample deviations) of the same data differ",
				joinAnd(d.stats), id, pick(len(d.stats) == 1, "is", "are"), strings.Join(d.va, ", "), a.Name(), strings.Join(d.vb, ", "), b.Name()))
		}
		f.Metric, f.Fields, f.Values = string(id), append([]string{"method"}, d.stats...), []string{strings.Join(d.va, ", "), strings.Join(d.vb, ", ")}
		o.add(f)
	}
	if len(o.findings) == 0 {
		o.note(fmt.Sprintf("%d statistics share a method", compared))
	}
	return o
}

func methodText(ms []string) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = pick(m == "", "(method not recorded)", m)
	}
	return strings.Join(out, "/")
}

var windowKindText = map[string]string{
	schemas.WindowKindDispatch: schemas.WindowDispatch,
	schemas.WindowKindSpan:     schemas.WindowSpan,
	schemas.WindowKindEngine:   schemas.WindowEngine,
}

func checkWindow(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	var o outcome
	for _, m := range familyMismatches(a, b) {
		if m.what || len(m.unknownIDs) > 0 || !m.window {
			continue // V004 reports it
		}
		af, assumed, hint := reasoningAssumed(s, a, b, m)
		if assumed {
			o.add(af)
			continue
		}
		f := s.finding(fmt.Sprintf("%s is reported over different populations or windows: %s by %s, %s by %s; the same count over another population or window is another number.%s%s",
			m.family, describeIDs(m.a), a.Name(), describeIDs(m.b), b.Name(), defineIDs(m.a, m.b), hint))
		f.Metric, f.Fields, f.Values = m.family, []string{"metric_id", "population", "window"}, []string{strings.Join(idStrings(m.a), ", "), strings.Join(idStrings(m.b), ", ")}
		o.add(f)
	}
	wa, wb := a.Run.WindowKind, b.Run.WindowKind
	if wa != "" && wb != "" && wa != wb {
		f := s.finding(fmt.Sprintf("the runs' durations cover different windows: %s (%s) for %s, %s (%s) for %s; durations and rates computed from them are not comparable",
			wa, windowKindText[wa], a.Name(), wb, windowKindText[wb], b.Name()))
		f.Fields, f.Values = []string{"window_kind"}, []string{wa, wb}
		o.add(f)
	}
	if len(o.findings) == 0 {
		if wa == "" || wb == "" {
			o.note("window kind unknown on one side (V018 reports it); rate definitions agree")
		} else {
			o.note("window " + wa + " on both; rate definitions agree")
		}
	}
	return o
}

func sameSequence(a, b *RunData) bool {
	return sequenceKnown(a) && sequenceKnown(b) && a.Requests.InputSequence == b.Requests.InputSequence
}

func checkDataset(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	ia, ib := a.Run.SUT, b.Run.SUT
	var o outcome
	switch {
	case ia.DatasetSHA256 != "" && ib.DatasetSHA256 != "":
		if ia.DatasetSHA256 != ib.DatasetSHA256 {
			f := s.finding(fmt.Sprintf("the datasets differ: SHA-256 %s (%s) for %s, %s (%s) for %s",
				short(ia.DatasetSHA256), orUnknown(ia.Dataset), a.Name(), short(ib.DatasetSHA256), orUnknown(ib.Dataset), b.Name()))
			f.Fields, f.Values = []string{"dataset_sha256"}, []string{ia.DatasetSHA256, ib.DatasetSHA256}
			o.add(f)
		} else {
			o.note("dataset SHA-256 " + short(ia.DatasetSHA256) + " on both")
		}
	case ia.Dataset != "" && ib.Dataset != "":
		if ia.Dataset != ib.Dataset {
			f := s.finding(fmt.Sprintf("the datasets differ: %s for %s, %s for %s", ia.Dataset, a.Name(), ib.Dataset, b.Name()))
			f.Fields, f.Values = []string{"dataset"}, []string{ia.Dataset, ib.Dataset}
			o.add(f)
		} else {
			o.note("dataset " + ia.Dataset + " on both (no hash on one side)")
		}
	case sameSequence(a, b):
		o.note("dataset not recorded, but both runs sent the same prompt lengths in the same order")
	default:
		var missing []string
		for _, d := range []*RunData{a, b} {
			if d.Run.SUT.Dataset == "" && d.Run.SUT.DatasetSHA256 == "" {
				missing = append(missing, d.Name())
			}
		}
		f := s.finding(fmt.Sprintf("the dataset of %s is not recorded (inventory dataset and dataset.sha256), so whether both runs sent the same prompts cannot be verified",
			joinAnd(missing)))
		f.Unverified, f.Fields, f.Values = true, []string{"dataset", "dataset_sha256"}, []string{orUnknown(ia.Dataset), orUnknown(ib.Dataset)}
		o.add(f)
	}
	return o
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// meanLength returns a run's mean input or output length from its metric
// rows: a mean, or a sum over a known count.
func meanLength(d *RunData, id schemas.MetricID) (float64, bool) {
	for _, m := range d.Metrics {
		if m.MetricID == id && m.Stat == schemas.StatMean && m.Value.OK {
			return m.Value.V, true
		}
	}
	for _, m := range d.Metrics {
		if m.MetricID == id && m.Stat == schemas.StatSum && m.Value.OK {
			n := m.N
			if !n.OK {
				n = d.Run.Completed
			}
			if n.OK && n.V > 0 {
				return m.Value.V / float64(n.V), true
			}
		}
	}
	return 0, false
}

func describeLengths(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("mean %s, median %s (n=%d)", sig(stats.Mean(s)), sig(stats.Median(s)), len(s))
}

func checkLengths(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	var o outcome
	compared := 0
	for _, kind := range []struct {
		id   schemas.MetricID
		what string
	}{{schemas.InputTokens, "input"}, {schemas.OutputTokens, "output"}} {
		var xa, xb []float64
		if a.Requests != nil && b.Requests != nil {
			if kind.id == schemas.InputTokens {
				xa, xb = a.Requests.InputTokens, b.Requests.InputTokens
			} else {
				xa, xb = a.Requests.OutputTokens, b.Requests.OutputTokens
			}
		}
		if len(xa) >= c.th.KSMinSamples && len(xb) >= c.th.KSMinSamples {
			compared++
			t := stats.KolmogorovSmirnov(xa, xb)
			test := &Test{Name: "two-sample Kolmogorov-Smirnov", Statistic: t.D, P: t.P, N: []int{len(xa), len(xb)}}
			desc := fmt.Sprintf("%s lengths: KS D=%s p=%s n=%d+%d", kind.what, sig(t.D), sig(t.P), len(xa), len(xb))
			if t.P < c.th.KSAlpha && t.D >= c.th.KSMinStatistic {
				f := s.finding(fmt.Sprintf("the %s length distributions differ: two-sample Kolmogorov-Smirnov D=%s, p=%s (policy: p < %s and D >= %s); %s for %s, %s for %s",
					kind.what, sig(t.D), sig(t.P), sig(c.th.KSAlpha), sig(c.th.KSMinStatistic), describeLengths(xa), a.Name(), describeLengths(xb), b.Name()))
				f.Metric, f.Fields, f.Values, f.Test = string(kind.id), []string{string(kind.id)}, []string{describeLengths(xa), describeLengths(xb)}, test
				o.add(f)
			} else {
				o.note(desc)
			}
			continue
		}
		ma, oka := meanLength(a, kind.id)
		mb, okb := meanLength(b, kind.id)
		if !oka || !okb {
			continue
		}
		compared++
		rel := 0.0
		if mx := math.Max(math.Abs(ma), math.Abs(mb)); mx > 0 {
			rel = math.Abs(ma-mb) / mx
		}
		if rel > c.th.LengthMeanTolerance {
			f := s.finding(fmt.Sprintf("the mean %s lengths differ by %s (policy tolerance %s): %s tokens for %s, %s for %s (no per-request lengths on both sides; means from the token totals)",
				kind.what, percent(rel), percent(c.th.LengthMeanTolerance), sig(ma), a.Name(), sig(mb), b.Name()))
			f.Metric, f.Fields, f.Values = string(kind.id), []string{string(kind.id)}, []string{"mean " + sig(ma), "mean " + sig(mb)}
			o.add(f)
		} else {
			o.note(fmt.Sprintf("mean %s lengths %s and %s tokens (within %s)", kind.what, sig(ma), sig(mb), percent(c.th.LengthMeanTolerance)))
		}
	}
	if compared == 0 {
		return skipped("neither per-request lengths nor token totals are known on both sides")
	}
	return o
}

func checkPromptCount(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	na, nb := a.Run.NumPrompts, b.Run.NumPrompts
	var o outcome
	if mlperfServer(a) && mlperfServer(b) && na.OK && nb.OK {
		o.note(fmt.Sprintf("MLPerf Server: the query counts (%d and %d) follow from each run's target QPS and LoadGen's minimum duration", na.V, nb.V))
		return o
	}
	switch {
	case na.OK && nb.OK && na.V != nb.V:
		f := s.finding(fmt.Sprintf("the number of prompts differs: %d for %s, %d for %s", na.V, a.Name(), nb.V, b.Name()))
		f.Fields, f.Values = []string{"num_prompts"}, []string{intText(na), intText(nb)}
		o.add(f)
	case na.OK && nb.OK:
		o.note(fmt.Sprintf("%d prompts on both", na.V))
	case !na.OK && !nb.OK:
		return skipped("the number of prompts is recorded for neither run")
	default:
		f := s.finding(fmt.Sprintf("the number of prompts is recorded for %s only", pick(na.OK, a, b).Name()))
		f.Unverified, f.Fields, f.Values = true, []string{"num_prompts"}, []string{intText(na), intText(nb)}
		o.add(f)
	}
	return o
}

func checkBoundary(c *checker, s subject) outcome {
	a, b := s.runs[0], s.runs[1]
	var o outcome
	fields := []struct {
		name, what string
		va, vb     string
	}{
		{"model", "model the tool recorded", a.Run.Model, b.Run.Model},
		{"sut.model", "model (inventory)", a.Run.SUT.Model, b.Run.SUT.Model},
		{"sut.model_revision", "model revision", a.Run.SUT.ModelRevision, b.Run.SUT.ModelRevision},
		{"sut.quantization", "quantization", a.Run.SUT.Quantization, b.Run.SUT.Quantization},
		{"sut.client_location", "client location", a.Run.SUT.ClientLocation, b.Run.SUT.ClientLocation},
		{"backend", "backend", a.Run.Backend, b.Run.Backend},
		{"token_source", "token source", a.Run.TokenSource, b.Run.TokenSource},
	}
	same := 0
	for _, fl := range fields {
		if fl.va == "" || fl.vb == "" {
			continue
		}
		if fl.va == fl.vb {
			same++
			continue
		}
		f := s.finding(fmt.Sprintf("the %s differs: %s for %s, %s for %s", fl.what, fl.va, a.Name(), fl.vb, b.Name()))
		f.Fields, f.Values = []string{fl.name}, []string{fl.va, fl.vb}
		o.add(f)
	}
	if la, lb := a.Run.SUT.LaunchArgs, b.Run.SUT.LaunchArgs; len(la) > 0 && len(lb) > 0 {
		if f, differ := launchArgsFinding(s, a, b); differ {
			o.add(f)
		} else {
			same++
		}
	}
	if len(o.findings) == 0 {
		if same == 0 {
			return skipped("none of model, quantization, client location, backend, token source and launch arguments is known on both sides")
		}
		o.note(fmt.Sprintf("%d boundary fields known on both sides agree", same))
	}
	return o
}

// launchArgsFinding names the launch arguments two runs' engines differ in
// (compared by flag, see launchargs.go), calling out prefix caching,
// scheduling limits, speculative decoding, parallelism and quantization.
func launchArgsFinding(s subject, a, b *RunData) (Finding, bool) {
	d, differ := diffLaunchArgs(a.Run.SUT.LaunchArgs, b.Run.SUT.LaunchArgs)
	if !differ {
		return Finding{}, false
	}
	side := func(xs []string) string {
		if len(xs) == 0 {
			return "(nothing else)"
		}
		return strings.Join(xs, " ")
	}
	va, vb := side(d.a), side(d.b)
	msg := fmt.Sprintf("the engine launch arguments differ: %q for %s, %q for %s", va, a.Name(), vb, b.Name())
	for _, k := range d.order {
		msg += "; " + k + ": " + strings.Join(d.kinds[k], ", ")
	}
	if d.pos {
		msg += "; the positional arguments differ too"
	}
	if len(d.order) > 0 {
		msg += " (these change throughput and latency by themselves)"
	}
	f := s.finding(msg)
	f.Fields, f.Values = []string{"sut.launch_args"}, []string{va, vb}
	return f, true
}

// uncertainFamily returns a run of the pair whose flags say the definition
// of a family is uncertain (the source could not tell which applies), and
// the flag.
func uncertainFamily(family string, runs ...*RunData) (*RunData, string) {
	for _, d := range runs {
		for _, fl := range d.Run.Flags {
			if uncertainFlag(fl) && flagFamily(fl) == family {
				return d, fl
			}
		}
	}
	return nil, ""
}
