package costing

import (
	"bytes"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzReader reads data twice, detecting the format and forcing kind, and
// checks what every reader promises: no panic, every row accounted for,
// every problem positioned at file:line, decimals that round-trip.
func fuzzReader(t *testing.T, data []byte, kind Kind) {
	for _, format := range []Format{{}, {Kind: kind}} {
		r, err := NewReader(bytes.NewReader(data), ReaderOptions{FileName: "fuzz.csv", Format: format})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv:") {
				t.Fatalf("header error without a position: %v", err)
			}
			continue
		}
		n := 0
		for r.Scan() {
			n++
			switch rec := r.Record().(type) {
			case *Charge:
				if rec.Source.Line < 2 || rec.Source.File != "fuzz.csv" {
					t.Fatalf("charge without a position: %+v", rec.Source)
				}
				if rec.ChargePeriodEnd.Before(rec.ChargePeriodStart) || rec.BillingCurrency == "" {
					t.Fatalf("line %d: invalid charge kept: %+v", rec.Source.Line, rec)
				}
				for _, d := range []Decimal{rec.BilledCost, rec.EffectiveCost, rec.ListCost.Decimal} {
					back, err := ParseDecimal(d.String())
					if err != nil || back.Cmp(d) != 0 || back.String() != d.String() {
						t.Fatalf("line %d: decimal %s does not round-trip: %s, %v", rec.Source.Line, d, back, err)
					}
				}
			case *RowError:
				if rec.Line < 2 || !strings.HasPrefix(rec.Error(), "fuzz.csv:"+strconv.Itoa(rec.Line)+":") || rec.Err == nil {
					t.Fatalf("rejection without a position or cause: %v (%+v)", rec, rec)
				}
			default:
				t.Fatalf("record of type %T", rec)
			}
		}
		if err := r.Err(); err != nil && !strings.HasPrefix(err.Error(), "fuzz.csv:") {
			t.Fatalf("I/O error without a position: %v", err)
		}
		if c := r.Counts(); c.Rows != n || c.Rows != c.Charges+c.Rejected {
			t.Fatalf("counts %+v after %d records", c, n)
		}
	}
}

// seedFiles adds the hand-written fixtures matching glob, and a few
// mutations of them, to the corpus.
func seedFiles(f *testing.F, glob string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", glob))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(bytes.ReplaceAll(b, []byte(","), []byte(",\"")))
		if i := bytes.IndexByte(b, '\n'); i > 0 {
			f.Add(b[:i+1])
		}
	}
}

func FuzzReadFOCUS(f *testing.F) {
	seedFiles(f, "focus_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, data, FOCUS) })
}

func FuzzReadAWSCUR(f *testing.F) {
	seedFiles(f, "aws_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, data, AWSCUR) })
}

func FuzzReadGCP(f *testing.F) {
	seedFiles(f, "gcp_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, data, GCPExport) })
}

func FuzzReadAzure(f *testing.F) {
	seedFiles(f, "azure_*.csv")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, data, AzureCostDetails) })
}

// FuzzDecimal checks that parsing, printing and adding agree with
// math/big.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"0.00000080000", "-2.61370000000", "5e-06", "9223372036854775807", "-1.5e1", "1e400", ".5"} {
		f.Add(s, "1.25")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, err := ParseDecimal(a)
		if err != nil {
			return
		}
		back, err := ParseDecimal(x.String())
		if err != nil || back.String() != x.String() || back.Cmp(x) != 0 {
			t.Fatalf("%q → %s → %s, %v", a, x, back, err)
		}
		y, err := ParseDecimal(b)
		if err != nil {
			return
		}
		want := new(big.Rat).Add(x.Rat(), y.Rat())
		if got := x.Add(y).Rat(); got.Cmp(want) != 0 {
			t.Fatalf("%s + %s = %s, want %s", x, y, got.RatString(), want.RatString())
		}
		want = new(big.Rat).Mul(x.Rat(), y.Rat())
		if got := x.Mul(y).Rat(); got.Cmp(want) != 0 {
			t.Fatalf("%s × %s = %s, want %s", x, y, got.RatString(), want.RatString())
		}
		if c := x.Cmp(y); c != x.Rat().Cmp(y.Rat()) {
			t.Fatalf("Cmp(%s, %s) = %d", x, y, c)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-09-18 22:00:00", "2022-08-01 03:00:00+00:00", "09/22/2023", "2024-09-18T22:00:00.000Z", "2020-11-09 23:00:00 UTC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseTime(s)
		if err == nil && tm.Location().String() != "UTC" {
			t.Fatalf("ParseTime(%q) not in UTC: %v", s, tm)
		}
	})
}

func FuzzParseQuote(f *testing.F) {
	for _, n := range []string{"quote_h100.yaml", "quote_unknown_key.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQuote(data, "q.yaml")
		if err != nil {
			var qe *QuoteError
			if !errors.As(err, &qe) {
				t.Fatalf("error is not a QuoteError: %v", err)
			}
			return
		}
		run := RunWindow{Start: mustTime("2025-01-01T00:00:00Z"), End: mustTime("2025-01-01T00:45:00Z")}
		qc, err := q.Cost(run, map[string]Decimal{"egress": dec("1")})
		if err != nil {
			t.Fatal(err)
		}
		if qc.TotalCost.Cmp(qc.GPUCost.Add(qc.OtherListedCost)) != 0 {
			t.Fatalf("TOTAL_COST %s != %s + %s", qc.TotalCost, qc.GPUCost, qc.OtherListedCost)
		}
	})
}
