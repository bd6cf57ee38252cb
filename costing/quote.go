package costing

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/verdict-llm/verdict/internal/yamlin"
)

// A Quote is a provider's price list for one configuration, for runs that
// have no bill yet. It is read from YAML with ParseQuote; unknown keys are
// errors, so a misspelt "minimun" cannot silently drop a minimum charge.
//
//	provider: Example GPU Cloud
//	currency: USD
//	reference: quote Q-17 of 2025-01-15     # optional, repeated in results
//	gpu:
//	  accelerator: NVIDIA H100 SXM 80GB
//	  count: 8
//	  region: us-east-1
//	  rate: 2.49              # currency per GPU-hour …
//	  per: gpu-hour           # … or per instance-hour (all count GPUs)
//	  billing:
//	    unit: second          # second | minute | hour: what is billed
//	    rounding: up          # up | down | nearest | none: to whole units
//	    minimum: 60           # minimum billed quantity, in billing units
//	other:                    # optional; only what the quote lists
//	  - name: storage
//	    kind: storage         # storage | egress | startup | idle | other
//	    basis: run-time       # run-time: size × run time; per-run: 1; usage: caller's quantity
//	    size: 500             # run-time: the multiplier (e.g. GB)
//	    rate: 0.10
//	    per: month            # run-time: the time unit of the rate: second … day, or month
//	    hours_per_month: 730  # required with per: month: as the quote defines a month
//	    unit: GB-month        # the unit as the quote writes it (text)
//	    billing: {unit: hour, rounding: up}   # run-time: optional, default exact
//	  - {name: start-up fee, kind: startup, basis: per-run, rate: 0.50, unit: start}
//	  - {name: egress, kind: egress, basis: usage, rate: 0.09, unit: GB}
//
// Rates, sizes and minimums are read as exact decimals from the YAML text.
type Quote struct {
	Provider  string      `yaml:"provider"`
	Currency  string      `yaml:"currency"`
	Reference string      `yaml:"reference"`
	GPU       GPUItem     `yaml:"gpu"`
	Other     []OtherItem `yaml:"other"`

	file string     // name for errors
	doc  *yaml.Node // the parsed YAML, to point validation errors at lines
}

// A GPUItem is the quote's accelerator line.
type GPUItem struct {
	Accelerator string  `yaml:"accelerator"`
	Count       int     `yaml:"count"`
	Region      string  `yaml:"region"`
	Rate        Decimal `yaml:"rate"`
	// Per is "gpu-hour" (the default: Rate is per GPU per hour) or
	// "instance-hour" (Rate is for all Count GPUs together).
	Per     string  `yaml:"per"`
	Billing Billing `yaml:"billing"`
}

// Billing says how run time becomes billed time.
type Billing struct {
	// Unit is second, minute or hour.
	Unit string `yaml:"unit"`
	// Rounding turns run time into whole units: up (ceiling, the common
	// "per-second billing"), down, nearest (half up) or none (fractional
	// units are billed). Empty means up for the GPU line and none for
	// other items.
	Rounding string `yaml:"rounding"`
	// Minimum is the least billed quantity, in Units.
	Minimum Decimal `yaml:"minimum"`
}

// An OtherItem is a listed non-GPU charge.
type OtherItem struct {
	Name string `yaml:"name"`
	// Kind is storage, egress, startup, idle or other; it is reported,
	// and does not change the arithmetic.
	Kind string `yaml:"kind"`
	// Basis is how the quantity is found: run-time (Size × run time in
	// Per units), per-run (1 per run: start-up fees) or usage (the
	// caller's quantity for Name: egress GB, idle hours).
	Basis string  `yaml:"basis"`
	Rate  Decimal `yaml:"rate"`
	// Unit is the unit as the quote writes it ("GB-month", "start",
	// "GB"); it is reported, not interpreted.
	Unit string `yaml:"unit"`
	// Size multiplies run time for run-time items; default 1.
	Size *Decimal `yaml:"size"`
	// Per is the time unit of Rate for run-time items: second, minute,
	// hour (default), day or month.
	Per string `yaml:"per"`
	// HoursPerMonth defines a month for Per: month; the quote must state it.
	HoursPerMonth *Decimal `yaml:"hours_per_month"`
	// Billing rounds run time for run-time items; default exact.
	Billing *Billing `yaml:"billing"`
}

// A QuoteError points at the line of a quote file that is wrong.
type QuoteError struct {
	File   string
	Line   int // 0 when unknown
	Column int
	Msg    string
	Err    error
}

func (e *QuoteError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *QuoteError) Unwrap() error { return e.Err }

var (
	// ErrQuote marks quote files that are not valid.
	ErrQuote = errors.New("costing: invalid quote")
	// ErrUnknownItem: usage was given for an item the quote does not list.
	ErrUnknownItem = errors.New("costing: item not on the quote")
	// ErrNoQuantity: a listed usage item got no quantity, so it is not costed.
	ErrNoQuantity = errors.New("costing: no quantity for listed item")
)

// LoadQuote reads a quote from r; name is used in errors only.
func LoadQuote(r io.Reader, name string) (*Quote, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ParseQuote(data, name)
}

// ParseQuote reads a YAML quote strictly: unknown keys, wrong types and
// invalid values are QuoteErrors naming the line. The YAML is read with
// internal/yamlin's guards (size, nesting and alias limits).
func ParseQuote(data []byte, name string) (*Quote, error) {
	q := &Quote{file: name}
	if err := yamlin.Decode(name, data, q); err != nil {
		qe := &QuoteError{File: name, Msg: err.Error(), Err: ErrQuote}
		var ye *yamlin.Error
		if errors.As(err, &ye) {
			qe.Line, qe.Column, qe.Msg = ye.Line, ye.Column, ye.Msg
		}
		return nil, qe
	}
	q.doc, _ = yamlin.Parse(name, data, 0) // parsed once already: cannot fail
	if err := q.validate(); err != nil {
		return nil, err
	}
	return q, nil
}

// errAt builds a QuoteError for the YAML path (e.g. "$.gpu.rate").
func (q *Quote) errAt(path, format string, args ...any) error {
	qe := &QuoteError{File: q.file, Msg: fmt.Sprintf(format, args...), Err: ErrQuote}
	if n := yamlin.Find(q.doc, path); n != nil {
		qe.Line, qe.Column = n.Line, n.Column
	}
	return qe
}

var (
	billingUnits = map[string]int64{"second": 1, "minute": 60, "hour": 3600}
	rateUnits    = map[string]int64{"second": 1, "minute": 60, "hour": 3600, "day": 86400}
	roundings    = []string{"up", "down", "nearest", "none"}
	bases        = []string{"run-time", "per-run", "usage"}
	itemKinds    = []string{"storage", "egress", "startup", "idle", "other"}
)

func (q *Quote) validate() error {
	if strings.TrimSpace(q.Provider) == "" {
		return q.errAt("$", "provider is required")
	}
	if c := strings.TrimSpace(q.Currency); len(c) != 3 || strings.ToUpper(c) != c {
		return q.errAt("$.currency", "currency %q is not an ISO 4217 code (e.g. USD)", q.Currency)
	}
	g := &q.GPU
	if g.Count < 1 {
		return q.errAt("$.gpu", "gpu.count must be at least 1 (got %d)", g.Count)
	}
	if g.Rate.Sign() < 0 {
		return q.errAt("$.gpu.rate", "gpu.rate is negative")
	}
	if g.Per == "" {
		g.Per = "gpu-hour"
	}
	if g.Per != "gpu-hour" && g.Per != "instance-hour" {
		return q.errAt("$.gpu.per", "gpu.per %q: want gpu-hour or instance-hour", g.Per)
	}
	if g.Billing.Rounding == "" {
		g.Billing.Rounding = "up"
	}
	if err := q.validateBilling("$.gpu.billing", &g.Billing); err != nil {
		return err
	}
	var names []string
	for i := range q.Other {
		it := &q.Other[i]
		p := fmt.Sprintf("$.other[%d]", i)
		it.Name = strings.TrimSpace(it.Name)
		if it.Name == "" {
			return q.errAt(p, "other item %d has no name", i+1)
		}
		if strings.EqualFold(it.Name, "gpu") || slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, it.Name) }) {
			return q.errAt(p+".name", "item name %q is used twice (or is the reserved name gpu)", it.Name)
		}
		names = append(names, it.Name)
		if it.Kind == "" {
			it.Kind = "other"
		}
		if !slices.Contains(itemKinds, it.Kind) {
			return q.errAt(p+".kind", "kind %q: want one of %s", it.Kind, strings.Join(itemKinds, ", "))
		}
		if !slices.Contains(bases, it.Basis) {
			return q.errAt(p, "basis %q: want one of %s", it.Basis, strings.Join(bases, ", "))
		}
		if it.Rate.Sign() < 0 {
			return q.errAt(p+".rate", "rate is negative")
		}
		if it.Basis != "run-time" {
			for _, f := range []struct {
				key string
				set bool
			}{{"size", it.Size != nil}, {"per", it.Per != ""}, {"hours_per_month", it.HoursPerMonth != nil}, {"billing", it.Billing != nil}} {
				if f.set {
					return q.errAt(p+"."+f.key, "%s applies to basis run-time only (this item is %s)", f.key, it.Basis)
				}
			}
			continue
		}
		if it.Per == "" {
			it.Per = "hour"
		}
		if _, ok := rateUnits[it.Per]; !ok && it.Per != "month" {
			return q.errAt(p+".per", "per %q: want second, minute, hour, day or month", it.Per)
		}
		if it.Per == "month" && (it.HoursPerMonth == nil || it.HoursPerMonth.Sign() <= 0) {
			return q.errAt(p+".per", "per: month needs hours_per_month, as the quote defines a month")
		}
		if it.Per != "month" && it.HoursPerMonth != nil {
			return q.errAt(p+".hours_per_month", "hours_per_month applies to per: month only")
		}
		if it.Size != nil && it.Size.Sign() < 0 {
			return q.errAt(p+".size", "size is negative")
		}
		if it.Billing != nil {
			if it.Billing.Rounding == "" {
				it.Billing.Rounding = "none"
			}
			if err := q.validateBilling(p+".billing", it.Billing); err != nil {
				return err
			}
		}
	}
	return nil
}

func (q *Quote) validateBilling(path string, b *Billing) error {
	if _, ok := billingUnits[b.Unit]; !ok {
		return q.errAt(path, "billing unit %q: want second, minute or hour", b.Unit)
	}
	if !slices.Contains(roundings, b.Rounding) {
		return q.errAt(path+".rounding", "rounding %q: want up, down, nearest or none", b.Rounding)
	}
	if b.Minimum.Sign() < 0 {
		return q.errAt(path+".minimum", "minimum is negative")
	}
	return nil
}

// quotePlaces is the precision of quantities and costs that do not come
// out exactly (1000 s is 0.2777… hours).
const quotePlaces = 12

// A QuoteLine is one priced item, with every input a spreadsheet needs to
// recompute it with live formulas: Rate, the quantity's inputs and the
// formula text naming them.
type QuoteLine struct {
	Name        string // "gpu" for the GPU line
	Kind        string // gpu, storage, egress, startup, idle, other
	Basis       string // run-time, per-run, usage
	Description string // accelerator, count and region for the GPU line
	Rate        Decimal
	RateUnit    string // what Rate is per: "GPU-hour", "instance-hour", the listed unit
	// Quantity is in RateUnits; Cost = Rate × Quantity.
	Quantity Decimal
	Cost     Decimal
	// Rounded reports that Quantity or Cost did not come out exactly and
	// was rounded (half to even) to 12 digits after the point.
	Rounded bool

	// Inputs of Quantity for run-time lines: Multiplier (GPU count or
	// size; 1 for instance-hour), the run's duration in seconds, the
	// billing unit in seconds, the billed units after rounding and
	// minimum, and the seconds in one rate time unit.
	Multiplier         Decimal
	RunSeconds         Decimal
	BillingUnitSeconds int64
	BilledUnits        Decimal
	RateUnitSeconds    Decimal
	// Billing is the rule run time was billed by (run-time lines), so
	// that a spreadsheet can bill another run time the same way.
	Billing Billing
	// QuantityFormula and CostFormula name the inputs above:
	// "MULTIPLIER * BILLED_UNITS * BILLING_UNIT_SECONDS / RATE_UNIT_SECONDS"
	// and "RATE * QUANTITY".
	QuantityFormula string
	CostFormula     string
	Notes           []string
}

// A QuoteCost is a run priced from a quote.
type QuoteCost struct {
	Provider, Currency, Reference string
	RunID                         string
	Start, End                    time.Time
	// GPU is the GPU line: GPU_COST = GPU_RATE × GPU_HOURS.
	GPU QuoteLine
	// Other lists the listed items that were costed, in quote order.
	Other []QuoteLine
	// GPUCost, OtherListedCost and TotalCost follow Formula.
	GPUCost, OtherListedCost, TotalCost Decimal
	Formula                             string
	// Unknown names usage the caller gave for items the quote does not
	// list; they are not priced.
	Unknown []string
	// Warnings explain listed items left out (no quantity) and unknown ones.
	Warnings []error
}

// Money returns TotalCost in the quote's currency.
func (qc *QuoteCost) Money() Money { return Money{qc.TotalCost, qc.Currency} }

// Cost prices run from the quote. Only listed items are priced:
// run-time items from the run's window, per-run items once, and usage
// items from usage (keyed by item name, case-insensitively). Usage for an
// item the quote does not list is reported in Unknown, never priced. The
// run needs a window; without one Cost returns ErrNoWindow.
func (q *Quote) Cost(run RunWindow, usage map[string]Decimal) (*QuoteCost, error) {
	if !run.HasWindow() {
		return nil, fmt.Errorf("%w: run %q: a quote prices run time", ErrNoWindow, run.RunID)
	}
	dur := run.End.Sub(run.Start)
	qc := &QuoteCost{Provider: q.Provider, Currency: q.Currency, Reference: q.Reference,
		RunID: run.RunID, Start: run.Start, End: run.End,
		Formula: "TOTAL_COST = GPU_COST + OTHER_LISTED_COST"}

	g := q.GPU
	mult := NewDecimal(int64(g.Count), 0)
	unit := "GPU-hour"
	if g.Per == "instance-hour" {
		mult, unit = NewDecimal(1, 0), "instance-hour"
	}
	qc.GPU = timeLine(dur, g.Billing, mult, g.Rate, big.NewRat(3600, 1))
	qc.GPU.Name, qc.GPU.Kind, qc.GPU.Basis, qc.GPU.RateUnit = "gpu", "gpu", "run-time", unit
	qc.GPU.Description = fmt.Sprintf("%d × %s", g.Count, g.Accelerator)
	if g.Region != "" {
		qc.GPU.Description += " in " + g.Region
	}
	qc.GPUCost = qc.GPU.Cost

	used := map[string]bool{}
	for _, it := range q.Other {
		var ln QuoteLine
		switch it.Basis {
		case "run-time":
			size := NewDecimal(1, 0)
			if it.Size != nil {
				size = *it.Size
			}
			b := Billing{Unit: "second", Rounding: "none"}
			if it.Billing != nil {
				b = *it.Billing
			}
			per := big.NewRat(rateUnits[it.Per], 1)
			if it.Per == "month" {
				per = it.HoursPerMonth.Rat()
				per.Mul(per, big.NewRat(3600, 1))
			}
			ln = timeLine(dur, b, size, it.Rate, per)
			ln.RateUnit = it.Unit
			if ln.RateUnit == "" {
				ln.RateUnit = it.Per
			}
		case "per-run":
			ln = fixedLine(it.Rate, NewDecimal(1, 0), "1 per run")
			ln.RateUnit = it.Unit
		case "usage":
			qty, ok := lookupFold(usage, it.Name)
			if !ok {
				qc.Warnings = append(qc.Warnings, fmt.Errorf("%w: %q is listed at %s %s per %s but no quantity was given; it is not in TOTAL_COST",
					ErrNoQuantity, it.Name, it.Rate, q.Currency, it.Unit))
				continue
			}
			used[strings.ToLower(it.Name)] = true
			ln = fixedLine(it.Rate, qty, "USAGE (given)")
			ln.RateUnit = it.Unit
		}
		if it.Basis != "usage" {
			if _, ok := lookupFold(usage, it.Name); ok {
				used[strings.ToLower(it.Name)] = true
				qc.Warnings = append(qc.Warnings, fmt.Errorf("costing: usage given for %q is ignored: the quote prices it %s", it.Name, it.Basis))
			}
		}
		ln.Name, ln.Kind, ln.Basis = it.Name, it.Kind, it.Basis
		qc.Other = append(qc.Other, ln)
		qc.OtherListedCost = qc.OtherListedCost.Add(ln.Cost)
	}
	for name := range usage {
		if !used[strings.ToLower(name)] {
			qc.Unknown = append(qc.Unknown, name)
		}
	}
	slices.Sort(qc.Unknown)
	for _, name := range qc.Unknown {
		qc.Warnings = append(qc.Warnings, fmt.Errorf("%w: %q has usage but no listed price; it is not priced", ErrUnknownItem, name))
	}
	qc.TotalCost = qc.GPUCost.Add(qc.OtherListedCost)
	return qc, nil
}

func lookupFold(m map[string]Decimal, name string) (Decimal, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return Decimal{}, false
}

// fixedLine prices a quantity that does not come from the run window.
func fixedLine(rate, qty Decimal, qtyFormula string) QuoteLine {
	return QuoteLine{Rate: rate, Quantity: qty, Cost: rate.Mul(qty), Multiplier: NewDecimal(1, 0),
		QuantityFormula: qtyFormula, CostFormula: "RATE * QUANTITY"}
}

// timeLine prices run time: the duration is billed in b.Unit units,
// rounded per b.Rounding and raised to b.Minimum; the quantity is
// mult × billed seconds / perSeconds (the seconds in the rate's time
// unit); the cost is rate × quantity.
func timeLine(dur time.Duration, b Billing, mult, rate Decimal, perSeconds *big.Rat) QuoteLine {
	us := billingUnits[b.Unit]
	ln := QuoteLine{Rate: rate, Multiplier: mult, BillingUnitSeconds: us, Billing: b,
		QuantityFormula: "MULTIPLIER * BILLED_UNITS * BILLING_UNIT_SECONDS / RATE_UNIT_SECONDS",
		CostFormula:     "RATE * QUANTITY"}
	runSec := big.NewRat(int64(dur), int64(time.Second))
	ln.RunSeconds, _ = ratDecimal(runSec, 0, 9)
	units := new(big.Rat).Quo(runSec, big.NewRat(us, 1))
	var billed *big.Rat
	switch b.Rounding {
	case "up", "down", "nearest":
		num, den := new(big.Int).Set(units.Num()), units.Denom()
		if b.Rounding == "nearest" { // floor(x + 1/2)
			num.Mul(num, big.NewInt(2)).Add(num, den)
			den = new(big.Int).Mul(den, big.NewInt(2))
		}
		q, m := new(big.Int).DivMod(num, den, new(big.Int)) // floor for positive den
		if b.Rounding == "up" && m.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		billed = new(big.Rat).SetInt(q)
		if billed.Cmp(units) != 0 {
			ln.Notes = append(ln.Notes, fmt.Sprintf("run time %s s billed as %s %s(s) (rounding %s)",
				ln.RunSeconds, billed.RatString(), b.Unit, b.Rounding))
		}
	default:
		billed = units
	}
	if minimum := b.Minimum.Rat(); billed.Cmp(minimum) < 0 {
		ln.Notes = append(ln.Notes, fmt.Sprintf("minimum of %s %s(s) applied", b.Minimum, b.Unit))
		billed = minimum
	}
	var r1, r2, r3 bool
	ln.BilledUnits, r1 = ratExact(billed)
	ln.RateUnitSeconds, _ = ratDecimal(perSeconds, 0, quotePlaces)
	qty := new(big.Rat).Mul(mult.Rat(), billed)
	qty.Mul(qty, big.NewRat(us, 1))
	qty.Quo(qty, perSeconds)
	ln.Quantity, r2 = ratExact(qty)
	cost := new(big.Rat).Mul(rate.Rat(), qty)
	ln.Cost, r3 = ratExact(cost)
	ln.Rounded = r1 || r2 || r3
	return ln
}

// ratExact converts r at quotePlaces and reports whether it had to round.
func ratExact(r *big.Rat) (Decimal, bool) {
	d, exact := ratDecimal(r, 0, quotePlaces)
	return d, !exact
}
