package costing

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// azureMapper reads Azure Cost Management cost details, EA (PascalCase)
// and MCA (camelCase) alike; header lookup ignores case.
//
// Mapping (docs/formats/billing.md §4, §5; Microsoft's FOCUS
// conversion):
//
//	ChargePeriod     Date (a whole UTC day; any time of day is dropped) → [Date, Date+24h)
//	BillingPeriod    BillingPeriodStartDate, BillingPeriodEndDate + 1 day (it is inclusive)
//	cost             CostInBillingCurrency, else Cost (EA), else PreTaxCost;
//	                 Billed/Effective as ReaderOptions.AzureCost says
//	ListCost         PaygCostInBillingCurrency, else PayGPrice × Quantity
//	ChargeCategory   ChargeType: Usage, Purchase, Credit, Tax as they are;
//	                 UnusedReservation, UnusedSavingsPlan → Usage;
//	                 Refund → Purchase with ChargeClass Correction; others → Adjustment
//	ChargeFrequency  Frequency: OneTime → One-Time, Recurring, UsageBased → Usage-Based
//	ResourceId       ResourceId, else InstanceName (older MCA files)
//	Quantity         Quantity in UnitOfMeasure, kept as written ("10K",
//	                 "1 Hour", "1 GB/Month"): the unit includes a block size
//	                 that is not divided out, so quantity × unit is exact
//	Tags             JSON object; EA writes it without braces, which are added
type azureMapper struct {
	date, bps, bpe, cost, currency, paygCost, paygPrice, qty, uom int
	chargeType, freq, pricingModel, rid, rname, rtype, meterCat   int
	productID, location, locName, sub, account, tags              int
	benefit                                                       int
	costKind                                                      AzureCost
}

func newAzureMapper(h *header, kind AzureCost, warn *[]error) (mapper, error) {
	if err := missingColumns(h, []string{"Date", "UsageDate", "UsageDateTime"},
		[]string{"CostInBillingCurrency", "Cost", "PreTaxCost"},
		[]string{"BillingCurrency", "BillingCurrencyCode", "Currency"}); err != nil {
		return nil, err
	}
	m := &azureMapper{
		date:         h.col("Date", "UsageDate", "UsageDateTime"),
		bps:          h.col("BillingPeriodStartDate"),
		bpe:          h.col("BillingPeriodEndDate"),
		cost:         h.col("CostInBillingCurrency", "Cost", "PreTaxCost"),
		currency:     h.col("BillingCurrency", "BillingCurrencyCode", "Currency"),
		paygCost:     h.col("PaygCostInBillingCurrency"),
		paygPrice:    h.col("PayGPrice"),
		qty:          h.col("Quantity", "UsageQuantity"),
		uom:          h.col("UnitOfMeasure"),
		chargeType:   h.col("ChargeType"),
		freq:         h.col("Frequency"),
		pricingModel: h.col("PricingModel"),
		rid:          h.col("ResourceId", "InstanceName"),
		rname:        h.col("ResourceName"),
		rtype:        h.col("ResourceType"),
		meterCat:     h.col("MeterCategory"),
		productID:    h.col("ProductId"),
		location:     h.col("ResourceLocation"),
		locName:      h.col("Location"),
		sub:          h.col("SubscriptionId", "SubscriptionGuid"),
		account:      h.col("BillingAccountId"),
		tags:         h.col("Tags"),
		benefit:      h.col("BenefitId", "ReservationId"),
		costKind:     kind,
	}
	switch kind {
	case AzureActual:
		*warn = append(*warn, errors.New("costing: Azure actual-cost export: EffectiveCost of reservation and savings-plan usage is 0 here (its amortised cost is in the amortised export)"))
	case AzureAmortized:
	default:
		*warn = append(*warn, errors.New("costing: Azure export kind unknown (actual or amortised): cost copied to both BilledCost and EffectiveCost; set ReaderOptions.AzureCost"))
	}
	return m, nil
}

func (m *azureMapper) row(rec []string, c *Charge) *fieldError {
	var fe *fieldError
	c.Provider = "Microsoft"
	day, fe := reqTime(rec, m.date)
	if fe != nil {
		return fe
	}
	day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	c.ChargePeriodStart, c.ChargePeriodEnd = day, day.AddDate(0, 0, 1)
	if c.BillingPeriodStart, fe = optTime(rec, m.bps); fe != nil {
		return fe
	}
	end, fe := optTime(rec, m.bpe)
	if fe != nil {
		return fe
	}
	if !end.IsZero() {
		c.BillingPeriodEnd = end.AddDate(0, 0, 1)
	}
	cost, fe := reqDecimal(rec, m.cost)
	if fe != nil {
		return fe
	}
	if c.BillingCurrency = text(rec, m.currency); c.BillingCurrency == "" {
		return &fieldError{col: m.currency, msg: "null value in a required column", err: ErrMissing}
	}
	if c.PricingQuantity, fe = optDecimal(rec, m.qty); fe != nil {
		return fe
	}
	c.PricingUnit = text(rec, m.uom)
	if c.ListCost, fe = optDecimal(rec, m.paygCost); fe != nil {
		return fe
	}
	if !c.ListCost.Valid && m.paygPrice >= 0 && c.PricingQuantity.Valid {
		p, fe := optDecimal(rec, m.paygPrice)
		if fe != nil {
			return fe
		}
		if p.Valid {
			c.ListCost = NullDecimal{Decimal: p.Decimal.Mul(c.PricingQuantity.Decimal), Valid: true}
		}
	}

	c.NativeChargeType = text(rec, m.chargeType)
	switch ct := canon(c.NativeChargeType, "Usage", "Purchase", "Credit", "Tax", "Refund",
		"UnusedReservation", "UnusedSavingsPlan"); ct {
	case "Usage", "Purchase", "Credit", "Tax":
		c.ChargeCategory = ct
	case "UnusedReservation", "UnusedSavingsPlan":
		c.ChargeCategory = "Usage"
		c.CommitmentDiscountStatus = "Unused"
	case "Refund":
		c.ChargeCategory, c.ChargeClass = "Purchase", "Correction"
	case "":
		c.ChargeCategory = "Usage"
	default:
		c.ChargeCategory = "Adjustment"
	}
	switch f := text(rec, m.freq); canon(f, "OneTime", "Recurring", "UsageBased") {
	case "OneTime":
		c.ChargeFrequency = "One-Time"
	case "Recurring":
		c.ChargeFrequency = "Recurring"
	case "UsageBased":
		c.ChargeFrequency = "Usage-Based"
	default:
		c.ChargeFrequency = canon(f, chargeFrequencies...)
	}
	model := canon(text(rec, m.pricingModel), "Reservation", "SavingsPlan")
	committed := model == "Reservation" || model == "SavingsPlan"
	c.CommitmentDiscountID = text(rec, m.benefit)
	if committed && c.ChargeCategory == "Usage" && c.CommitmentDiscountStatus == "" {
		c.CommitmentDiscountStatus = "Used"
	}
	c.BilledCost, c.EffectiveCost = cost, cost
	switch m.costKind {
	case AzureAmortized:
		if committed && c.NativeChargeType == "Usage" {
			c.BilledCost = Decimal{}
		}
	case AzureActual:
		if committed && (c.ChargeCategory == "Purchase") {
			c.EffectiveCost = Decimal{}
		}
	}
	if c.ChargeCategory == "Usage" {
		c.ConsumedQuantity, c.ConsumedUnit = c.PricingQuantity, c.PricingUnit
	}

	c.ResourceID = text(rec, m.rid)
	c.ResourceName = text(rec, m.rname)
	if c.ResourceName == "" && strings.HasPrefix(strings.ToLower(c.ResourceID), "/subscriptions/") {
		c.ResourceName = c.ResourceID[strings.LastIndexByte(c.ResourceID, '/')+1:]
	}
	c.ResourceType = text(rec, m.rtype)
	c.ServiceName = text(rec, m.meterCat)
	c.SkuID = text(rec, m.productID)
	c.RegionID = strings.ToLower(text(rec, m.location))
	c.RegionName = text(rec, m.locName)
	c.SubAccountID = text(rec, m.sub)
	c.BillingAccountID = text(rec, m.account)
	if s := text(rec, m.tags); s != "" {
		tags, err := parseTagObject(s)
		if err != nil {
			return &fieldError{col: m.tags, msg: fmt.Sprintf("not a tag object: %v", err), err: ErrValue}
		}
		c.Tags = tags
	}
	return nil
}
