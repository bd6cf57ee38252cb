package costing

import (
	"errors"
	"math/big"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		exp      int32
	}{
		{"0.00000080000", "0.00000080000", -11},
		{"0.000000144000000000000000", "0.000000144000000000000000", -24},
		{"25865.560894286837087083598", "25865.560894286837087083598", -21},
		{"-2.61370000000", "-2.61370000000", -11},
		{"5e-06", "0.000005", -6},
		{"2.3198314011096954e-05", "0.000023198314011096954", -21},
		{"-1.5e1", "-15", 0},
		{"1E3", "1000", 3},
		{"+7", "7", 0},
		{"  12.50 ", "12.50", -2},
		{".5", "0.5", -1},
		{"5.", "5", 0},
		{"-0", "0", 0},
		{"0.0", "0.0", -1},
		{"99999999999999999999999.1", "99999999999999999999999.1", -1},
		{"-9223372036854775808", "-9223372036854775808", 0},
		{"9223372036854775808", "9223372036854775808", 0},
	} {
		d, err := ParseDecimal(tc.in)
		if err != nil || d.String() != tc.want || d.Exponent() != tc.exp {
			t.Errorf("ParseDecimal(%q) = %s (exp %d), %v; want %s (exp %d)", tc.in, d, d.Exponent(), err, tc.want, tc.exp)
		}
	}
	for _, in := range []string{"", " ", "1,000", "$5", "NaN", "1.2.3", "e5", ".", "-", "1e", "1e+", "0x10", "1 000", "Inf"} {
		if _, err := ParseDecimal(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseDecimal(%q): err %v, want ErrSyntax", in, err)
		}
	}
	for _, in := range []string{"1e401", "1e-401", "1e99999999999"} {
		if _, err := ParseDecimal(in); !errors.Is(err, ErrRange) {
			t.Errorf("ParseDecimal(%q): err %v, want ErrRange", in, err)
		}
	}
}

func TestDecimalArithmetic(t *testing.T) {
	test := func(op string, got Decimal, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s = %s, want %s", op, got, want)
		}
	}
	test("0.10 + 0.2", dec("0.10").Add(dec("0.2")), "0.30")
	test("5e-06 + -5e-06", dec("5e-06").Add(dec("-5e-06")), "0.000000")
	test("1 + 1e-20", dec("1").Add(dec("1e-20")), "1.00000000000000000001")
	test("max int64 + 1", dec("9223372036854775807").Add(dec("1")), "9223372036854775808")
	test("big - big back to int64", dec("9223372036854775808").Sub(dec("1")), "9223372036854775807")
	test("2.49 × 6", dec("2.49").Mul(dec("6")), "14.94")
	test("PayGPrice × Quantity", dec("76.8").Mul(dec("0.03225806")), "2.477419008")
	test("huge × huge", dec("123456789012.345678").Mul(dec("987654321098.765432")), "121932631137021794322511.812221002896")
	test("neg", dec("-1.50").Neg(), "1.50")
	test("neg min int64", dec("-9223372036854775808").Neg(), "9223372036854775808")
	test("round 71.9945 to 2", dec("71.9945").Round(2), "71.99")
	test("round 2.5 half even", dec("2.5").Round(0), "2")
	test("round 3.5 half even", dec("3.5").Round(0), "4")
	test("round -2.675 to 2", dec("-2.675").Round(2), "-2.68")
	test("round 1.2 to 4 (no padding)", dec("1.2").Round(4), "1.2")
	test("round 1250 to -2 (half even)", dec("1250").Round(-2), "1200")
	if dec("1.0").Cmp(dec("1.00")) != 0 || dec("-1").Cmp(dec("0.5")) != -1 || dec("1e30").Cmp(dec("9e29")) != 1 {
		t.Error("Cmp")
	}
	if f := dec("0.1").Float64(); f != 0.1 {
		t.Errorf("Float64(0.1) = %v", f)
	}
	r := dec("-0.125").Rat()
	if r.Cmp(big.NewRat(-1, 8)) != 0 {
		t.Errorf("Rat(-0.125) = %v", r)
	}
	if !dec("0.000").IsZero() || dec("-0.1").Sign() != -1 {
		t.Error("IsZero/Sign")
	}
}

// TestProrate checks the rounding of prorated shares.
func TestProrate(t *testing.T) {
	test := func(cost string, num, den time.Duration, places int32, want string, wantRounded bool) {
		t.Helper()
		got, rounded := prorate(dec(cost), num, den, places)
		if got.String() != want || rounded != wantRounded {
			t.Errorf("prorate(%s, %v/%v) = %s rounded=%t, want %s rounded=%t", cost, num, den, got, rounded, want, wantRounded)
		}
	}
	test("98.3200", 30*time.Minute, time.Hour, 12, "49.1600", false)
	test("3.20", 30*time.Minute, time.Hour, 12, "1.60", false)
	test("2.4567", 30*time.Minute, time.Hour, 12, "1.22835", false)
	test("1", 20*time.Minute, time.Hour, 12, "0.333333333333", true)
	test("2", 20*time.Minute, time.Hour, 12, "0.666666666667", true)
	test("0.00377554707705832", 45*time.Minute, time.Hour, 12, "0.00283166030779374", false)
	test("120.00", 45*time.Minute, 24*time.Hour, 12, "3.75", false)
	test("-4.9160", time.Hour, time.Hour, 12, "-4.9160", false)
}

func TestParseTime(t *testing.T) {
	want := time.Date(2024, 9, 18, 22, 0, 0, 0, time.UTC)
	for _, in := range []string{
		"2024-09-18T22:00:00Z", "2024-09-18 22:00:00", "2024-09-18T22:00:00", "2024-09-18 22:00:00+00:00",
		"2024-09-18T22:00:00.000Z", "2024-09-18T22:00:00.0000000Z", "2024-09-18 22:00:00 UTC", "2024-09-18T22:00Z",
		"2024-09-19T00:00:00+02:00", "2024-09-18T17:00:00-0500", "2024-09-19T01:00:00+03", " 2024-09-18t22:00:00z ",
		"09/18/2024 22:00", "9/18/2024 10:00:00 PM", "09/18/2024 10:00 pm",
	} {
		got, err := ParseTime(in)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, w := range map[string]time.Time{
		"2023-09-22":                       time.Date(2023, 9, 22, 0, 0, 0, 0, time.UTC),
		"09/22/2023":                       time.Date(2023, 9, 22, 0, 0, 0, 0, time.UTC),
		"9/2/2023":                         time.Date(2023, 9, 2, 0, 0, 0, 0, time.UTC),
		"2020-11-10 05:49:32.199000+00:00": time.Date(2020, 11, 10, 5, 49, 32, 199e6, time.UTC),
		"12/31/2024 12:00 AM":              time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := ParseTime(in); err != nil || !got.Equal(w) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, w)
		}
	}
	for _, in := range []string{"", "yesterday", "2024-13-01", "2024-02-30", "2024-09-18T25:00:00Z", "22/09/2023",
		"2024-09-18T22:00:00+25:00", "2024-09-18T22:00:00 CET", "2024-09-18T22", "2024-09-18T22:00:00.Z", "13/1/2024",
		"09/18/2024 13:00 PM", "2024/09/18"} {
		if _, err := ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q): no error", in)
		}
	}
}

func TestParseLiterals(t *testing.T) {
	recs, err := parseRecordList(`[{'name': 'FreeTrial:Credit-000000', 'amount': -5e-06, 'full_name': None, 'ok': True}, {"name": "x", "amount": 1}]`)
	if err != nil || len(recs) != 2 || recs[0]["amount"] != numLit("-5e-06") || recs[0]["full_name"] != nil ||
		recs[0]["ok"] != true || recs[1]["name"] != "x" {
		t.Errorf("parseRecordList: %v, %v", recs, err)
	}
	tags, err := parseTagObject(`"k": "v","it's": "a \"q\"", "n": 1, "b": false, "z": null, "nested": {"a": [1]}`)
	if err != nil || tags["k"] != "v" || tags[`it's`] != `a "q"` || tags["n"] != "1" || tags["b"] != "false" ||
		tags["z"] != "" || tags["nested"] != `{"a":[1]}` {
		t.Errorf("parseTagObject: %v, %v", tags, err)
	}
	for _, bad := range []string{"[{'a': 1}", "[1, 2]", "{'a' 1}", "[{'a': 1}] x", `"unterminated`} {
		if _, err := parseRecordList(bad); err == nil {
			t.Errorf("parseRecordList(%q): no error", bad)
		}
	}
}
