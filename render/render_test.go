package render

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"
)

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")",
		"+1":                       "'+1",
		"-cmd":                     "'-cmd",
		"@SUM(A1)":                 "'@SUM(A1)",
		"\tx":                      "'\tx",
		"\rx":                      "'\rx",
		"plain":                    "plain",
		"":                         "",
		"a=b":                      "a=b",
	} {
		if got := SafeText(in); got != want {
			t.Errorf("SafeText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuantity(t *testing.T) {
	test := func(v float64, unit, want string) {
		t.Helper()
		if got := Quantity(v, unit); got != want {
			t.Errorf("Quantity(%v, %q) = %q, want %q", v, unit, got, want)
		}
	}
	test(0.03618261438, "s", "36.18 ms")
	test(1.2345678, "s", "1.235 s")
	test(0.0000123, "s", "12.3 µs")
	test(0, "s", "0 s")
	test(6.878, "requests/s", "6.878 requests/s")
	test(4584.123, "tokens/s", "4584 tokens/s")
	test(0.8125, "ratio", "81.25 %")
	test(math.Inf(1), "requests/s", "inf")
	test(240, "tokens", "240 tokens")
}

// TestCSVNeverWritesFormulas: text cells are neutralised, numbers stay
// numbers.
func TestCSVNeverWritesFormulas(t *testing.T) {
	tb := &Table{Columns: []string{"model", "ttft"}}
	tb.AddRow(T("=cmd|' /C calc'!A0"), N("1 ms", 0.001))
	tb.AddRow(T("-2+3"), N("-1 ms", -0.001))
	var b bytes.Buffer
	if err := Write(&b, CSV, []*Table{tb}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"model", "ttft"}, {"'=cmd|' /C calc'!A0", "0.001"}, {"'-2+3", "-0.001"}}
	if len(recs) != len(want) {
		t.Fatalf("got %q", recs)
	}
	for i := range want {
		if strings.Join(recs[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("row %d: %q, want %q", i, recs[i], want[i])
		}
	}
}

func TestTextAndMarkdown(t *testing.T) {
	tb := &Table{Title: "T", Columns: []string{"a", "value"}, Notes: []string{"note"}}
	tb.AddRow(T("x|y"), N("1.5 s", 1.5))
	tb.AddRow(T("longer"), N("10 s", 10.0))
	var b bytes.Buffer
	Write(&b, Text, []*Table{tb})
	want := "T\na       value\n------  -----\nx|y     1.5 s\nlonger   10 s\nnote\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	Write(&b, Markdown, []*Table{tb})
	want = "### T\n\n| a | value |\n| --- | --: |\n| x\\|y | 1.5 s |\n| longer | 10 s |\n\nnote  \n"
	if b.String() != want {
		t.Errorf("markdown:\n%q\nwant:\n%q", b.String(), want)
	}
	b.Reset()
	Write(&b, JSON, []*Table{tb})
	if !strings.Contains(b.String(), `"x|y",`) || !strings.Contains(b.String(), "1.5") {
		t.Errorf("json: %s", b.String())
	}
}
