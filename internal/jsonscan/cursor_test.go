package jsonscan

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

type tokText struct {
	k   Kind
	raw string
}

// cursorTokens reads one value with a Cursor as a token list; false when
// the Cursor refuses it.
func cursorTokens(c *Cursor, out []tokText) ([]tokText, bool) {
	switch c.Peek() {
	case BeginObject:
		if !c.Begin('{') {
			return nil, false
		}
		out = append(out, tokText{BeginObject, "{"})
		for first := true; ; first = false {
			key, done, ok := c.Member(first)
			if !ok {
				return nil, false
			}
			if done {
				return append(out, tokText{EndObject, "}"}), true
			}
			out = append(out, tokText{Key, `"` + string(key) + `"`})
			if out, ok = cursorTokens(c, out); !ok {
				return nil, false
			}
		}
	case BeginArray:
		if !c.Begin('[') {
			return nil, false
		}
		out = append(out, tokText{BeginArray, "["})
		for first := true; ; first = false {
			done, ok := c.Elem(first)
			if !ok {
				return nil, false
			}
			if done {
				return append(out, tokText{EndArray, "]"}), true
			}
			if out, ok = cursorTokens(c, out); !ok {
				return nil, false
			}
		}
	case String:
		s, ok := c.String()
		return append(out, tokText{String, `"` + string(s) + `"`}), ok
	case Number:
		raw, k, ok := c.Literal()
		return append(out, tokText{k, string(raw)}), ok
	}
	return nil, false
}

// scannerTokens reads b with a Scanner; false unless b is exactly one
// well-formed value.
func scannerTokens(b []byte) ([]tokText, bool) {
	sc := New(bytes.NewReader(b))
	var out []tokText
	values := 0
	for {
		t, err := sc.Next()
		if err == io.EOF {
			return out, values == 1
		}
		if err != nil {
			return nil, false
		}
		if sc.Depth() == 0 {
			values++
		}
		out = append(out, tokText{t.Kind, string(t.Raw)})
	}
}

// checkCursor fails when the Cursor accepts b and the Scanner does not, or
// reads it otherwise.
func checkCursor(t *testing.T, b []byte) bool {
	t.Helper()
	var c Cursor
	c.Reset(b)
	got, ok := cursorTokens(&c, nil)
	if !ok || !c.End() {
		return false
	}
	want, wok := scannerTokens(b)
	if !wok {
		t.Fatalf("%q: the Cursor accepts what the Scanner refuses", b)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: Cursor %v, Scanner %v", b, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%q: token %d: Cursor %v, Scanner %v", b, i, got[i], want[i])
		}
	}
	return true
}

func TestCursor(t *testing.T) {
	for _, c := range []struct {
		in     string
		accept bool
	}{
		{`{"a": 1, "b": [1.5, -2e3, true, false, null, NaN, -Infinity], "c": {"d": "x"}}`, true},
		{" \t{}\r\n", true},
		{`[]`, true},
		{`[[[]]]`, true},
		{`"s"`, true},
		{`-0.0`, true},
		{`{"a": "\n"}`, false},       // an escape: the Scanner's
		{`{"a\"b": 1}`, false},       // an escaped key
		{`{"a": 1,}`, false},         // trailing comma
		{`[1,]`, false},              // trailing comma
		{`[1 2]`, false},             // missing comma
		{`{"a" 1}`, false},           // missing colon
		{`{"a": 01}`, false},         // leading zero
		{`{"a": 1.}`, false},         // no fraction digits
		{`{"a": tru}`, false},        // a bad word
		{`{"a": 1e}`, false},         // no exponent digits
		{`{"a": 1}}`, false},         // unbalanced
		{`{"a": 1} {"b": 2}`, false}, // two values
		{`{"a": [1}`, false},         // mismatched close
		{`{"a": "x}`, false},         // unterminated
		{`{1: 2}`, false},            // a number as key
		{``, false},
		{`{"a": 1`, false},
	} {
		if got := checkCursor(t, []byte(c.in)); got != c.accept {
			t.Errorf("%q: accepted %v, want %v", c.in, got, c.accept)
		}
	}
	deep := bytes.Repeat([]byte("["), CursorDepth+1)
	deep = append(deep, bytes.Repeat([]byte("]"), CursorDepth+1)...)
	if checkCursor(t, deep) {
		t.Errorf("accepted %d levels of nesting", CursorDepth+1)
	}
	if !checkCursor(t, deep[1:len(deep)-1]) {
		t.Errorf("refused %d levels of nesting", CursorDepth)
	}
}

func FuzzCursor(f *testing.F) {
	for _, s := range []string{`{"metadata": {"a": 1}, "metrics": {"x": {"value": [1.5, 2], "unit": "ms"}}, "error": null}`,
		`[1, "a", {"b": [true, null]}]`, `{"a": -Infinity}`, `{"a": 1e5, "b": 0.25}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkCursor(t, b) })
}

// TestFloatExact: Float's fast path gives strconv's value bit for bit,
// and leaves to strconv what it cannot do exactly.
func TestFloatExact(t *testing.T) {
	for _, s := range []string{"0", "-0", "-0.0", "1", "23.456789", "9007199254740992", "9007199254740993",
		"0.1", "0.3", "1.7976931348623157", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"0.0000000000000000000001", "0.00000000000000000000001", "4.35", "2161.7194687234705", "1e22", "1.5e-3",
		"000.5", "1.", ".5", "-", "", ".", "-.5", "1e400", "5e-400"} {
		checkFloat(t, []byte(s))
	}
}

func checkFloat(t *testing.T, b []byte) {
	t.Helper()
	switch string(b) {
	case "NaN", "Infinity", "-Infinity":
		return
	}
	got, gerr := Float(b)
	want, werr := strconv.ParseFloat(string(b), 64)
	if (gerr == nil) != (werr == nil) || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("Float(%q) = %v, %v; strconv: %v, %v", b, got, gerr, want, werr)
	}
}

func FuzzFloat(f *testing.F) {
	for _, s := range []string{"23.456789", "-0.0", "9007199254740993", "0.1", "1e5"} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFloat)
}

func BenchmarkFloat(b *testing.B) {
	in := [][]byte{[]byte("23.456789"), []byte("512"), []byte("2161.7194687234705"), []byte("0.0091190842739132475")}
	for b.Loop() {
		for _, s := range in {
			if _, err := Float(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestFloatRandom compares Float with strconv.ParseFloat, bit for bit, on
// millions of numbers of the kinds that reach Eisel-Lemire: shortest and
// fixed-precision forms of random float64s, random digit strings with
// random exponents across the whole table, integers between 2^53 and
// 10^19 (where exact halfway cases live), and subnormal and overflowing
// magnitudes that must be left to strconv.
func TestFloatRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	n := 400_000
	if testing.Short() {
		n = 20_000
	}
	var buf []byte
	check := func(b []byte) {
		got, gerr := Float(b)
		want, werr := strconv.ParseFloat(string(b), 64)
		if (gerr == nil) != (werr == nil) || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Float(%q) = %v (%x), %v; strconv: %v (%x), %v", b, got, math.Float64bits(got), gerr, want, math.Float64bits(want), werr)
		}
	}
	for range n {
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		check(strconv.AppendFloat(buf[:0], x, 'g', -1, 64))
		check(strconv.AppendFloat(buf[:0], x, 'e', 14+rng.IntN(5), 64))
		// latencies as Python's repr prints them: fixed notation
		l := math.Exp(rng.NormFloat64()*3) * 0.01
		check(strconv.AppendFloat(buf[:0], l, 'f', -1, 64))
		check(strconv.AppendFloat(buf[:0], l, 'f', rng.IntN(22), 64))
		// a random mantissa of up to 19 digits and any exponent
		digits := 1 + rng.IntN(19)
		b := buf[:0]
		if rng.IntN(2) == 0 {
			b = append(b, '-')
		}
		for d := range digits {
			c := byte('0' + rng.IntN(10))
			if d == 0 && c == '0' {
				c = '1'
			}
			b = append(b, c)
		}
		b = append(b, 'e')
		b = strconv.AppendInt(b, int64(rng.IntN(800)-400), 10)
		check(b)
		// integers past 2^53: odd ones between 2^53 and 2^54 are halfway
		check(strconv.AppendUint(buf[:0], 1<<53+rng.Uint64N(1<<53), 10))
		check(strconv.AppendUint(buf[:0], rng.Uint64N(1e19), 10))
	}
	// exact halfway points scaled by powers of two, which stay integers
	for k := range 10 {
		for _, m := range []uint64{1<<53 + 1, 1<<53 + 3, 1<<54 - 1} {
			check(strconv.AppendUint(buf[:0], m<<k, 10))
		}
	}
}
