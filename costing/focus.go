package costing

import (
	"errors"
	"fmt"
)

// focusMapper reads FOCUS 1.0, 1.1 and 1.2 and the pre-1.0 (1.0-preview)
// column names: AmortizedCost for EffectiveCost, ChargeType for
// ChargeCategory, UsageQuantity/UsageUnit for ConsumedQuantity/Unit and
// Region for RegionId. Columns a version added later are simply absent
// from older files. x_ columns and unknown columns are ignored.
type focusMapper struct {
	billed, effective, list, contracted, currency int
	cps, cpe, bps, bpe                            int
	rid, rname, rtype                             int
	svc, svcCat, category, class, freq, desc      int
	sku, skuPrice, pq, pu, cq, cu                 int
	region, regionName, az, billingAcct, subAcct  int
	cdID, cdStatus, tags, provider                int
}

func newFOCUSMapper(h *header, warn *[]error) (mapper, error) {
	if err := missingColumns(h, []string{"BilledCost"}, []string{"BillingCurrency"},
		[]string{"ChargePeriodStart"}, []string{"ChargePeriodEnd"}); err != nil {
		return nil, err
	}
	m := &focusMapper{
		billed:      h.col("BilledCost"),
		effective:   h.col("EffectiveCost", "AmortizedCost"),
		list:        h.col("ListCost"),
		contracted:  h.col("ContractedCost"),
		currency:    h.col("BillingCurrency"),
		cps:         h.col("ChargePeriodStart"),
		cpe:         h.col("ChargePeriodEnd"),
		bps:         h.col("BillingPeriodStart"),
		bpe:         h.col("BillingPeriodEnd"),
		rid:         h.col("ResourceId"),
		rname:       h.col("ResourceName"),
		rtype:       h.col("ResourceType"),
		svc:         h.col("ServiceName"),
		svcCat:      h.col("ServiceCategory"),
		category:    h.col("ChargeCategory", "ChargeType"),
		class:       h.col("ChargeClass"),
		freq:        h.col("ChargeFrequency"),
		desc:        h.col("ChargeDescription"),
		sku:         h.col("SkuId"),
		skuPrice:    h.col("SkuPriceId"),
		pq:          h.col("PricingQuantity"),
		pu:          h.col("PricingUnit"),
		cq:          h.col("ConsumedQuantity", "UsageQuantity"),
		cu:          h.col("ConsumedUnit", "UsageUnit"),
		region:      h.col("RegionId", "Region"),
		regionName:  h.col("RegionName"),
		az:          h.col("AvailabilityZone"),
		billingAcct: h.col("BillingAccountId"),
		subAcct:     h.col("SubAccountId"),
		cdID:        h.col("CommitmentDiscountId"),
		cdStatus:    h.col("CommitmentDiscountStatus"),
		tags:        h.col("Tags"),
		provider:    h.col("ProviderName", "ServiceProviderName", "Provider"),
	}
	if m.effective < 0 {
		*warn = append(*warn, errors.New("costing: FOCUS file has no EffectiveCost (or AmortizedCost) column; EffectiveCost is set to BilledCost"))
	}
	return m, nil
}

func (m *focusMapper) row(rec []string, c *Charge) *fieldError {
	var fe *fieldError
	if c.BilledCost, fe = reqDecimal(rec, m.billed); fe != nil {
		return fe
	}
	if m.effective >= 0 {
		if c.EffectiveCost, fe = reqDecimal(rec, m.effective); fe != nil {
			return fe
		}
	} else {
		c.EffectiveCost = c.BilledCost
	}
	if c.ListCost, fe = optDecimal(rec, m.list); fe != nil {
		return fe
	}
	if c.ContractedCost, fe = optDecimal(rec, m.contracted); fe != nil {
		return fe
	}
	if c.BillingCurrency = text(rec, m.currency); c.BillingCurrency == "" {
		return &fieldError{col: m.currency, msg: "null value in a required column", err: ErrMissing}
	}
	if c.ChargePeriodStart, fe = reqTime(rec, m.cps); fe != nil {
		return fe
	}
	if c.ChargePeriodEnd, fe = reqTime(rec, m.cpe); fe != nil {
		return fe
	}
	if fe = checkPeriod(c, m.cpe); fe != nil {
		return fe
	}
	if c.BillingPeriodStart, fe = optTime(rec, m.bps); fe != nil {
		return fe
	}
	if c.BillingPeriodEnd, fe = optTime(rec, m.bpe); fe != nil {
		return fe
	}
	if c.PricingQuantity, fe = optDecimal(rec, m.pq); fe != nil {
		return fe
	}
	if c.ConsumedQuantity, fe = optDecimal(rec, m.cq); fe != nil {
		return fe
	}
	c.ResourceID = text(rec, m.rid)
	c.ResourceName = text(rec, m.rname)
	c.ResourceType = text(rec, m.rtype)
	c.ServiceName = text(rec, m.svc)
	c.ServiceCategory = text(rec, m.svcCat)
	c.ChargeCategory = canon(text(rec, m.category), chargeCategories...)
	c.ChargeClass = canon(text(rec, m.class), "Correction")
	c.ChargeFrequency = canon(text(rec, m.freq), chargeFrequencies...)
	c.ChargeDescription = text(rec, m.desc)
	c.SkuID = text(rec, m.sku)
	c.SkuPriceID = text(rec, m.skuPrice)
	c.PricingUnit = text(rec, m.pu)
	c.ConsumedUnit = text(rec, m.cu)
	c.RegionID = text(rec, m.region)
	c.RegionName = text(rec, m.regionName)
	c.AvailabilityZone = text(rec, m.az)
	c.BillingAccountID = text(rec, m.billingAcct)
	c.SubAccountID = text(rec, m.subAcct)
	c.CommitmentDiscountID = text(rec, m.cdID)
	c.CommitmentDiscountStatus = canon(text(rec, m.cdStatus), "Used", "Unused")
	c.Provider = text(rec, m.provider)
	if s := text(rec, m.tags); s != "" {
		tags, err := parseTagObject(s)
		if err != nil {
			return &fieldError{col: m.tags, msg: fmt.Sprintf("not a JSON object: %v", err), err: ErrValue}
		}
		c.Tags = tags
	}
	return nil
}
