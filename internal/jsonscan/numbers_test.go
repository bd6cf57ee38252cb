package jsonscan

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// numberEvents scans data and describes what a caller sees, one event per
// token: kind, text (a number's float64 bits) and position. With fast, every
// array goes through Numbers first; an array it accepts becomes one event
// with its values and the scanner's position after it. Without, the
// tokens of an array that Numbers should accept (every element a JSON number
// that Float parses) are gathered into the same event by hand, so the two
// descriptions match exactly when Numbers accepts what it should and leaves
// the scanner as Next would.
func numberEvents(r io.Reader, fast bool) []string {
	s := New(r)
	var out []string
	tokEvent := func(tok Token) string {
		text := string(tok.Raw)
		if tok.Kind == Number {
			f, err := Float(tok.Raw)
			text = fmt.Sprintf("%x/%v", math.Float64bits(f), err)
		}
		return fmt.Sprintf("%v:%s@%v/%d", tok.Kind, text, tok.Pos, tok.Pos.Off)
	}
	arrEvent := func(xs []float64) string {
		var b strings.Builder
		for _, x := range xs {
			fmt.Fprintf(&b, "%x,", math.Float64bits(x))
		}
		return fmt.Sprintf("numbers[%s]@%v/%d depth %d", b.String(), s.Pos(), s.Pos().Off, s.Depth())
	}
	var pending []Token // without fast: an array read so far, its '[' first
	var xs []float64
	flush := func() {
		for _, t := range pending {
			out = append(out, tokEvent(t))
		}
		pending = pending[:0]
	}
	for {
		tok, err := s.Next()
		if err != nil {
			flush()
			return append(out, fmt.Sprintf("error %v", err))
		}
		tok.Raw = bytes.Clone(tok.Raw)
		if len(pending) > 0 {
			switch {
			case tok.Kind == EndArray:
				xs = xs[:0]
				for _, t := range pending[1:] {
					f, _ := Float(t.Raw)
					xs = append(xs, f)
				}
				pending = pending[:0]
				out = append(out, arrEvent(xs))
				continue
			case tok.Kind == Number && validNumber(tok.Raw):
				if _, ferr := Float(tok.Raw); ferr == nil {
					pending = append(pending, tok)
					continue
				}
			}
			flush()
		}
		if tok.Kind != BeginArray {
			out = append(out, tokEvent(tok))
			continue
		}
		if !fast {
			pending = append(pending, tok)
			continue
		}
		out = append(out, tokEvent(tok))
		if got, ok := s.Numbers(xs[:0]); ok {
			out[len(out)-1] = arrEvent(got)
		}
	}
}

func checkNumbers(t *testing.T, data []byte) {
	t.Helper()
	readers := []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return bytes.NewReader(data) }},
		{"one byte", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }},
		{"half", func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) }},
	}
	for _, rd := range readers {
		want := numberEvents(rd.r(), false)
		got := numberEvents(rd.r(), true)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s reader, %q:\nwith Numbers:\n%s\nwith Next:\n%s", rd.name, data, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestNumbers(t *testing.T) {
	long := "[" + strings.Repeat("0.012345678901234567,\n", numbersSpan/40) + "1]" // within numbersSpan
	for _, in := range []string{
		`[]`, `[ ]`, "[\n]", `[1]`, `[1,2,3]`, `[ 1 , -2.5e3 ,0.1 ]`,
		"{\"itls\": [0.01,\n 0.02,\r\n\t0.03],\n \"x\": [[1,2],[3]]}",
		`[[1,2],[3,[4]],5]`,
		`[1,"a",2]`, `["a",1]`, `[1,null]`, `[true]`, `[{"a":1}]`, `[[]]`,
		`[1,]`, `[,1]`, `[1 2]`, `[1,,2]`, `[1`, `[1,2`, `[01]`, `[1.]`, `[-]`, `[1e]`, `[.5]`, `[+1]`,
		`[NaN]`, `[1,Infinity]`, `[-Infinity,2]`, `[1e400]`, `[-1e400,1]`, `[1e-400]`, `[4.9e-324]`,
		`[123456789012345678901234567890]`, `[0.1234567890123456789]`, `[9007199254740993]`, `[-0]`, `[-0.0]`,
		`[1true]`, `[1]]`, `[1]x`, `[1] [2,3]`, `[1],[2]`, "[1]\n[2]\n", `{"a":[1],"b":[2]}`,
		long, long[:len(long)-1],
	} {
		checkNumbers(t, []byte(in))
	}
}

// TestNumbersSpan: an array longer than numbersSpan is left to Next.
func TestNumbersSpan(t *testing.T) {
	in := "[" + strings.Repeat("1,", numbersSpan) + "1]"
	s := New(strings.NewReader(in))
	mustNext(t, s, BeginArray)
	if _, ok := s.Numbers(nil); ok {
		t.Fatal("Numbers read an array longer than numbersSpan")
	}
	n, err := s.SkipArray()
	if err != nil || n != numbersSpan+1 {
		t.Fatalf("after the refusal, SkipArray = %d, %v; want %d elements", n, err, numbersSpan+1)
	}
}

// TestNumbersState: Numbers only reads right after an array's '['.
func TestNumbersState(t *testing.T) {
	s := New(strings.NewReader(`{"a":[1,2]}`))
	if _, ok := s.Numbers(nil); ok {
		t.Fatal("Numbers read before any token")
	}
	mustNext(t, s, BeginObject)
	if _, ok := s.Numbers(nil); ok {
		t.Fatal("Numbers read inside an object")
	}
	mustNext(t, s, Key)
	mustNext(t, s, BeginArray)
	mustNext(t, s, Number)
	if _, ok := s.Numbers(nil); ok {
		t.Fatal("Numbers read from the middle of an array")
	}
}

func FuzzNumbers(f *testing.F) {
	for _, seed := range []string{`[1,2,3]`, "{\"a\": [0.5,\n1e3], \"b\": [[1],[\"x\"]]}", `[1,]`, `[NaN,1]`, `[1e400]`, `[1] [2`, "[\n1\n,\n2\n]"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkNumbers(t, data)
	})
}

// BenchmarkNumbers compares Numbers with a Next and a Float per element
// on arrays like vLLM's itls (16 gaps of 17 significant digits).
func BenchmarkNumbers(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 100_000 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("[")
		for k := range 16 {
			if k > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%v", 0.01+float64((i*16+k)%997)*1.234567e-5)
		}
		sb.WriteString("]")
	}
	sb.WriteString("]")
	data := []byte(sb.String())
	for _, fast := range []bool{false, true} {
		b.Run(fmt.Sprintf("numbers=%v", fast), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var xs []float64
			for range b.N {
				s := New(bytes.NewReader(data))
				if _, err := s.Next(); err != nil {
					b.Fatal(err)
				}
				for {
					tok, err := s.Next()
					if err != nil {
						b.Fatal(err)
					}
					if tok.Kind == EndArray {
						break
					}
					var ok bool
					if fast {
						if xs, ok = s.Numbers(xs[:0]); ok {
							continue
						}
					}
					for {
						tok, err := s.Next()
						if err != nil {
							b.Fatal(err)
						}
						if tok.Kind == EndArray {
							break
						}
						f, _ := Float(tok.Raw)
						xs = append(xs, f)
					}
				}
			}
		})
	}
}
