package costing

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Decimal is an exact decimal number: coefficient × 10^exponent.
//
// Money in billing files is written as decimal text with up to 24 digits
// after the point (Azure's 0.000000144000000000000000) and summed over
// hundreds of thousands of rows, where float64 sums drift. A Decimal keeps
// every digit the file wrote, including trailing zeros: "0.00000080000"
// is read as 80000 × 10^-11 and written back byte for byte, and the sum of
// "0.10" and "0.2" is "0.30". Text in scientific notation ("5e-06", as in
// GCP exports) keeps its digits but is written back in plain notation
// ("0.000005").
//
// The coefficient lives in an int64 while it fits, so reading and adding
// the usual cost values allocates nothing; longer coefficients move to a
// math/big.Int. The zero value is 0. Decimals are values: methods never
// modify their receiver. Compare them with [Decimal.Cmp], not ==.
type Decimal struct {
	c   int64    // coefficient when b == nil
	b   *big.Int // coefficient when it does not fit in an int64; never modified after creation
	exp int32    // value = coefficient × 10^exp
}

// maxExponent bounds the exponents Parse accepts. It keeps a hostile
// "1e999999999" from turning into a billion-digit integer when aligned
// with another value; no billing file needs more than a few dozen.
const maxExponent = 400

var (
	// ErrSyntax reports text that is not a decimal number: empty text,
	// letters, thousands separators, currency symbols or a second point.
	ErrSyntax = errors.New("costing: not a decimal number")
	// ErrRange reports a decimal exponent outside ±400.
	ErrRange = errors.New("costing: decimal exponent out of range")
)

// ParseDecimal reads s, which may be surrounded by spaces, as an exact
// decimal: an optional sign, digits with an optional point, and an
// optional exponent (e or E, optional sign, digits), as the FOCUS
// NumericFormat allows. A leading "+" is accepted. Anything else, such as
// "1,000", "$5" or "NaN", is ErrSyntax.
func ParseDecimal(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Decimal{}, ErrSyntax
	}
	i := 0
	neg := false
	switch s[0] {
	case '-':
		neg = true
		i++
	case '+':
		i++
	}
	var (
		c       uint64
		bc      *big.Int // coefficient once it outgrows c
		digits  int
		frac    int
		seenDot bool
	)
	for ; i < len(s); i++ {
		ch := s[i]
		if ch == '.' {
			if seenDot {
				return Decimal{}, ErrSyntax
			}
			seenDot = true
			continue
		}
		if ch < '0' || ch > '9' {
			break
		}
		digits++
		if seenDot {
			frac++
		}
		d := uint64(ch - '0')
		if bc == nil {
			hi, lo := bits.Mul64(c, 10)
			lo, carry := bits.Add64(lo, d, 0)
			if hi == 0 && carry == 0 && lo <= math.MaxInt64 {
				c = lo
				continue
			}
			bc = newBigUint(c)
		}
		bc.Mul(bc, bigTen)
		bc.Add(bc, bigInt(int64(d)))
	}
	if digits == 0 {
		return Decimal{}, ErrSyntax
	}
	exp := -int64(frac)
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return Decimal{}, ErrSyntax
		}
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return Decimal{}, ErrRange
			}
			return Decimal{}, ErrSyntax
		}
		exp += e
	}
	if exp > maxExponent || exp < -maxExponent {
		return Decimal{}, ErrRange
	}
	if bc != nil {
		if neg {
			bc.Neg(bc)
		}
		return fromBig(bc, int32(exp)), nil
	}
	v := int64(c)
	if neg {
		v = -v
	}
	return Decimal{c: v, exp: int32(exp)}, nil
}

// MustParseDecimal is ParseDecimal for constants in code and tests; it
// panics on text that is not a decimal, which is a programmer error.
func MustParseDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(fmt.Sprintf("costing: MustParseDecimal(%q): %v", s, err))
	}
	return d
}

// NewDecimal returns coef × 10^exp.
func NewDecimal(coef int64, exp int32) Decimal { return Decimal{c: coef, exp: exp} }

var bigTen = big.NewInt(10)

func bigInt(v int64) *big.Int { return new(big.Int).SetInt64(v) }

func newBigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// coef returns the coefficient as a new big.Int the caller may modify.
func (d Decimal) coef() *big.Int {
	if d.b != nil {
		return new(big.Int).Set(d.b)
	}
	return bigInt(d.c)
}

// fromBig returns coef × 10^exp, moving coef back into an int64 when it fits.
func fromBig(coef *big.Int, exp int32) Decimal {
	if coef.IsInt64() {
		return Decimal{c: coef.Int64(), exp: exp}
	}
	return Decimal{b: coef, exp: exp}
}

// Exponent returns the decimal exponent: -2 for "1.23", 0 for "5".
func (d Decimal) Exponent() int32 { return d.exp }

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	if d.b != nil {
		return d.b.Sign()
	}
	switch {
	case d.c < 0:
		return -1
	case d.c > 0:
		return 1
	}
	return 0
}

// IsZero reports whether d is zero, whatever its exponent.
func (d Decimal) IsZero() bool { return d.Sign() == 0 }

// Neg returns -d.
func (d Decimal) Neg() Decimal {
	if d.b == nil && d.c != math.MinInt64 {
		return Decimal{c: -d.c, exp: d.exp}
	}
	return fromBig(d.coef().Neg(d.coef()), d.exp)
}

// pow10 holds 10^0 … 10^18, the powers that fit in an int64.
var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// mul64 returns a×b and whether it fitted in an int64.
func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// add64 returns a+b and whether it fitted in an int64.
func add64(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// rescale returns d's coefficient expressed at the smaller exponent exp
// (exp <= d.exp), as an int64 when it fits.
func (d Decimal) rescale64(exp int32) (int64, bool) {
	if d.b != nil {
		return 0, false
	}
	k := int(d.exp) - int(exp)
	if k >= len(pow10) {
		return 0, d.c == 0
	}
	return mul64(d.c, pow10[k])
}

func (d Decimal) rescaleBig(exp int32) *big.Int {
	c := d.coef()
	if k := int64(d.exp) - int64(exp); k > 0 {
		c.Mul(c, new(big.Int).Exp(bigTen, big.NewInt(k), nil))
	}
	return c
}

// Add returns d + e, exactly, at the finer of the two exponents.
func (d Decimal) Add(e Decimal) Decimal {
	exp := min(d.exp, e.exp)
	if a, ok := d.rescale64(exp); ok {
		if b, ok := e.rescale64(exp); ok {
			if s, ok := add64(a, b); ok {
				return Decimal{c: s, exp: exp}
			}
		}
	}
	s := d.rescaleBig(exp)
	return fromBig(s.Add(s, e.rescaleBig(exp)), exp)
}

// Sub returns d - e, exactly.
func (d Decimal) Sub(e Decimal) Decimal { return d.Add(e.Neg()) }

// Mul returns d × e, exactly; the exponents add.
func (d Decimal) Mul(e Decimal) Decimal {
	exp := d.exp + e.exp
	if d.b == nil && e.b == nil {
		if p, ok := mul64(d.c, e.c); ok {
			return Decimal{c: p, exp: exp}
		}
	}
	p := d.coef()
	return fromBig(p.Mul(p, e.coef()), exp)
}

// Cmp compares d and e by value and returns -1, 0 or +1; 1.0 and 1.00
// are equal.
func (d Decimal) Cmp(e Decimal) int {
	exp := min(d.exp, e.exp)
	if a, ok := d.rescale64(exp); ok {
		if b, ok := e.rescale64(exp); ok {
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
	}
	return d.rescaleBig(exp).Cmp(e.rescaleBig(exp))
}

// Rat returns d as an exact rational.
func (d Decimal) Rat() *big.Rat {
	r := new(big.Rat).SetInt(d.coef())
	if d.exp > 0 {
		return r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(d.exp)), nil)))
	}
	if d.exp < 0 {
		return r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(-d.exp)), nil)))
	}
	return r
}

// Float64 returns the float64 nearest to d, for derived figures (unit
// costs, plots) where exactness no longer matters.
func (d Decimal) Float64() float64 {
	f, err := strconv.ParseFloat(d.sci(), 64)
	if err != nil { // only ErrRange: ±Inf or 0, which ParseFloat returns
		return f
	}
	return f
}

// sci writes d as coefficient "e" exponent, which ParseFloat rounds
// correctly.
func (d Decimal) sci() string {
	var c string
	if d.b != nil {
		c = d.b.String()
	} else {
		c = strconv.FormatInt(d.c, 10)
	}
	return c + "e" + strconv.Itoa(int(d.exp))
}

// String writes d in plain notation with exactly -Exponent() digits after
// the point, so decimal text read without an exponent is written back as
// it was read (apart from a leading "+" and leading zeros).
func (d Decimal) String() string {
	var digits string
	if d.b != nil {
		digits = new(big.Int).Abs(d.b).String()
	} else if d.c == math.MinInt64 {
		digits = strings.TrimPrefix(strconv.FormatInt(d.c, 10), "-")
	} else {
		c := d.c
		if c < 0 {
			c = -c
		}
		digits = strconv.FormatInt(c, 10)
	}
	var sb strings.Builder
	if d.Sign() < 0 {
		sb.WriteByte('-')
	}
	switch {
	case d.exp >= 0:
		sb.WriteString(digits)
		if digits != "0" {
			for range d.exp {
				sb.WriteByte('0')
			}
		}
	default:
		frac := int(-d.exp)
		if len(digits) <= frac {
			sb.WriteString("0.")
			for range frac - len(digits) {
				sb.WriteByte('0')
			}
			sb.WriteString(digits)
		} else {
			sb.WriteString(digits[:len(digits)-frac])
			sb.WriteByte('.')
			sb.WriteString(digits[len(digits)-frac:])
		}
	}
	return sb.String()
}

// Round returns d rounded half to even to places digits after the point
// (places may be negative). A d that already has no more digits is
// returned unchanged, so Round never adds trailing zeros.
func (d Decimal) Round(places int32) Decimal {
	if -d.exp <= places {
		return d
	}
	return roundRat(d.Rat(), places)
}

// roundRat rounds r half to even at places digits after the point.
func roundRat(r *big.Rat, places int32) Decimal {
	scale := new(big.Int).Exp(bigTen, big.NewInt(int64(abs32(places))), nil)
	num := new(big.Int).Set(r.Num())
	den := new(big.Int).Set(r.Denom())
	if places >= 0 {
		num.Mul(num, scale)
	} else {
		den.Mul(den, scale)
	}
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	// QuoRem truncates toward zero; m has num's sign.
	if m.Sign() != 0 {
		twice := new(big.Int).Abs(m)
		twice.Lsh(twice, 1)
		switch c := twice.Cmp(den); {
		case c > 0, c == 0 && q.Bit(0) == 1:
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return fromBig(q, -places)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// ratDecimal converts r to a Decimal: exactly when r is a decimal fraction
// with at most maxPlaces digits after the point (written with at least
// minPlaces digits), otherwise rounded half to even to maxPlaces digits.
// exact reports which.
func ratDecimal(r *big.Rat, minPlaces, maxPlaces int32) (d Decimal, exact bool) {
	d = roundRat(r, maxPlaces)
	exact = d.Rat().Cmp(r) == 0
	if exact {
		d = d.trim(minPlaces)
	}
	return d, exact
}

// trim removes trailing zeros after the point while more than minPlaces
// digits remain after it.
func (d Decimal) trim(minPlaces int32) Decimal {
	for -d.exp > minPlaces {
		if d.b == nil {
			if d.c%10 != 0 {
				break
			}
			d = Decimal{c: d.c / 10, exp: d.exp + 1}
			continue
		}
		q, m := new(big.Int).QuoRem(d.b, bigTen, new(big.Int))
		if m.Sign() != 0 {
			break
		}
		d = fromBig(q, d.exp+1)
	}
	return d
}

// MarshalText writes d as String does.
func (d Decimal) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads d as ParseDecimal does.
func (d *Decimal) UnmarshalText(b []byte) error {
	v, err := ParseDecimal(string(b))
	if err != nil {
		return fmt.Errorf("%q: %w", b, err)
	}
	*d = v
	return nil
}

// UnmarshalYAML reads a YAML scalar as an exact decimal. It sees the
// scalar's text, so a quote's "rate: 2.49" keeps its digits instead of
// passing through float64. Quoted scalars are accepted too.
func (d *Decimal) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &decimalYAMLError{text: n.ShortTag(), err: errors.New("expected a number"), line: n.Line, col: n.Column}
	}
	s := strings.TrimSpace(n.Value)
	v, err := ParseDecimal(s)
	if err != nil {
		return &decimalYAMLError{text: s, err: err, line: n.Line, col: n.Column}
	}
	*d = v
	return nil
}

// decimalYAMLError carries the bad scalar and its position, which
// internal/yamlin reports.
type decimalYAMLError struct {
	text      string
	err       error
	line, col int
}

func (e *decimalYAMLError) Error() string             { return fmt.Sprintf("%q: %v", e.text, e.err) }
func (e *decimalYAMLError) Position() (line, col int) { return e.line, e.col }
func (e *decimalYAMLError) Unwrap() error             { return e.err }

// A NullDecimal is a Decimal that may be null, for the FOCUS columns that
// are nullable (ListCost on some rows, quantities on Tax rows). The zero
// value is null.
type NullDecimal struct {
	Decimal Decimal
	Valid   bool // false: the file had no value (empty, NULL or no column)
}

// String writes the decimal, or "NULL" when it is null.
func (n NullDecimal) String() string {
	if !n.Valid {
		return "NULL"
	}
	return n.Decimal.String()
}
