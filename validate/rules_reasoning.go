package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// Reasoning declared absent. A tool that counts reasoning as output (vLLM,
// AIPerf's time_to_first_token) and one that times the answer only
// (GenAI-Perf, AIPerf's time_to_first_output_token) time the same tokens
// when no reasoning reaches the client apart from the answer: the model
// emits none, or the server sends it inline in the answer text. The
// inventory declares it (model.reasoning: none or inline), or the data
// show it (reasoning tokens 0 in every request, or a reported 0). With that
// evidence on both sides, ttft = ttft_answer, tpot = tpot_answer and
// output_tokens = answer_tokens, and V004 warns of the assumption instead
// of refusing the pair; so are ttst and ttst_answer, and the per-user
// rates of the two (1 / tpot).

// answerPairs are the all-output and answer-only definitions of one
// quantity. With no reasoning apart from the answer the chunks and tokens
// they count are the same, so the second token's gap (ttst) and the
// per-user rate (1 / tpot) are the same too.
var answerPairs = [][2]schemas.MetricID{
	{schemas.TTFT, schemas.TTFTAnswer}, {schemas.TPOT, schemas.TPOTAnswer}, {schemas.OutputTokens, schemas.AnswerTokens},
	{schemas.TTST, schemas.TTSTAnswer}, {schemas.OutputTokenRatePerUser, schemas.OutputTokenRatePerUserAnswer},
}

// answerPair reports whether a mismatch pairs an all-output definition on
// one side with its answer-only one on the other.
func answerPair(m mismatch) bool {
	for _, p := range answerPairs {
		if (slices.Contains(m.a, p[0]) && slices.Contains(m.b, p[1])) || (slices.Contains(m.a, p[1]) && slices.Contains(m.b, p[0])) {
			return true
		}
	}
	return false
}

// reasoningEvidence says why no reasoning reaches a run's client apart from
// the answer, or "" when nothing says so.
func reasoningEvidence(d *RunData) string {
	switch d.Run.SUT.Reasoning {
	case schemas.ReasoningNone:
		return "the inventory declares model.reasoning: none"
	case schemas.ReasoningInline:
		return "the inventory declares model.reasoning: inline (reasoning arrives in the answer text, so answer-only timing starts at it too)"
	}
	if rs := d.Requests; rs != nil && rs.OK > 0 && rs.ReasoningKnown == rs.OK && rs.ReasoningNonZero == 0 {
		return fmt.Sprintf("reasoning tokens are 0 in all %d successful requests", rs.ReasoningKnown)
	}
	for _, m := range d.Metrics {
		if m.MetricID == schemas.ReasoningTokens && m.Value.OK && m.Value.V == 0 && (m.Stat == schemas.StatMax || m.Stat == schemas.StatSum) {
			return "the tool reports 0 reasoning tokens (" + m.NativeName + ")"
		}
	}
	return ""
}

// reasoningAssumed turns an answer-pair mismatch into a warning when both
// runs show that no reasoning reaches the client apart from the answer; ok
// is false otherwise, and hint then says what evidence is missing.
func reasoningAssumed(s subject, a, b *RunData, m mismatch) (f Finding, ok bool, hint string) {
	if !answerPair(m) {
		return Finding{}, false, ""
	}
	ea, eb := reasoningEvidence(a), reasoningEvidence(b)
	if ea == "" || eb == "" {
		var missing []string
		for _, x := range []struct {
			d *RunData
			e string
		}{{a, ea}, {b, eb}} {
			if x.e == "" {
				missing = append(missing, x.d.Name())
			}
		}
		return Finding{}, false, fmt.Sprintf(" If the model emits no separate reasoning, the two cover the same tokens: declare it in the inventory (model.reasoning: none, or inline) for %s.", joinAnd(missing))
	}
	f = s.finding(fmt.Sprintf("%s is reported as %s by %s and as %s by %s, which cover the same tokens only when no reasoning reaches the client apart from the answer; that is assumed: for %s %s, for %s %s",
		m.family, describeIDs(m.a), a.Name(), describeIDs(m.b), b.Name(), a.Name(), ea, b.Name(), eb))
	f.severity, f.Metric = Warning, m.family
	f.Fields, f.Values = []string{"metric_id", "sut.reasoning"}, []string{strings.Join(idStrings(m.a), ", ") + " (" + ea + ")", strings.Join(idStrings(m.b), ", ") + " (" + eb + ")"}
	return f, true, ""
}
