package schemas

import (
	"slices"
	"strings"
	"testing"
)

// TestCrosswalk checks every entry: a registered definition, a known
// standard and match, a note where the match is close, BR names among
// BR's fields; and that the definitions other standards name carry those
// names in the registry.
func TestCrosswalk(t *testing.T) {
	brFields := []string{BRTTFT, BRTPOT, BRITL, BRNTPOT, BRRequestLat, BRInputLength, BROutputLength, BRRequestRate, BRInputRate, BROutputRate, BRTotalRate}
	seen := map[string]bool{}
	for _, s := range Crosswalk() {
		if _, ok := Lookup(s.Metric); !ok {
			t.Errorf("%s: not a registry definition", s.Metric)
		}
		switch s.Standard {
		case StandardOTel:
			if !strings.HasPrefix(s.Name, "gen_ai.") {
				t.Errorf("%s: OpenTelemetry name %q", s.Metric, s.Name)
			}
		case StandardBR:
			if !slices.Contains(brFields, strings.TrimPrefix(s.Name, BRAggregate)) {
				t.Errorf("%s: %q is not a BR field", s.Metric, s.Name)
			}
		case StandardMLPerf, StandardMLPerfEndpoints:
		default:
			t.Errorf("%s: unknown standard %q", s.Metric, s.Standard)
		}
		if s.Match != MatchSame && s.Match != MatchClose {
			t.Errorf("%s: match %q", s.Metric, s.Match)
		}
		if s.Match == MatchClose && s.Note == "" {
			t.Errorf("%s %s: a close match says what differs", s.Metric, s.Name)
		}
		k := string(s.Metric) + "|" + s.Standard + "|" + s.Name
		if seen[k] {
			t.Errorf("duplicate entry %s", k)
		}
		seen[k] = true
	}
	// The names the issue lists, on the definitions they stand for.
	for id, want := range map[MetricID][]string{
		TTFT:         {"gen_ai.client.operation.time_to_first_chunk", BRAggregate + BRTTFT, "ttft"},
		ITLChunk:     {"gen_ai.client.operation.time_per_output_chunk", BRAggregate + BRITL},
		ServerTPOT:   {"gen_ai.server.time_per_output_token"},
		ServerTTFT:   {"gen_ai.server.time_to_first_token"},
		E2E:          {"gen_ai.client.operation.duration", BRAggregate + BRRequestLat, "latency"},
		TPOTInclTTFT: {BRAggregate + BRNTPOT},
	} {
		var names []string
		for _, s := range MustLookup(id).Standards {
			names = append(names, s.Name)
		}
		for _, w := range want {
			if !slices.Contains(names, w) {
				t.Errorf("%s: standards %v lack %s", id, names, w)
			}
		}
	}
	// Every BR field is written from its exact definition first.
	for _, f := range brFields {
		c := StandardFor(StandardBR, BRAggregate+f)
		if len(c) == 0 || c[0].Match != MatchSame {
			t.Errorf("%s: first candidate %v", f, c)
		}
	}
	if k, ok := BRPercentileKey(99.9); !ok || k != "p99p9" {
		t.Errorf("BRPercentileKey(99.9) = %q", k)
	}
	if _, ok := BRPercentileKey(97); ok {
		t.Error("BR has no p97")
	}
}
