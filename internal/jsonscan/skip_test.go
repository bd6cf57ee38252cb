package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// interesting marks the bytes skipArrayBytewise must look at.
var interesting = func() (t [256]bool) {
	for _, c := range []byte("[]{}\",\n") {
		t[c] = true
	}
	return
}()

// skipArrayBytewise is SkipArray as it was before it read words: one
// byte at a time, the reference its word-at-a-time loop is checked
// against.
func (s *Scanner) skipArrayBytewise() (int, error) {
	if len(s.stack) == 0 || s.stack[len(s.stack)-1] != '[' || s.state != stArrFirst {
		return 0, errors.New("jsonscan: SkipArray must follow a '[' token")
	}
	depth := 0        // nesting below the array
	commas := 0       // commas at the array's own level
	nonEmpty := false // something other than whitespace at the array's level
	inString, esc := false, false
	for {
		if s.i >= len(s.buf) && !s.fill(s.i) {
			if s.rerr != nil {
				return 0, s.rerr
			}
			return 0, &SyntaxError{Pos: s.posAt(s.i), Msg: "unterminated array: " + ErrUnexpectedEOF.Error()}
		}
		b := s.buf
		for i := s.i; i < len(b); i++ {
			c := b[i]
			if inString {
				switch {
				case esc:
					esc = false
				case c == '\\':
					esc = true
				case c == '"':
					inString = false
				case c == '\n':
					s.line++
					s.lineStart = s.base + int64(i) + 1
				}
				continue
			}
			if !interesting[c] {
				if depth == 0 && c != ' ' && c != '\t' && c != '\r' {
					nonEmpty = true
				}
				continue
			}
			switch c {
			case '\n':
				s.line++
				s.lineStart = s.base + int64(i) + 1
			case '"':
				inString = true
				if depth == 0 {
					nonEmpty = true
				}
			case ',':
				if depth == 0 {
					commas++
				}
			case '[', '{':
				depth++
				nonEmpty = true
				if depth+len(s.stack) > MaxDepth {
					return 0, &SyntaxError{Pos: s.posAt(i), Msg: ErrTooDeep.Error()}
				}
			case ']', '}':
				if depth > 0 {
					depth--
					continue
				}
				if c != ']' {
					return 0, s.errorf(i, "unbalanced '}' in array")
				}
				s.i = i + 1
				s.stack = s.stack[:len(s.stack)-1]
				s.afterValue()
				if !nonEmpty {
					return 0, nil
				}
				return commas + 1, nil
			}
		}
		s.i = len(b)
	}
}

// skipOutcome is what SkipArray leaves: its result and the scanner's
// state, then the next token and its position.
func skipOutcome(in string, oneByte bool, skip func(*Scanner) (int, error)) string {
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	s := New(r)
	if tok, err := s.Next(); err != nil || tok.Kind != BeginArray {
		return fmt.Sprintf("first %v %v", tok.Kind, err)
	}
	n, err := skip(s)
	if err != nil {
		return fmt.Sprintf("error %v", err)
	}
	tok, err := s.Next()
	return fmt.Sprintf("%d elements, next %s %q at %+v, %v", n, tok.Kind, tok.Raw, tok.Pos, err)
}

// randomArray writes arrays like those benchmark tools write (numbers,
// nested arrays, strings with escapes and newlines, objects) with random
// spacing, some of them damaged.
func randomArray(r *rand.Rand) string {
	var b strings.Builder
	var value func(depth int)
	space := func() {
		for r.IntN(4) == 0 {
			b.WriteByte(" \t\r\n"[r.IntN(4)])
		}
	}
	value = func(depth int) {
		space()
		switch k := r.IntN(10); {
		case k < 5:
			fmt.Fprintf(&b, "%g", r.NormFloat64()*float64(r.IntN(1000)))
		case k < 7 && depth < 4:
			b.WriteByte('[')
			for e := range r.IntN(20) {
				if e > 0 {
					b.WriteByte(',')
				}
				value(depth + 1)
			}
			space()
			b.WriteByte(']')
		case k < 9:
			b.WriteByte('"')
			for range r.IntN(40) {
				b.WriteString([]string{"a", "x y", ",", "[", "]", "{", "}", "\\\"", "\\\\", "\n", "\\n", "\\u00e9", "é"}[r.IntN(13)])
			}
			b.WriteByte('"')
		default:
			b.WriteString(`{"k": [1, {"z": "]"}], "v": null}`)
		}
		space()
	}
	b.WriteByte('[')
	for e := range r.IntN(30) {
		if e > 0 {
			b.WriteByte(',')
		}
		value(0)
	}
	b.WriteString("]  7")
	s := b.String()
	if r.IntN(8) == 0 { // damaged: cut short, or a byte replaced
		i := r.IntN(len(s))
		if r.IntN(2) == 0 {
			s = s[:i]
		} else {
			s = s[:i] + string("]}[{\"\\,\n "[r.IntN(9)]) + s[i+1:]
		}
	}
	return s
}

// TestSkipArrayWords: the word-at-a-time SkipArray ends where the byte
// loop ends, with the same count, line, column or error, on 20,000
// random arrays read whole and one byte at a time (buffers ending at
// every offset).
func TestSkipArrayWords(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 26))
	for k := range 20_000 {
		in := randomArray(r)
		oneByte := k%10 == 0
		got := skipOutcome(in, oneByte, (*Scanner).SkipArray)
		want := skipOutcome(in, oneByte, (*Scanner).skipArrayBytewise)
		if got != want {
			t.Fatalf("%q (one byte at a time: %v):\n got %s\nwant %s", in, oneByte, got, want)
		}
	}
}

func FuzzSkipArray(f *testing.F) {
	for _, s := range []string{"[] 1", "[1, [2, 3], {\"a\": [4, 5]}, \"x,]\\\"y\", NaN] 1", "[\n[],\n[]\n]\n 7", "[\"abcdefgh\\\\\", 12345678, 9]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := skipOutcome(in, false, (*Scanner).SkipArray), skipOutcome(in, false, (*Scanner).skipArrayBytewise); got != want {
			t.Fatalf("%q:\n got %s\nwant %s", in, got, want)
		}
	})
}

// BenchmarkSkipArray: the arrays of a vLLM --save-detailed file (one of
// numbers, one of arrays of sixteen gaps), 1.6 MB.
func BenchmarkSkipArray(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("[")
	for k := range 10_000 {
		if k > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("[")
		for g := range 16 {
			if g > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprint(&sb, r.Float64()*0.05)
		}
		sb.WriteString("]")
	}
	sb.WriteString("] ")
	in := sb.String()
	for _, c := range []struct {
		name string
		skip func(*Scanner) (int, error)
	}{{"words", (*Scanner).SkipArray}, {"bytes", (*Scanner).skipArrayBytewise}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				s := New(strings.NewReader(in))
				s.Next()
				if n, err := c.skip(s); n != 10_000 || err != nil {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// TestStringEnd: stringEnd agrees with finding the first quote and
// refusing a backslash before it, for bodies of every length to 80 with
// a quote, a backslash, both or neither at every place.
func TestStringEnd(t *testing.T) {
	want := func(b []byte) int {
		q := bytes.IndexByte(b, '"')
		if q < 0 || bytes.IndexByte(b[:q], '\\') >= 0 {
			return -1
		}
		return q
	}
	for n := range 81 {
		for i := -1; i < n; i++ {
			for j := -1; j < n; j += 3 {
				b := bytes.Repeat([]byte("ab cd,é"), n)[:n]
				if j >= 0 {
					b[j] = '\\'
				}
				if i >= 0 {
					b[i] = '"'
				}
				if got := stringEnd(b); got != want(b) {
					t.Fatalf("%q: %d, want %d", b, got, want(b))
				}
			}
		}
	}
}

// TestSkipValue: SkipValue ends where SkipArray ends (or fails as it
// does) and returns exactly the text it passed over, for arrays and for
// objects holding them, read whole and one byte at a time; a scanner
// from NewInArrays reads that text again to the same tokens and refuses
// nesting at the same place.
func TestSkipValue(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 5_000 {
		arr := randomArray(r)
		obj := `{"k": ` + strings.TrimSuffix(arr, "  7") + `}  7`
		for _, in := range []string{arr, obj} {
			var rd io.Reader = strings.NewReader(in)
			if k%7 == 0 {
				rd = iotest.OneByteReader(rd)
			}
			s := New(rd)
			tok, err := s.Next()
			if err != nil {
				continue // damaged at its first byte
			}
			raw, err := s.SkipValue([]byte("x"))
			end := s.Pos().Off
			if in[0] == '[' {
				if got, want := skipOutcome(in, false, func(s *Scanner) (int, error) { _, err := s.SkipValue(nil); return 0, err }),
					skipOutcome(in, false, func(s *Scanner) (int, error) { _, err := s.SkipArray(); return 0, err }); got != want {
					t.Fatalf("%q:\n got %s\nwant %s", in, got, want)
				}
			}
			if err != nil {
				continue
			}
			if string(raw) != "x"+in[tok.Pos.Off:end] {
				t.Fatalf("%q: captured %q, want %q", in, raw[1:], in[tok.Pos.Off:end])
			}
		}
	}
	// The scanner goes on after the skipped value as after any value.
	s := New(strings.NewReader(`{"a": {"b": [1, "}"]}, "c": 2}`))
	var kinds []string
	for {
		tok, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, string(tok.Raw))
		if tok.Kind == BeginObject && tok.Pos.Off > 0 {
			raw, err := s.SkipValue(nil)
			if err != nil || string(raw) != `{"b": [1, "}"]}` {
				t.Fatalf("%q %v", raw, err)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != `{ "a" { "c" 2 }` {
		t.Errorf("tokens %s", got)
	}
	// A value read again inside 999 arrays may open one more, not two.
	for _, c := range []struct {
		in string
		ok bool
	}{{"[1]", true}, {"[[1]]", false}} {
		s := NewInArrays(strings.NewReader(c.in), Pos{Off: 5000, Line: 3, Col: 9}, MaxDepth-1)
		tok, err := s.Next()
		if err != nil || tok.Pos != (Pos{Off: 5000, Line: 3, Col: 9}) {
			t.Fatalf("%s: %+v %v", c.in, tok, err)
		}
		var serr error
		for serr == nil {
			_, serr = s.Next()
		}
		if ok := !errors.Is(serr, ErrTooDeep); ok != c.ok {
			t.Errorf("%s inside %d arrays: %v", c.in, MaxDepth-1, serr)
		}
	}
	if _, err := New(strings.NewReader("1")).SkipValue(nil); err == nil {
		t.Error("SkipValue without a bracket")
	}
}

// TestStringNewlines: a raw newline inside a string (which JSON forbids
// but the scanner passes over) counts as a line, so positions after it
// are true and agree with SkipArray's.
func TestStringNewlines(t *testing.T) {
	in := "[\"a\nb\", \"c\n\nd\"] 7"
	s := New(strings.NewReader(in))
	var last Token
	for {
		tok, err := s.Next()
		if err != nil {
			break
		}
		last = tok
	}
	if last.Pos != (Pos{Off: int64(len(in) - 1), Line: 4, Col: 5}) {
		t.Errorf("7 at %+v, want line 4, column 5", last.Pos)
	}
	if got, want := skipOutcome(in, false, (*Scanner).SkipArray), "2 elements, next number \"7\" at 4:5, <nil>"; got != want {
		t.Errorf("SkipArray: %s, want %s", got, want)
	}
}

// TestJSONFloat: jsonFloat accepts only JSON numbers (validNumber) and
// reads them as strconv does, and it accepts every JSON number that
// exactFloat reads, so Numbers never falls back for those; 1,000,000
// random strings of number characters and 200,000 random floats.
func TestJSONFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const chars = "0123456789.-+eE00"
	check := func(b []byte) {
		f, ok := jsonFloat(b)
		if !ok {
			if _, exact := exactFloat(b); exact && validNumber(b) {
				t.Fatalf("%q: a JSON number exactFloat reads, refused", b)
			}
			return
		}
		want, err := strconv.ParseFloat(string(b), 64)
		if !validNumber(b) || err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("%q: %v (valid %v, strconv %v %v)", b, f, validNumber(b), want, err)
		}
	}
	b := make([]byte, 0, 16)
	for range 1_000_000 {
		b = b[:0]
		for range 1 + r.IntN(12) {
			b = append(b, chars[r.IntN(len(chars))])
		}
		check(b)
	}
	for range 200_000 {
		x := math.Exp(r.NormFloat64()*10) * float64(1-2*r.IntN(2))
		for _, fmtc := range []byte{'g', 'e', 'f'} {
			check(strconv.AppendFloat(b[:0], x, fmtc, -1, 64))
		}
	}
}
