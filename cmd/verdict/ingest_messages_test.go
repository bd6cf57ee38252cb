package main

import (
	"reflect"
	"testing"

	"github.com/verdict-llm/verdict/schemas"
)

// TestIngestMessages: a warning names its file once, and floods of
// warnings or rejections become one line per cause.
func TestIngestMessages(t *testing.T) {
	src := schemas.Source{Path: "x.json", Files: []schemas.SourceFile{{Path: "x.json"}, {Path: "y.csv"}},
		Warnings: []string{
			"x.json: line 3: unknown key \"foo\" kept as a label",
			"unknown key \"bar\" kept as a label",
			"y.csv: row 4: value 1.5 rounded",
			"y.csv: row 9: value 2.5 rounded",
			"y.csv: row 12: value 7.25 rounded",
		},
		Rejections: []schemas.Rejection{
			{Table: schemas.TableRequests, Line: 10, Field: "ttft", Reason: "negative latency"},
			{Table: schemas.TableRequests, Line: 11, Field: "ttft", Reason: "negative latency"},
			{Table: schemas.TableRequests, Line: 12, Field: "e2e", Reason: "not a number"},
		},
		RejectionsOmitted: 5,
		Counts: map[string]schemas.Counts{schemas.TableRequests: {Read: 100, Ingested: 92, Rejected: 8,
			Reasons: map[string]int64{"negative latency": 7, "not a number": 1}}},
	}
	wantW := []string{
		"x.json: line 3: unknown key \"foo\" kept as a label",
		"x.json: unknown key \"bar\" kept as a label",
		"y.csv: row 4: value 1.5 rounded (and 2 more like it)",
	}
	if got := warningLines(src); !reflect.DeepEqual(got, wantW) {
		t.Errorf("warnings:\n%q\nwant\n%q", got, wantW)
	}
	wantR := []string{
		"x.json: 7 requests rows: ttft: negative latency (the first at line 10)",
		"x.json: line 12: e2e: not a number",
	}
	if got := rejectionLines(src); !reflect.DeepEqual(got, wantR) {
		t.Errorf("rejections:\n%q\nwant\n%q", got, wantR)
	}
}
