package costing

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
)

// A Charge is one billing row normalised to a subset of FOCUS 1.2 columns.
// Every reader produces Charges, so the join and the reports never look at
// a provider's own column names.
//
// Text fields hold the file's text (trimmed of surrounding spaces), with
// FOCUS enum columns (ChargeCategory, ChargeClass, ChargeFrequency) put in
// their canonical spelling when they match case-insensitively, and ""
// standing for null. Periods are UTC and half-open: [Start, End).
type Charge struct {
	// ResourceID identifies the billed resource as the provider writes it
	// (AWS instance ID or ARN, Azure ARM ID, GCP resource.global_name).
	// Empty for charges not tied to a resource (support, taxes, credits).
	ResourceID   string
	ResourceName string
	ResourceType string

	// ChargePeriodStart and ChargePeriodEnd bound the period the charge
	// covers, [start, end) in UTC. Azure's whole-day Date becomes
	// [Date, Date+24h).
	ChargePeriodStart time.Time
	ChargePeriodEnd   time.Time
	// BillingPeriodStart and BillingPeriodEnd bound the invoice month,
	// [start, end); zero when the file does not say. Azure's inclusive
	// BillingPeriodEndDate has had one day added.
	BillingPeriodStart time.Time
	BillingPeriodEnd   time.Time

	// BilledCost is what the invoice charges (cash basis).
	BilledCost Decimal
	// EffectiveCost is the amortised cost after discounts and commitment
	// purchases: the default basis for "what did this run cost".
	EffectiveCost Decimal
	// ListCost is the on-demand (public price) cost, null when the file
	// has no such column.
	ListCost NullDecimal
	// ContractedCost is the cost at negotiated prices (FOCUS 1.0+ only).
	ContractedCost NullDecimal
	// BillingCurrency is the ISO 4217 code of the three costs.
	BillingCurrency string

	// ChargeCategory is Usage, Purchase, Tax, Credit or Adjustment.
	ChargeCategory string
	// ChargeClass is "Correction" for a row that corrects an already
	// invoiced period, "" otherwise. Corrections are kept and summed.
	ChargeClass string
	// ChargeFrequency is One-Time, Recurring, Usage-Based or "" when the
	// source does not say.
	ChargeFrequency   string
	ChargeDescription string
	// NativeChargeType is the source's own charge type before mapping
	// (AWS lineItem/LineItemType, Azure ChargeType, GCP cost_type), kept
	// for audit; empty for FOCUS input.
	NativeChargeType string

	ServiceName     string
	ServiceCategory string
	SkuID           string
	SkuPriceID      string

	PricingQuantity  NullDecimal
	PricingUnit      string
	ConsumedQuantity NullDecimal
	ConsumedUnit     string

	RegionID         string
	RegionName       string
	AvailabilityZone string

	BillingAccountID string
	SubAccountID     string

	CommitmentDiscountID     string
	CommitmentDiscountStatus string

	// Tags holds the row's finalised tags; JSON numbers and booleans keep
	// their JSON text, JSON null becomes "". Nil when the row has none.
	Tags map[string]string

	// Provider names the cloud: FOCUS ProviderName, or AWS, Google Cloud
	// or Microsoft for native exports.
	Provider string

	// Source says where the row came from.
	Source Source
}

// A Source locates a Charge in its input.
type Source struct {
	Format Format
	File   string
	Line   int // 1-based line where the row starts
}

// Clone returns a copy of c that shares nothing mutable with it.
func (c *Charge) Clone() *Charge {
	d := *c
	d.Tags = maps.Clone(c.Tags)
	return &d
}

// Period returns ChargePeriodEnd - ChargePeriodStart.
func (c *Charge) Period() time.Duration { return c.ChargePeriodEnd.Sub(c.ChargePeriodStart) }

// Cost returns the charge's cost on basis b and whether it is known (a
// null ListCost is not).
func (c *Charge) Cost(b CostBasis) (Decimal, bool) {
	switch b {
	case Billed:
		return c.BilledCost, true
	case List:
		return c.ListCost.Decimal, c.ListCost.Valid
	default:
		return c.EffectiveCost, true
	}
}

func (*Charge) record() {}

// A CostBasis chooses which of a Charge's costs a total uses.
type CostBasis string

const (
	// Effective (the default) is amortised, commitment-aware cost: FOCUS
	// EffectiveCost.
	Effective CostBasis = "effective"
	// Billed is invoiced cash: FOCUS BilledCost.
	Billed CostBasis = "billed"
	// List is the on-demand reference: FOCUS ListCost.
	List CostBasis = "list"
)

// A Record is what one input row becomes: a *Charge or a *RowError.
type Record interface{ record() }

// A RowError rejects one input row. Readers return it as a value and keep
// going, so a bad row never hides the rest of a file.
type RowError struct {
	File  string
	Line  int    // 1-based line where the row starts
	Field string // column name as the header writes it; "" for the whole row
	Msg   string
	Err   error // the cause, one of the Err* sentinels where one applies
}

func (e *RowError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s:%d: ", e.File, e.Line)
	if e.Field != "" {
		sb.WriteString(e.Field)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

func (e *RowError) Unwrap() error { return e.Err }

func (*RowError) record() {}

var (
	// ErrMissing reports a null or empty value in a column a Charge
	// cannot do without (a cost, a currency, a period bound).
	ErrMissing = errors.New("costing: missing value")
	// ErrPeriod reports a charge period that ends before it starts.
	ErrPeriod = errors.New("costing: charge period ends before it starts")
	// ErrFieldCount reports a row whose field count differs from the header's.
	ErrFieldCount = errors.New("costing: wrong number of fields")
	// ErrCSV reports a row that is not valid CSV (a stray quote).
	ErrCSV = errors.New("costing: malformed CSV")
	// ErrValue reports a value outside what the column allows.
	ErrValue = errors.New("costing: invalid value")
)

// Counts says what happened to a file's rows. Rows == Charges + Rejected
// always holds: every data row is accounted for.
type Counts struct {
	Rows     int // data rows read (the header is not counted)
	Charges  int // rows that became a Charge
	Rejected int // rows that became a RowError
}

// A Granularity describes how long a billing row's charge period is,
// which bounds how precisely its cost can be attributed to a run.
type Granularity string

const (
	// Hourly rows (AWS hourly CUR, GCP, FOCUS from AWS) make a run's
	// share an estimate unless the run spans whole hours.
	Hourly Granularity = "hourly"
	// Daily rows (Azure, AWS daily CUR) are coarse for runs of minutes.
	Daily Granularity = "daily"
	// Monthly rows (support, taxes, some storage) are coarser still.
	Monthly Granularity = "monthly"
	// Instant is a zero-length period (some one-time purchases).
	Instant Granularity = "instant"
	// OtherGranularity is any other length (sub-hourly rows, multi-day
	// credits).
	OtherGranularity Granularity = "other"
)

// GranularityOf classifies the period [start, end): exactly one hour,
// exactly one day, one calendar month from the first of a month at
// midnight, zero, or other.
func GranularityOf(start, end time.Time) Granularity {
	d := end.Sub(start)
	switch {
	case d == 0:
		return Instant
	case d == time.Hour:
		return Hourly
	case d == 24*time.Hour:
		return Daily
	}
	s := start.UTC()
	if s.Day() == 1 && s.Hour() == 0 && s.Minute() == 0 && s.Second() == 0 && s.Nanosecond() == 0 &&
		s.AddDate(0, 1, 0).Equal(end) {
		return Monthly
	}
	return OtherGranularity
}
