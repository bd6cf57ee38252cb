package costing

import (
	"fmt"
	"strings"
)

// awsMapper reads the AWS Cost and Usage Report. Legacy CSV writes
// "lineItem/UnblendedCost"; the Athena spelling of legacy CUR and CUR 2.0
// write "line_item_unblended_cost". normHeader folds both to one key, so
// one mapper serves them. CUR 2.0 moves product attributes and tags into
// map columns ("product", "resource_tags"), read here as JSON objects.
//
// Mapping (docs/formats/billing.md §2, §5):
//
//	BilledCost      lineItem/NetUnblendedCost when present and non-null, else UnblendedCost
//	EffectiveCost   by LineItemType: DiscountedUsage → reservation/EffectiveCost;
//	                SavingsPlanCoveredUsage → savingsPlan/SavingsPlanEffectiveCost;
//	                SavingsPlanNegation, RIFee, SavingsPlanUpfrontFee,
//	                SavingsPlanRecurringFee → 0 (amortised into usage rows);
//	                Fee with a reservation ARN (RI upfront) → 0; otherwise BilledCost
//	ListCost        pricing/publicOnDemandCost
//	ChargeCategory  Usage, DiscountedUsage, SavingsPlanCoveredUsage,
//	                SavingsPlanNegation → Usage; Fee, RIFee, SavingsPlan*Fee →
//	                Purchase; Tax → Tax; Credit → Credit; anything else
//	                (Refund, Discount, …) → Adjustment
//	ChargePeriod    lineItem/UsageStartDate, UsageEndDate (identity/TimeInterval as fallback)
//	Pricing/ConsumedQuantity  lineItem/UsageAmount in pricing/unit (consumed only for Usage)
//
// The RIFee rule leaves unused reservation cost out of EffectiveCost; such
// rows carry the reservation's ARN, never an instance's, so they never join
// to a run anyway.
type awsMapper struct {
	start, end, interval, bps, bpe                  int
	rid, unblended, net, riEff, spEff, pubOD        int
	currency, itemType, desc, productName, code     int
	sku, amount, unit, region, regionCode, location int
	az, payer, account, riARN, spARN                int
	productMap, tagMap                              int
	tagCols                                         []tagCol
}

type tagCol struct {
	key string
	col int
}

func newAWSMapper(h *header, warn *[]error) (mapper, error) {
	if err := missingColumns(h, []string{"lineItem/UnblendedCost"}, []string{"lineItem/CurrencyCode"},
		[]string{"lineItem/UsageStartDate", "identity/TimeInterval"}); err != nil {
		return nil, err
	}
	m := &awsMapper{
		start:       h.col("lineItem/UsageStartDate"),
		end:         h.col("lineItem/UsageEndDate"),
		interval:    h.col("identity/TimeInterval"),
		bps:         h.col("bill/BillingPeriodStartDate"),
		bpe:         h.col("bill/BillingPeriodEndDate"),
		rid:         h.col("lineItem/ResourceId"),
		unblended:   h.col("lineItem/UnblendedCost"),
		net:         h.col("lineItem/NetUnblendedCost"),
		riEff:       h.col("reservation/EffectiveCost"),
		spEff:       h.col("savingsPlan/SavingsPlanEffectiveCost"),
		pubOD:       h.col("pricing/publicOnDemandCost"),
		currency:    h.col("lineItem/CurrencyCode"),
		itemType:    h.col("lineItem/LineItemType"),
		desc:        h.col("lineItem/LineItemDescription"),
		productName: h.col("product/ProductName"),
		code:        h.col("lineItem/ProductCode"),
		sku:         h.col("product/sku"),
		amount:      h.col("lineItem/UsageAmount"),
		unit:        h.col("pricing/unit"),
		region:      h.col("product/region"),
		regionCode:  h.col("product/regionCode"),
		location:    h.col("product/location"),
		az:          h.col("lineItem/AvailabilityZone"),
		payer:       h.col("bill/PayerAccountId"),
		account:     h.col("lineItem/UsageAccountId"),
		riARN:       h.col("reservation/ReservationARN"),
		spARN:       h.col("savingsPlan/SavingsPlanArn"),
		productMap:  -1,
		tagMap:      -1,
	}
	if h.hasRaw("product") {
		m.productMap = h.col("product")
	}
	if h.hasRaw("resource_tags") {
		m.tagMap = h.col("resource_tags")
	}
	for i, n := range h.names {
		// Legacy CSV: resourceTags/user:team; Athena: resource_tags_user_team.
		k, ok := cutPrefixFold(n, "resourceTags/")
		if !ok {
			k, ok = cutPrefixFold(n, "resource_tags_")
		}
		if ok && k != "" {
			m.tagCols = append(m.tagCols, tagCol{k, i})
		}
	}
	if m.start >= 0 && m.end < 0 {
		return nil, fmt.Errorf("%w: missing column lineItem/UsageEndDate", ErrMissing)
	}
	return m, nil
}

// cutPrefixFold is strings.CutPrefix ignoring case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

func (m *awsMapper) row(rec []string, c *Charge) *fieldError {
	c.Provider = "AWS"
	c.NativeChargeType = text(rec, m.itemType)
	if fe := m.period(rec, c); fe != nil {
		return fe
	}
	if fe := m.costs(rec, c); fe != nil {
		return fe
	}
	if fe := m.category(rec, c); fe != nil {
		return fe
	}
	if fe := m.quantities(rec, c); fe != nil {
		return fe
	}
	if fe := m.describe(rec, c); fe != nil {
		return fe
	}
	return m.tags(rec, c)
}

// period reads the charge and billing periods: the usage columns, else
// identity/TimeInterval "start/end".
func (m *awsMapper) period(rec []string, c *Charge) *fieldError {
	var fe *fieldError
	if m.start >= 0 && !isNull(cell(rec, m.start)) {
		if c.ChargePeriodStart, fe = reqTime(rec, m.start); fe != nil {
			return fe
		}
		if c.ChargePeriodEnd, fe = reqTime(rec, m.end); fe != nil {
			return fe
		}
		if fe = checkPeriod(c, m.end); fe != nil {
			return fe
		}
	} else if m.interval < 0 {
		return &fieldError{col: m.start, msg: "null value in a required column", err: ErrMissing}
	} else {
		s := text(rec, m.interval)
		a, b, ok := strings.Cut(s, "/")
		if !ok {
			return &fieldError{col: m.interval, msg: fmt.Sprintf("%q is not start/end", clip(s)), err: ErrMissing}
		}
		var err1, err2 error
		c.ChargePeriodStart, err1 = ParseTime(a)
		c.ChargePeriodEnd, err2 = ParseTime(b)
		if err1 != nil || err2 != nil {
			return &fieldError{col: m.interval, msg: fmt.Sprintf("%q is not start/end", clip(s)), err: ErrTime}
		}
		if fe = checkPeriod(c, m.interval); fe != nil {
			return fe
		}
	}
	if c.BillingPeriodStart, fe = optTime(rec, m.bps); fe != nil {
		return fe
	}
	c.BillingPeriodEnd, fe = optTime(rec, m.bpe)
	return fe
}

// costs reads the billed and list costs, the currency and the commitment.
func (m *awsMapper) costs(rec []string, c *Charge) *fieldError {
	unblended, fe := reqDecimal(rec, m.unblended)
	if fe != nil {
		return fe
	}
	net, fe := optDecimal(rec, m.net)
	if fe != nil {
		return fe
	}
	c.BilledCost = unblended
	if net.Valid {
		c.BilledCost = net.Decimal
	}
	if c.ListCost, fe = optDecimal(rec, m.pubOD); fe != nil {
		return fe
	}
	if c.BillingCurrency = text(rec, m.currency); c.BillingCurrency == "" {
		return &fieldError{col: m.currency, msg: "null value in a required column", err: ErrMissing}
	}
	c.CommitmentDiscountID = text(rec, m.riARN)
	if c.CommitmentDiscountID == "" {
		c.CommitmentDiscountID = text(rec, m.spARN)
	}
	return nil
}

// category maps the line item type to the FOCUS charge category and
// frequency, and sets the effective cost (see the table above).
func (m *awsMapper) category(rec []string, c *Charge) *fieldError {
	c.EffectiveCost = c.BilledCost
	effective := func(col int) *fieldError {
		eff, fe := optDecimal(rec, col)
		if fe == nil && eff.Valid {
			c.EffectiveCost = eff.Decimal
		}
		return fe
	}
	switch c.NativeChargeType {
	case "Usage", "":
		c.ChargeCategory, c.ChargeFrequency = "Usage", "Usage-Based"
	case "DiscountedUsage":
		c.ChargeCategory, c.ChargeFrequency = "Usage", "Usage-Based"
		c.CommitmentDiscountStatus = "Used"
		return effective(m.riEff)
	case "SavingsPlanCoveredUsage":
		c.ChargeCategory, c.ChargeFrequency = "Usage", "Usage-Based"
		c.CommitmentDiscountStatus = "Used"
		return effective(m.spEff)
	case "SavingsPlanNegation":
		c.ChargeCategory, c.ChargeFrequency = "Usage", "Usage-Based"
		c.EffectiveCost = Decimal{}
	case "RIFee", "SavingsPlanRecurringFee":
		c.ChargeCategory, c.ChargeFrequency = "Purchase", "Recurring"
		c.EffectiveCost = Decimal{}
	case "SavingsPlanUpfrontFee":
		c.ChargeCategory, c.ChargeFrequency = "Purchase", "One-Time"
		c.EffectiveCost = Decimal{}
	case "Fee":
		c.ChargeCategory, c.ChargeFrequency = "Purchase", "One-Time"
		if text(rec, m.riARN) != "" {
			c.EffectiveCost = Decimal{}
		}
	case "Tax":
		c.ChargeCategory = "Tax"
	case "Credit":
		c.ChargeCategory = "Credit"
	default:
		c.ChargeCategory = "Adjustment"
	}
	return nil
}

// quantities reads the usage amount and unit (consumed only for usage).
func (m *awsMapper) quantities(rec []string, c *Charge) *fieldError {
	var fe *fieldError
	if c.PricingQuantity, fe = optDecimal(rec, m.amount); fe != nil {
		return fe
	}
	c.PricingUnit = text(rec, m.unit)
	if c.ChargeCategory == "Usage" {
		c.ConsumedQuantity, c.ConsumedUnit = c.PricingQuantity, c.PricingUnit
	}
	return nil
}

// describe reads the resource, service, SKU, region and accounts, from
// the columns and from CUR 2.0's product map.
func (m *awsMapper) describe(rec []string, c *Charge) *fieldError {
	c.ResourceID = text(rec, m.rid)
	c.ChargeDescription = text(rec, m.desc)
	c.ServiceName = text(rec, m.productName)
	c.SkuID = text(rec, m.sku)
	c.RegionID = text(rec, m.regionCode)
	if c.RegionID == "" {
		c.RegionID = text(rec, m.region)
	}
	c.RegionName = text(rec, m.location)
	c.AvailabilityZone = text(rec, m.az)
	c.BillingAccountID = text(rec, m.payer)
	c.SubAccountID = text(rec, m.account)
	if m.productMap >= 0 {
		if s := text(rec, m.productMap); s != "" {
			p, err := parseTagObject(s)
			if err != nil {
				return &fieldError{col: m.productMap, msg: fmt.Sprintf("not a map: %v", err), err: ErrValue}
			}
			pick := func(dst *string, keys ...string) {
				for _, k := range keys {
					if v := p[k]; *dst == "" && v != "" {
						*dst = v
					}
				}
			}
			pick(&c.ServiceName, "product_name", "productName")
			pick(&c.SkuID, "sku", "product_sku")
			pick(&c.RegionID, "region_code", "regionCode", "region")
			pick(&c.RegionName, "location")
		}
	}
	if c.ServiceName == "" {
		c.ServiceName = text(rec, m.code)
	}
	return nil
}

// tags reads the resource tags: one column per tag (legacy CUR, Athena)
// or CUR 2.0's resource_tags map.
func (m *awsMapper) tags(rec []string, c *Charge) *fieldError {
	for _, tc := range m.tagCols {
		if v := text(rec, tc.col); v != "" {
			if c.Tags == nil {
				c.Tags = make(map[string]string, 4)
			}
			c.Tags[tc.key] = v
		}
	}
	if m.tagMap >= 0 {
		if s := text(rec, m.tagMap); s != "" {
			t, err := parseTagObject(s)
			if err != nil {
				return &fieldError{col: m.tagMap, msg: fmt.Sprintf("not a map: %v", err), err: ErrValue}
			}
			for k, v := range t {
				if c.Tags == nil {
					c.Tags = make(map[string]string, len(t))
				}
				c.Tags[k] = v
			}
		}
	}
	return nil
}
