package costing

import (
	"fmt"
	"time"
)

// gcpMapper reads the Google Cloud Billing export as a flattened CSV.
// BigQuery cannot export its nested billing table to CSV, so every GCP
// billing CSV is a user's flattening query; the columns here follow the
// common spelling (dotted, as pandas and koku write them; underscores
// fold to the same key). Repeated fields (credits, labels, system_labels)
// are read as JSON or as Python literals.
//
// Mapping (docs/formats/billing.md §3, §5):
//
//	BilledCost      cost + Σ credits.amount (credits are negative)
//	EffectiveCost   the same (the CUD fee amortisation GCP's own FOCUS export
//	                applies is not reproduced)
//	ListCost        cost_at_list, when the column exists
//	ChargeCategory  cost_type regular (or empty) → Usage, tax → Tax,
//	                adjustment and rounding error → Adjustment
//	ChargeClass     Correction when adjustment_info is set and the invoice
//	                month is later than the usage month
//	BillingPeriod   invoice.month (YYYYMM) → [first of month, first of next)
//	ResourceId      resource.global_name (detailed export); ResourceName resource.name
//	Tags            labels and system_labels
type gcpMapper struct {
	cost, credits, list, currency, start, end, invoice          int
	costType, svc, skuID, skuDesc, amount, unit, pAmount, pUnit int
	region, zone, location, rid, rname, project, account        int
	labels, sysLabels, adjID, adjType                           int
}

func newGCPMapper(h *header, warn *[]error) (mapper, error) {
	if err := missingColumns(h, []string{"cost"}, []string{"currency"},
		[]string{"usage_start_time"}, []string{"usage_end_time"}); err != nil {
		return nil, err
	}
	m := &gcpMapper{
		cost:      h.col("cost"),
		credits:   h.col("credits"),
		list:      h.col("cost_at_list"),
		currency:  h.col("currency"),
		start:     h.col("usage_start_time"),
		end:       h.col("usage_end_time"),
		invoice:   h.col("invoice.month"),
		costType:  h.col("cost_type"),
		svc:       h.col("service.description"),
		skuID:     h.col("sku.id"),
		skuDesc:   h.col("sku.description"),
		amount:    h.col("usage.amount"),
		unit:      h.col("usage.unit"),
		pAmount:   h.col("usage.amount_in_pricing_units"),
		pUnit:     h.col("usage.pricing_unit"),
		region:    h.col("location.region"),
		zone:      h.col("location.zone"),
		location:  h.col("location.location"),
		rid:       h.col("resource.global_name"),
		rname:     h.col("resource.name"),
		project:   h.col("project.id"),
		account:   h.col("billing_account_id"),
		labels:    h.col("labels"),
		sysLabels: h.col("system_labels"),
		adjID:     h.col("adjustment_info.id"),
		adjType:   h.col("adjustment_info.type"),
	}
	if m.credits < 0 {
		*warn = append(*warn, fmt.Errorf("costing: GCP export has no credits column; BilledCost is cost before credits"))
	}
	return m, nil
}

func (m *gcpMapper) row(rec []string, c *Charge) *fieldError {
	var fe *fieldError
	c.Provider = "Google Cloud"
	if c.ChargePeriodStart, fe = reqTime(rec, m.start); fe != nil {
		return fe
	}
	if c.ChargePeriodEnd, fe = reqTime(rec, m.end); fe != nil {
		return fe
	}
	if fe = checkPeriod(c, m.end); fe != nil {
		return fe
	}
	cost, fe := reqDecimal(rec, m.cost)
	if fe != nil {
		return fe
	}
	if s := text(rec, m.credits); s != "" {
		recs, err := parseRecordList(s)
		if err != nil {
			return &fieldError{col: m.credits, msg: fmt.Sprintf("not a list of credits: %v", err), err: ErrValue}
		}
		for _, r := range recs {
			a, ok := r["amount"]
			if !ok || a == nil {
				continue
			}
			n, ok := a.(numLit)
			if !ok {
				return &fieldError{col: m.credits, msg: fmt.Sprintf("credit amount %v is not a number", a), err: ErrValue}
			}
			d, err := ParseDecimal(string(n))
			if err != nil {
				return &fieldError{col: m.credits, msg: fmt.Sprintf("credit amount %q: %v", clip(string(n)), err), err: err}
			}
			cost = cost.Add(d)
		}
	}
	c.BilledCost, c.EffectiveCost = cost, cost
	if c.ListCost, fe = optDecimal(rec, m.list); fe != nil {
		return fe
	}
	if c.BillingCurrency = text(rec, m.currency); c.BillingCurrency == "" {
		return &fieldError{col: m.currency, msg: "null value in a required column", err: ErrMissing}
	}
	if s := text(rec, m.invoice); s != "" {
		y, ok1 := num(s, 0, 4)
		mo, ok2 := num(s, 4, 2)
		if !ok1 || !ok2 || len(s) != 6 || mo < 1 || mo > 12 {
			return &fieldError{col: m.invoice, msg: fmt.Sprintf("%q is not YYYYMM", clip(s)), err: ErrValue}
		}
		c.BillingPeriodStart = time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
		c.BillingPeriodEnd = c.BillingPeriodStart.AddDate(0, 1, 0)
	}
	c.NativeChargeType = text(rec, m.costType)
	switch canon(c.NativeChargeType, "regular", "tax", "adjustment", "rounding error") {
	case "regular", "":
		c.ChargeCategory, c.ChargeFrequency = "Usage", "Usage-Based"
	case "tax":
		c.ChargeCategory = "Tax"
	default:
		c.ChargeCategory = "Adjustment"
	}
	if (text(rec, m.adjID) != "" || text(rec, m.adjType) != "") && !c.BillingPeriodStart.IsZero() &&
		c.BillingPeriodStart.After(c.ChargePeriodStart) {
		c.ChargeClass = "Correction"
	}
	if c.ConsumedQuantity, fe = optDecimal(rec, m.amount); fe != nil {
		return fe
	}
	c.ConsumedUnit = text(rec, m.unit)
	if c.PricingQuantity, fe = optDecimal(rec, m.pAmount); fe != nil {
		return fe
	}
	c.PricingUnit = text(rec, m.pUnit)
	c.ServiceName = text(rec, m.svc)
	c.SkuID = text(rec, m.skuID)
	c.ChargeDescription = text(rec, m.skuDesc)
	c.RegionID = text(rec, m.region)
	c.RegionName = text(rec, m.location)
	c.AvailabilityZone = text(rec, m.zone)
	c.ResourceID = text(rec, m.rid)
	c.ResourceName = text(rec, m.rname)
	c.SubAccountID = text(rec, m.project)
	c.BillingAccountID = text(rec, m.account)
	for _, col := range []int{m.labels, m.sysLabels} {
		if s := text(rec, col); s != "" {
			var err error
			if c.Tags, err = parseKeyValueList(s, c.Tags); err != nil {
				return &fieldError{col: col, msg: fmt.Sprintf("not a list of key/value records: %v", err), err: ErrValue}
			}
		}
	}
	return nil
}
