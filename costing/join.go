package costing

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"time"
)

// A RunWindow is what the join needs to know about one benchmark run. The
// engineer wiring bundles fills it from the run's inventory (resource IDs
// captured at run time: AWS IMDS instance-id, Azure IMDS resourceId, GCP
// instance name or full resource name) and its timing.
type RunWindow struct {
	RunID string
	// ResourceIDs are the billed resources the run used, as the provider
	// writes them in bills; see Joiner for how they are compared.
	ResourceIDs []string
	// Start and End bound the run, [Start, End), in any time zone. Either
	// zero means the window is unknown; such runs are reported, not costed.
	Start, End time.Time
	// SuccessfulRequests counts requests that completed successfully;
	// unit costs divide by it, never by all requests sent. Zero means none
	// or unknown, and leaves the per-request cost undefined.
	SuccessfulRequests int64
	// OutputTokens and TotalTokens (input + output) are summed over
	// successful requests only. Zero means unknown.
	OutputTokens int64
	TotalTokens  int64
}

// HasWindow reports whether the run has a usable window: both bounds set
// and End after Start.
func (w RunWindow) HasWindow() bool {
	return !w.Start.IsZero() && !w.End.IsZero() && w.End.After(w.Start)
}

// Duration returns End - Start, or 0 without a usable window.
func (w RunWindow) Duration() time.Duration {
	if !w.HasWindow() {
		return 0
	}
	return w.End.Sub(w.Start)
}

// Money is an exact amount in a currency.
type Money struct {
	Amount   Decimal
	Currency string
}

// String writes "amount currency", e.g. "71.2820 USD".
func (m Money) String() string { return m.Amount.String() + " " + m.Currency }

// An ExchangeRate converts From into To: amount_To = amount_From × Rate.
// The join never looks rates up; the caller supplies them and names their
// Source, which reports repeat.
type ExchangeRate struct {
	From, To string
	Rate     Decimal
	Source   string
}

// JoinOptions configures a Joiner. The zero value totals EffectiveCost
// per currency, prorates at 12 decimal places and notes rows at least 4×
// longer than the run.
type JoinOptions struct {
	// Basis chooses the cost RunCost.Total uses; "" means Effective.
	// All three are always totalled per currency.
	Basis CostBasis
	// Currency, when set, converts every currency's total into it with
	// Rates, so that RunCost.Total exists for multi-currency runs. When
	// empty, Total exists only when all of a run's charges share one
	// currency.
	Currency string
	// Rates are the conversions the caller vouches for. A currency with no
	// rate to Currency leaves Total unset and adds an ErrNoRate warning.
	Rates []ExchangeRate
	// Places is the number of digits after the point that prorated amounts
	// are rounded to (half to even) when the share does not come out
	// exactly; 0 means 12. Whole-row amounts are never rounded.
	Places int32
	// CoarseFactor: a prorated row whose period is at least this many
	// times the run's duration gets a coarseness note; 0 means 4.
	CoarseFactor float64
	// ProrateQuantityUsage allocates quantity-metered usage rows (bytes,
	// requests) that only partly overlap the window by time, as if usage
	// were uniform across the row. Off by default: such rows are listed
	// as RuleCoincident and left out of the totals.
	ProrateQuantityUsage bool
}

// A Metering says how a charge accrues, which decides how it may be
// attributed to a run.
type Metering string

const (
	// TimeMetered charges accrue with time (units in hours, seconds,
	// days, months: "Hrs", "1 Hour", "GB-Mo", "byte-seconds"), so a
	// share proportional to the overlap is a fair estimate.
	TimeMetered Metering = "time-metered"
	// QuantityMetered charges accrue with something other than time
	// (bytes, requests, no unit at all), so a time share is a guess.
	QuantityMetered Metering = "quantity-metered"
	// OneOff charges are single events: ChargeFrequency One-Time, and
	// every Purchase and Tax row. They cannot be split by time. Taxes are
	// computed on invoice totals, so spreading them over runs would invent
	// a tax basis; a tax row counts only when its period lies inside the
	// window (in practice, never: tax rows are monthly).
	OneOff Metering = "one-off"
)

// ClassifyCharge returns how c accrues: OneOff for One-Time, Purchase and
// Tax rows; TimeMetered when its pricing (else consumed) unit is a unit of
// time or per time; QuantityMetered otherwise.
func ClassifyCharge(c *Charge) Metering {
	if c.ChargeFrequency == "One-Time" || c.ChargeCategory == "Purchase" || c.ChargeCategory == "Tax" {
		return OneOff
	}
	u := c.PricingUnit
	if u == "" {
		u = c.ConsumedUnit
	}
	if timeUnit(u) {
		return TimeMetered
	}
	return QuantityMetered
}

// timeWords are unit words that make a unit time-based.
var timeWords = map[string]bool{
	"hr": true, "hrs": true, "hour": true, "hours": true,
	"sec": true, "secs": true, "second": true, "seconds": true,
	"min": true, "mins": true, "minute": true, "minutes": true,
	"day": true, "days": true, "week": true, "weeks": true,
	"mo": true, "mos": true, "month": true, "months": true,
	"yr": true, "yrs": true, "year": true, "years": true,
}

// hourWords are unit words meaning hours.
var hourWords = map[string]bool{"hr": true, "hrs": true, "hour": true, "hours": true}

// unitWords splits a unit into lower-case letter runs: "GB-Mo" → gb, mo.
func unitWords(u string) []string {
	return strings.FieldsFunc(strings.ToLower(u), func(r rune) bool { return r < 'a' || r > 'z' })
}

func timeUnit(u string) bool {
	return slices.ContainsFunc(unitWords(u), func(w string) bool { return timeWords[w] })
}

// hourUnit reports units that count plain hours ("Hrs", "Hours", "1 Hour").
func hourUnit(u string) bool {
	ws := unitWords(u)
	return len(ws) == 1 && hourWords[ws[0]]
}

// A Rule says how one overlapping charge was treated for one run.
type Rule string

const (
	// RuleProrated: a time-metered row, allocated
	// cost × overlap / (end − start). Overlap and Period are reported so
	// the share can be checked; a row inside the window gets its whole cost.
	RuleProrated Rule = "prorated"
	// RuleInside: a one-off or quantity-metered row whose whole period
	// lies inside the window, allocated in full.
	RuleInside Rule = "inside-window"
	// RuleCoincident: a quantity-metered row that only partly overlaps the
	// window. Not allocated (see JoinOptions.ProrateQuantityUsage).
	RuleCoincident Rule = "coincident-unallocated"
	// RuleOneOffOutside: a one-off row that overlaps the window but is
	// not inside it. Not allocated.
	RuleOneOffOutside Rule = "one-off-outside-window"
)

// An Allocation is one charge's contribution to one run.
type Allocation struct {
	Charge      *Charge
	Metering    Metering
	Rule        Rule
	Included    bool          // counted in the run's totals
	Overlap     time.Duration // of the charge period with the run window
	Period      time.Duration // of the charge period
	Granularity Granularity
	// Billed, Effective and List are the amounts allocated to the run:
	// zero for rows not included.
	Billed, Effective Decimal
	List              NullDecimal
	// Rounded reports that a prorated amount did not come out exactly and
	// was rounded to JoinOptions.Places digits.
	Rounded bool
	// Notes explain limits on the figure (coarse rows, partial-hour use).
	Notes []string
}

// A CurrencyTotal sums a run's included allocations in one currency.
type CurrencyTotal struct {
	Currency          string
	Billed, Effective Decimal
	List              NullDecimal // null when any included row has no ListCost
	Rows              int
}

// Basis returns the total on basis b ("" is Effective) and whether it is
// known (a list total is not when a row had no ListCost).
func (ct CurrencyTotal) Basis(b CostBasis) (Decimal, bool) {
	switch b {
	case Billed:
		return ct.Billed, true
	case List:
		return ct.List.Decimal, ct.List.Valid
	}
	return ct.Effective, true
}

// A ResourceMatch reports how one of a run's resource IDs fared.
type ResourceMatch struct {
	ResourceID  string    // as the RunWindow names it
	Rows        int       // charges of this resource, at any time
	Overlapping int       // of which overlap the run window
	First, Last time.Time // extent of those charges' periods; zero without rows
	// Hint explains a near miss, such as an Azure VM scale-set instance
	// whose costs are billed on the scale set.
	Hint string
}

// RunStatus summarises a RunCost.
type RunStatus string

const (
	Costed    RunStatus = "costed"     // at least one charge included
	NoWindow  RunStatus = "no-window"  // start or end unknown: not costed
	NoCharges RunStatus = "no-charges" // a window, but no charge included
)

// A RunCost is the join's answer for one run.
type RunCost struct {
	Run    RunWindow
	Status RunStatus
	// Allocations lists every overlapping charge of the run's resources,
	// included or not, so that excluded rows are visible: in input order,
	// except that rows without a unit come last (see Joiner).
	Allocations []Allocation
	// Totals has one entry per currency, sorted by currency code.
	Totals []CurrencyTotal
	// Basis is the cost Total uses.
	Basis CostBasis
	// Total is the run's cost on Basis, in JoinOptions.Currency or the
	// single currency of its charges; nil when it cannot be stated
	// without mixing currencies (see Warnings).
	Total *Money
	// Coarsest is the granularity of the longest included row, and
	// MaxRowPeriod its length: the attribution is no finer than that.
	Coarsest     Granularity
	MaxRowPeriod time.Duration
	// Resources reports each resource ID of the run, in RunWindow order.
	Resources []ResourceMatch
	Warnings  []error
}

var (
	// ErrNoWindow: the run has no usable window, so no charge can be
	// attributed to it.
	ErrNoWindow = errors.New("costing: run has no window")
	// ErrMixedCurrency: a run's charges are in several currencies and no
	// target currency was given.
	ErrMixedCurrency = errors.New("costing: charges in several currencies")
	// ErrNoRate: a currency has no exchange rate to the target currency.
	ErrNoRate = errors.New("costing: no exchange rate")
	// ErrUnmatched: a resource the run names has no charges at all.
	ErrUnmatched = errors.New("costing: resource not in any bill")
	// ErrNoOverlap: a resource has charges, none of them in the window.
	ErrNoOverlap = errors.New("costing: no charge overlaps the run window")
)

// A JoinResult holds every run's cost and what the join saw.
type JoinResult struct {
	Runs            []RunCost
	Charges         int // charges given to Add
	WithoutResource int // of which had no resource ID (never attributable)
	Matched         int // of which matched a resource of some run
}

// A Joiner attributes charges to runs. Create it with the runs, feed it
// charges one at a time with Add (streaming a Reader straight into it),
// then call Result.
//
// A charge matches a run when its resource ID matches one of the run's
// ResourceIDs and its charge period overlaps the run's window. Resource IDs
// are compared per provider:
//
//   - AWS: exactly, or the run's ID equals the part of an ARN after its
//     last "/" or ":" (a run's "i-0abc" matches
//     "arn:aws:ec2:…:instance/i-0abc").
//   - Azure (and any ID starting /subscriptions/): case-insensitively,
//     since ARM IDs are and exports disagree on case. A run naming a
//     scale-set instance (…/virtualMachineScaleSets/ss/virtualMachines/3)
//     does not match charges billed on the scale set; those are counted
//     in ResourceMatch.Hint instead.
//   - Google Cloud: exactly against resource.global_name, resource.name
//     or the global name's last path segment. resource.name is chosen by
//     users and need not be unique across projects, so prefer global names.
//   - Others: exactly.
//
// Matching charges are then allocated by the Rule their Metering calls
// for (see ClassifyCharge): time-metered rows are prorated by overlap,
// one-off and quantity-metered rows count whole when their period lies
// inside the window and are listed but not counted otherwise. A row with
// no unit at all that is not one-off (FOCUS lets corrections and credits
// leave quantity and unit null) takes the metering of a row of the same
// resource, SKU and period, so a correction of an hourly instance row is
// prorated like that row. Corrections and negative rows are allocated like
// any other and summed; nothing is de-duplicated.
//
// A Joiner is not safe for concurrent use.

type Joiner struct {
	opts     JoinOptions
	runs     []runState
	exact    map[string][]target
	fold     map[string][]target
	hint     map[string][]target
	siblings map[siblingKey]Metering
	pending  []pendingRow
	res      JoinResult
}

type target struct{ run, res int }

type runState struct {
	cost    RunCost
	totals  map[string]*CurrencyTotal
	coarse  int
	partial int
}

// NewJoiner prepares the join for runs. It warns, on each run concerned,
// when two runs share a resource and their windows overlap: a shared
// row's cost is then counted in both.
func NewJoiner(runs []RunWindow, opts JoinOptions) *Joiner {
	if opts.Basis == "" {
		opts.Basis = Effective
	}
	if opts.Places == 0 {
		opts.Places = 12
	}
	if opts.CoarseFactor == 0 {
		opts.CoarseFactor = 4
	}
	j := &Joiner{opts: opts, exact: map[string][]target{}, fold: map[string][]target{}, hint: map[string][]target{},
		siblings: map[siblingKey]Metering{}}
	j.runs = make([]runState, len(runs))
	for i, r := range runs {
		st := &j.runs[i]
		st.cost = RunCost{Run: r, Basis: opts.Basis, Status: NoCharges}
		st.totals = map[string]*CurrencyTotal{}
		if !r.HasWindow() {
			st.cost.Status = NoWindow
			st.cost.Warnings = append(st.cost.Warnings, fmt.Errorf("%w: run %q (start %s, end %s); its charges are counted per resource but not attributed",
				ErrNoWindow, r.RunID, fmtTime(r.Start), fmtTime(r.End)))
		}
		for k, id := range r.ResourceIDs {
			st.cost.Resources = append(st.cost.Resources, ResourceMatch{ResourceID: id})
			id = strings.TrimSpace(id)
			if id == "" {
				continue
			}
			t := target{i, k}
			j.exact[id] = append(j.exact[id], t)
			low := strings.ToLower(id)
			j.fold[low] = append(j.fold[low], t)
			if ss, ok := scaleSet(low); ok {
				j.hint[ss] = append(j.hint[ss], t)
			}
		}
	}
	j.warnSharedResources()
	return j
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// scaleSet returns the scale-set ID of an Azure scale-set instance ID.
func scaleSet(lowID string) (string, bool) {
	i := strings.Index(lowID, "/virtualmachinescalesets/")
	if i < 0 {
		return "", false
	}
	rest := lowID[i+len("/virtualmachinescalesets/"):]
	name, tail, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(tail, "virtualmachines/") {
		return "", false
	}
	return lowID[:i+len("/virtualmachinescalesets/")+len(name)], true
}

func (j *Joiner) warnSharedResources() {
	for id, ts := range j.fold {
		for a := 0; a < len(ts); a++ {
			for b := a + 1; b < len(ts); b++ {
				ra, rb := &j.runs[ts[a].run], &j.runs[ts[b].run]
				if ts[a].run == ts[b].run || !ra.cost.Run.HasWindow() || !rb.cost.Run.HasWindow() {
					continue
				}
				if ra.cost.Run.Start.Before(rb.cost.Run.End) && rb.cost.Run.Start.Before(ra.cost.Run.End) {
					w := fmt.Errorf("costing: runs %q and %q overlap in time on resource %s: rows in the overlap are counted in both",
						ra.cost.Run.RunID, rb.cost.Run.RunID, id)
					ra.cost.Warnings = append(ra.cost.Warnings, w)
					rb.cost.Warnings = append(rb.cost.Warnings, w)
				}
			}
		}
	}
}

// family names the provider conventions a charge's IDs follow.
func family(c *Charge) string {
	p := strings.ToLower(c.Provider)
	switch {
	case p == "aws" || strings.Contains(p, "amazon"):
		return "aws"
	case strings.Contains(p, "microsoft") || strings.Contains(p, "azure"):
		return "azure"
	case strings.Contains(p, "google") || p == "gcp":
		return "gcp"
	}
	switch c.Source.Format.Kind {
	case AWSCUR:
		return "aws"
	case AzureCostDetails:
		return "azure"
	case GCPExport:
		return "gcp"
	}
	if strings.HasPrefix(strings.ToLower(c.ResourceID), "/subscriptions/") {
		return "azure"
	}
	return "other"
}

// lastSegment returns s after its last "/" (and ":" when colon is set).
func lastSegment(s string, colon bool) string {
	i := strings.LastIndexByte(s, '/')
	if colon {
		i = max(i, strings.LastIndexByte(s, ':'))
	}
	return s[i+1:]
}

// targets returns the run resources c matches, and the scale-set hints.
func (j *Joiner) targets(c *Charge) (ts, hints []target) {
	add := func(idx map[string][]target, key string) {
		if key == "" {
			return
		}
		for _, t := range idx[key] {
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	switch family(c) {
	case "azure":
		low := strings.ToLower(c.ResourceID)
		add(j.fold, low)
		hints = j.hint[low]
	case "aws":
		add(j.exact, c.ResourceID)
		add(j.exact, lastSegment(c.ResourceID, true))
	case "gcp":
		add(j.exact, c.ResourceID)
		add(j.exact, c.ResourceName)
		add(j.exact, lastSegment(c.ResourceID, false))
	default:
		add(j.exact, c.ResourceID)
	}
	return ts, hints
}

// Add considers one charge. It keeps a copy (Clone) of charges it
// allocates, so a Reader's reused Charge may be passed.
func (j *Joiner) Add(c *Charge) {
	j.res.Charges++
	if c.ResourceID == "" && c.ResourceName == "" {
		j.res.WithoutResource++
		return
	}
	ts, hints := j.targets(c)
	for _, h := range hints {
		rm := &j.runs[h.run].cost.Resources[h.res]
		rm.Hint = fmt.Sprintf("billed on scale set %s, not per instance: not attributed", c.ResourceID)
	}
	if len(ts) == 0 {
		return
	}
	j.res.Matched++
	var kept *Charge
	done := make([]int, 0, 1)
	for _, t := range ts {
		st := &j.runs[t.run]
		rm := &st.cost.Resources[t.res]
		rm.Rows++
		if rm.First.IsZero() || c.ChargePeriodStart.Before(rm.First) {
			rm.First = c.ChargePeriodStart
		}
		if c.ChargePeriodEnd.After(rm.Last) {
			rm.Last = c.ChargePeriodEnd
		}
		w := st.cost.Run
		if !w.HasWindow() || !touches(c, w) {
			continue
		}
		rm.Overlapping++
		if slices.Contains(done, t.run) {
			continue // already allocated through another of the run's IDs
		}
		done = append(done, t.run)
		if kept == nil {
			kept = c.Clone()
		}
		j.allocate(t.run, kept)
	}
}

// touches reports whether c's period overlaps w, counting a zero-length
// period at an instant inside [Start, End).
func touches(c *Charge, w RunWindow) bool {
	s, e := c.ChargePeriodStart, c.ChargePeriodEnd
	if s.Equal(e) {
		return !s.Before(w.Start) && s.Before(w.End)
	}
	return s.Before(w.End) && w.Start.Before(e)
}

// siblingKey identifies the rows a unit-less row may take its metering
// from: same run, resource, SKU and charge period.
type siblingKey struct {
	run        int
	resource   string
	sku        string
	start, end int64
}

func keyOf(run int, c *Charge) siblingKey {
	return siblingKey{run, c.ResourceID, c.SkuID, c.ChargePeriodStart.UnixNano(), c.ChargePeriodEnd.UnixNano()}
}

type pendingRow struct {
	run int
	c   *Charge
}

// allocate classifies c and allocates it to run. A row with no unit at all
// that is not one-off (FOCUS lets corrections and credits leave the
// quantity and unit null) is held back until Result, where it takes the
// metering of a row of the same resource, SKU and period, so that a
// correction to an hourly instance row is prorated like the row it
// corrects.
func (j *Joiner) allocate(run int, c *Charge) {
	m := ClassifyCharge(c)
	if m != OneOff && c.PricingUnit == "" && c.ConsumedUnit == "" {
		j.pending = append(j.pending, pendingRow{run, c})
		return
	}
	k := keyOf(run, c)
	if prev, ok := j.siblings[k]; !ok || prev != TimeMetered {
		j.siblings[k] = m
	}
	j.allocateAs(&j.runs[run], c, m)
}

func (j *Joiner) allocateAs(st *runState, c *Charge, m Metering, notes ...string) {
	w := st.cost.Run
	a := Allocation{Charge: c, Metering: m, Period: c.Period(), Notes: notes,
		Granularity: GranularityOf(c.ChargePeriodStart, c.ChargePeriodEnd)}
	s := maxTime(c.ChargePeriodStart, w.Start)
	e := minTime(c.ChargePeriodEnd, w.End)
	if e.After(s) {
		a.Overlap = e.Sub(s)
	}
	inside := !c.ChargePeriodStart.Before(w.Start) && !c.ChargePeriodEnd.After(w.End)
	switch {
	case inside:
		a.Rule, a.Included = RuleInside, true
		if a.Metering == TimeMetered {
			a.Rule = RuleProrated
		}
	case a.Metering == TimeMetered:
		a.Rule, a.Included = RuleProrated, true
	case a.Metering == QuantityMetered && j.opts.ProrateQuantityUsage:
		a.Rule, a.Included = RuleProrated, true
		a.Notes = append(a.Notes, "quantity-metered row prorated by time (ProrateQuantityUsage): assumes uniform usage across the row")
	case a.Metering == QuantityMetered:
		a.Rule = RuleCoincident
		eff, _ := prorate(c.EffectiveCost, a.Overlap, a.Period, j.opts.Places)
		a.Notes = append(a.Notes, fmt.Sprintf("usage in %q is not time-based and the row only partly overlaps the run: not allocated (a time share would be %s %s)",
			c.PricingUnit, eff, c.BillingCurrency))
	default:
		a.Rule = RuleOneOffOutside
		a.Notes = append(a.Notes, "one-off charge whose period is not inside the run window: not allocated")
	}
	if a.Included {
		var r1, r2, r3 bool
		if a.Period == 0 || a.Overlap == a.Period || a.Rule == RuleInside {
			a.Billed, a.Effective, a.List = c.BilledCost, c.EffectiveCost, c.ListCost
		} else {
			a.Billed, r1 = prorate(c.BilledCost, a.Overlap, a.Period, j.opts.Places)
			a.Effective, r2 = prorate(c.EffectiveCost, a.Overlap, a.Period, j.opts.Places)
			if c.ListCost.Valid {
				a.List.Valid = true
				a.List.Decimal, r3 = prorate(c.ListCost.Decimal, a.Overlap, a.Period, j.opts.Places)
			}
			a.Rounded = r1 || r2 || r3
		}
		runDur := w.Duration()
		if a.Rule == RuleProrated && float64(a.Period) >= j.opts.CoarseFactor*float64(runDur) {
			st.coarse++
			a.Notes = append(a.Notes, fmt.Sprintf("%s row (%s) is %.1f× the run (%s): its cost is assumed uniform across the row",
				a.Granularity, a.Period, float64(a.Period)/float64(runDur), runDur))
		}
		if a.Rule == RuleProrated && a.Metering == TimeMetered && hourUnit(c.PricingUnit) && c.PricingQuantity.Valid {
			hours := c.PricingQuantity.Decimal.Float64()
			rowHours := a.Period.Hours()
			if hours > 0 && hours < 0.999*rowHours {
				st.partial++
				a.Notes = append(a.Notes, fmt.Sprintf("the resource ran %.4g h of this %.4g h row: uniform proration may under-attribute it to a run inside its active time",
					hours, rowHours))
			}
		}
		if a.Period >= st.cost.MaxRowPeriod {
			st.cost.MaxRowPeriod, st.cost.Coarsest = a.Period, a.Granularity
		}
		ct := st.totals[c.BillingCurrency]
		if ct == nil {
			ct = &CurrencyTotal{Currency: c.BillingCurrency, List: NullDecimal{Valid: true}}
			st.totals[c.BillingCurrency] = ct
		}
		ct.Rows++
		ct.Billed = ct.Billed.Add(a.Billed)
		ct.Effective = ct.Effective.Add(a.Effective)
		if a.List.Valid && ct.List.Valid {
			ct.List.Decimal = ct.List.Decimal.Add(a.List.Decimal)
		} else {
			ct.List = NullDecimal{}
		}
		st.cost.Status = Costed
	}
	st.cost.Allocations = append(st.cost.Allocations, a)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// prorate returns d × num / den, exactly when that has at most places
// digits after the point (keeping at least d's own digits), else rounded
// half to even; rounded reports the latter.
func prorate(d Decimal, num, den time.Duration, places int32) (Decimal, bool) {
	if den == 0 || num == den {
		return d, false
	}
	r := d.Rat()
	r.Mul(r, big.NewRat(int64(num), int64(den)))
	minPlaces := max(-d.exp, 0)
	v, exact := ratDecimal(r, minPlaces, max(places, minPlaces))
	return v, !exact
}

// Result finishes the join: per-currency totals, the run's Total on the
// chosen basis, and the resource reports. Call it once, after the last Add.
func (j *Joiner) Result() *JoinResult {
	for _, p := range j.pending {
		m, ok := j.siblings[keyOf(p.run, p.c)]
		if !ok {
			j.allocateAs(&j.runs[p.run], p.c, QuantityMetered,
				"row has no unit and no row of the same resource, SKU and period does: treated as quantity-metered")
			continue
		}
		j.allocateAs(&j.runs[p.run], p.c, m, fmt.Sprintf("row has no unit: %s like the row of the same resource, SKU and period", m))
	}
	j.pending = nil
	res := j.res
	for i := range j.runs {
		st := &j.runs[i]
		rc := st.cost
		for _, ct := range st.totals {
			rc.Totals = append(rc.Totals, *ct)
		}
		slices.SortFunc(rc.Totals, func(a, b CurrencyTotal) int { return strings.Compare(a.Currency, b.Currency) })
		if st.coarse > 0 {
			rc.Warnings = append(rc.Warnings, fmt.Errorf("costing: %d prorated row(s) at least %g× longer than the run (coarsest %s, %s, run %s): the run's share is an estimate",
				st.coarse, j.opts.CoarseFactor, rc.Coarsest, rc.MaxRowPeriod, rc.Run.Duration()))
		}
		if st.partial > 0 {
			rc.Warnings = append(rc.Warnings, fmt.Errorf("costing: %d hourly row(s) show the resource running only part of the hour: proration may under-attribute", st.partial))
		}
		for _, rm := range rc.Resources {
			switch {
			case rm.Rows == 0 && rm.Hint != "":
				rc.Warnings = append(rc.Warnings, fmt.Errorf("%w: %s (%s)", ErrUnmatched, rm.ResourceID, rm.Hint))
			case rm.Rows == 0:
				rc.Warnings = append(rc.Warnings, fmt.Errorf("%w: %s", ErrUnmatched, rm.ResourceID))
			case rm.Overlapping == 0 && rc.Run.HasWindow():
				rc.Warnings = append(rc.Warnings, fmt.Errorf("%w: %s has %d charge(s) covering %s to %s, run window %s to %s",
					ErrNoOverlap, rm.ResourceID, rm.Rows, fmtTime(rm.First), fmtTime(rm.Last), fmtTime(rc.Run.Start), fmtTime(rc.Run.End)))
			}
		}
		rc.Total, rc.Warnings = total(rc, j.opts, rc.Warnings)
		res.Runs = append(res.Runs, rc)
	}
	return &res
}

// total states the run's cost on the basis in one currency, or explains
// why it cannot.
func total(rc RunCost, opts JoinOptions, warns []error) (*Money, []error) {
	if len(rc.Totals) == 0 {
		return nil, warns
	}
	pick := func(ct CurrencyTotal) (Decimal, bool) {
		switch opts.Basis {
		case Billed:
			return ct.Billed, true
		case List:
			return ct.List.Decimal, ct.List.Valid
		}
		return ct.Effective, true
	}
	if opts.Currency == "" {
		if len(rc.Totals) > 1 {
			var cs []string
			for _, ct := range rc.Totals {
				cs = append(cs, ct.Currency)
			}
			return nil, append(warns, &MixedCurrencyError{Currencies: cs})
		}
		v, ok := pick(rc.Totals[0])
		if !ok {
			return nil, append(warns, fmt.Errorf("costing: some included rows have no ListCost: no list total"))
		}
		return &Money{v, rc.Totals[0].Currency}, warns
	}
	var sum Decimal
	for _, ct := range rc.Totals {
		v, ok := pick(ct)
		if !ok {
			return nil, append(warns, fmt.Errorf("costing: some included rows have no ListCost: no list total"))
		}
		if strings.EqualFold(ct.Currency, opts.Currency) {
			sum = sum.Add(v)
			continue
		}
		m, err := opts.Convert(Money{v, ct.Currency})
		if err != nil {
			return nil, append(warns, err)
		}
		sum = sum.Add(m.Amount)
	}
	return &Money{sum, opts.Currency}, warns
}

// A MixedCurrencyError says that a run's charges are in several
// currencies and no target currency was given (JoinOptions.Currency and
// Rates). It matches ErrMixedCurrency; callers that expose the options to
// people under other names (command-line flags) say so in their message.
type MixedCurrencyError struct{ Currencies []string }

func (e *MixedCurrencyError) Error() string {
	return fmt.Sprintf("%v: %s; give a currency to total in and an exchange rate from each of the others", ErrMixedCurrency, strings.Join(e.Currencies, ", "))
}

func (e *MixedCurrencyError) Is(target error) bool { return target == ErrMixedCurrency }

// A NoRateError says that an amount in From has no exchange rate to To
// among JoinOptions.Rates. It matches ErrNoRate.
type NoRateError struct{ From, To string }

func (e *NoRateError) Error() string {
	return fmt.Sprintf("%v: from %s to %s", ErrNoRate, e.From, e.To)
}

func (e *NoRateError) Is(target error) bool { return target == ErrNoRate }

// Convert states m in opts.Currency with opts.Rates: unchanged when it is
// already in it (or no Currency is set), else amount × rate, or a
// *NoRateError.
func (opts JoinOptions) Convert(m Money) (Money, error) {
	if opts.Currency == "" || strings.EqualFold(m.Currency, opts.Currency) {
		return m, nil
	}
	i := slices.IndexFunc(opts.Rates, func(r ExchangeRate) bool {
		return strings.EqualFold(r.From, m.Currency) && strings.EqualFold(r.To, opts.Currency)
	})
	if i < 0 {
		return Money{}, &NoRateError{From: m.Currency, To: opts.Currency}
	}
	return Money{m.Amount.Mul(opts.Rates[i].Rate), opts.Currency}, nil
}

// MaxRejectedListed caps the rejected rows a Bill from AddBill lists;
// every one is counted in Bill.Counts.
const MaxRejectedListed = 100

// AddBill streams a billing file into the joiner: every charge is Added
// as it is read, and kept only when it touches a run, so memory grows
// with the matching charges, not with the file (a 5-million-row FOCUS
// export would otherwise be held whole). The Bill returned carries the
// file's format, counts, warnings and its first MaxRejectedListed
// rejected rows, and no Charges. The error is fatal for the file (header
// or I/O).
func (j *Joiner) AddBill(r io.Reader, opts ReaderOptions) (*Bill, error) {
	opts.ReuseCharge = true
	return readBill(r, opts, MaxRejectedListed, j.Add) // Add clones what it keeps
}

// Join is NewJoiner, Add for every charge, and Result.
func Join(runs []RunWindow, charges []*Charge, opts JoinOptions) *JoinResult {
	j := NewJoiner(runs, opts)
	for _, c := range charges {
		j.Add(c)
	}
	return j.Result()
}
