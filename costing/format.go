package costing

import (
	"fmt"
	"slices"
	"strings"
)

// A Kind names a family of billing exports that share one reader.
type Kind string

const (
	// FOCUS is the FinOps Open Cost and Usage Specification, versions
	// pre-1.0 (1.0-preview column names), 1.0, 1.1 and 1.2, from any
	// provider's FOCUS export.
	FOCUS Kind = "focus"
	// AWSCUR is the AWS Cost and Usage Report: "legacy" (lineItem/…
	// headers, or their snake_case Athena spelling) and "2.0" (Data
	// Exports, snake_case with map columns).
	AWSCUR Kind = "aws-cur"
	// GCPExport is the Google Cloud Billing BigQuery export flattened to
	// CSV with dotted (or underscored) column names: "standard" or
	// "detailed" (with resource.name and resource.global_name).
	GCPExport Kind = "gcp-export"
	// AzureCostDetails is Azure Cost Management cost details: "ea"
	// (Enterprise Agreement, PascalCase, Cost) or "mca" (Microsoft
	// Customer Agreement, camelCase, costInBillingCurrency).
	AzureCostDetails Kind = "azure-cost-details"
)

// A Format is a Kind and a version of it.
type Format struct {
	Kind    Kind
	Version string
}

// String writes the format as ParseFormat reads it: "focus-1.2",
// "aws-cur-legacy", "gcp-export-detailed", "azure-cost-details-ea".
func (f Format) String() string {
	if f.Kind == "" {
		return "auto"
	}
	if f.Version == "" {
		return string(f.Kind)
	}
	return string(f.Kind) + "-" + f.Version
}

// versions lists each kind's versions, oldest first.
var versions = map[Kind][]string{
	FOCUS:            {"pre-1.0", "1.0", "1.1", "1.2"},
	AWSCUR:           {"legacy", "2.0"},
	GCPExport:        {"standard", "detailed"},
	AzureCostDetails: {"ea", "mca"},
}

// kinds is the order in which Formats lists and detection tries kinds.
var kinds = []Kind{FOCUS, AWSCUR, GCPExport, AzureCostDetails}

// Formats lists every format ParseFormat accepts, for help text and
// flag validation.
func Formats() []Format {
	var fs []Format
	for _, k := range kinds {
		for _, v := range versions[k] {
			fs = append(fs, Format{k, v})
		}
	}
	return fs
}

// ParseFormat reads a format override such as a --format flag gives:
// "" or "auto" (detect everything), a kind alone ("focus": detect the
// version) or kind-version ("focus-1.1", "aws-cur-2.0"). Case is ignored.
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return Format{}, nil
	}
	for _, k := range kinds {
		if s == string(k) {
			return Format{Kind: k}, nil
		}
		if v, ok := strings.CutPrefix(s, string(k)+"-"); ok && slices.Contains(versions[k], v) {
			return Format{k, v}, nil
		}
	}
	var names []string
	for _, f := range Formats() {
		names = append(names, f.String())
	}
	return Format{}, fmt.Errorf("costing: unknown billing format %q (want auto, a kind or one of %s)", s, strings.Join(names, ", "))
}

// normHeader folds a column name to the key the readers look it up by:
// lower case with everything but letters and digits removed, so
// "lineItem/UnblendedCost", "line_item_unblended_cost",
// "usage.amount_in_pricing_units" and "CostInBillingCurrency" meet their
// other spellings.
func normHeader(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			sb.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			sb.WriteRune(r + 'a' - 'A')
		}
	}
	return sb.String()
}

// A header indexes a file's columns by normalised name.
type header struct {
	names []string       // as written, BOM and spaces trimmed
	index map[string]int // normHeader(name) -> first column with it
	raw   map[string]bool
}

func newHeader(names []string) *header {
	h := &header{index: make(map[string]int, len(names)), raw: make(map[string]bool, len(names))}
	for i, n := range names {
		n = strings.TrimSpace(strings.TrimPrefix(n, "\ufeff"))
		h.names = append(h.names, n)
		h.raw[strings.ToLower(n)] = true
		k := normHeader(n)
		if _, dup := h.index[k]; !dup && k != "" {
			h.index[k] = i
		}
	}
	return h
}

// col returns the index of the first of names present, or -1.
func (h *header) col(names ...string) int {
	for _, n := range names {
		if i, ok := h.index[normHeader(n)]; ok {
			return i
		}
	}
	return -1
}

func (h *header) has(names ...string) bool { return h.col(names...) >= 0 }

// hasRaw reports whether a column is named exactly (case-insensitively)
// one of names, for markers whose normalised form is ambiguous.
func (h *header) hasRaw(names ...string) bool {
	for _, n := range names {
		if h.raw[n] {
			return true
		}
	}
	return false
}

// Column markers used by detection. They are column names as the
// specifications and real exports write them; normHeader folds spelling.
var (
	focus12Markers = []string{"BillingAccountType", "InvoiceId", "PricingCurrency",
		"PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
		"PricingCurrencyListUnitPrice", "SubAccountType"}
	focus11Markers = []string{"CapacityReservationId", "CapacityReservationStatus",
		"CommitmentDiscountQuantity", "CommitmentDiscountUnit", "ServiceSubcategory",
		"SkuMeter", "SkuPriceDetails"}
	focus10Markers = []string{"ChargeClass", "ConsumedQuantity", "ConsumedUnit", "RegionId",
		"ContractedCost", "ContractedUnitPrice", "CommitmentDiscountStatus"}
	focusPreMarkers = []string{"AmortizedCost", "ChargeType", "UsageQuantity", "UsageUnit", "Region"}
	// CUR 2.0 has a fixed schema with map columns and account names that
	// legacy CUR (even in its snake_case Athena spelling) lacks.
	cur2Markers = []string{"product", "resource_tags", "cost_category", "discount",
		"bill_payer_account_name", "line_item_usage_account_name"}
	azureEAMarkers  = []string{"AccountOwnerId", "AccountName", "EnrollmentNumber", "DepartmentName", "Cost", "PreTaxCost"}
	azureMCAMarkers = []string{"CostInBillingCurrency", "InvoiceSectionId", "InvoiceSectionName", "BillingProfileId"}
)

// DetectFormat names the format of a billing file from its header row.
// It looks at column names only, never at file names. FOCUS versions are
// told apart by the columns each version added (1.2: InvoiceId,
// PricingCurrency, …; 1.1: SkuPriceDetails, ServiceSubcategory, …;
// pre-1.0: AmortizedCost, ChargeType, UsageQuantity), so a file that
// leaves out every optional column of its version is reported as the
// oldest version it is consistent with.
func DetectFormat(names []string) (Format, error) {
	return detect(newHeader(names), Format{})
}

// detect fills in what the override leaves open.
func detect(h *header, over Format) (Format, error) {
	kind := over.Kind
	if kind == "" {
		switch {
		case h.has("BilledCost") && h.has("ChargePeriodStart"):
			kind = FOCUS
		case h.has("lineItem/UnblendedCost", "lineItem/UsageStartDate"):
			kind = AWSCUR
		case h.has("billing_account_id") && h.has("usage_start_time") && h.has("cost"):
			kind = GCPExport
		case h.has("Date", "UsageDate", "UsageDateTime") &&
			h.has("MeterCategory", "MeterId", "CostInBillingCurrency", "Cost", "PreTaxCost"):
			kind = AzureCostDetails
		default:
			return Format{}, fmt.Errorf("costing: unrecognised billing header (not FOCUS, AWS CUR, GCP export or Azure cost details); columns: %s",
				strings.Join(first(h.names, 8), ", "))
		}
	}
	if over.Version != "" {
		if !slices.Contains(versions[kind], over.Version) {
			return Format{}, fmt.Errorf("costing: %s has no version %q", kind, over.Version)
		}
		return Format{kind, over.Version}, nil
	}
	f := Format{Kind: kind}
	switch kind {
	case FOCUS:
		switch {
		case h.has(focus12Markers...):
			f.Version = "1.2"
		case h.has(focus11Markers...):
			f.Version = "1.1"
		case h.has(focus10Markers...):
			f.Version = "1.0"
		case h.has(focusPreMarkers...):
			f.Version = "pre-1.0"
		default:
			f.Version = "1.0"
		}
	case AWSCUR:
		f.Version = "legacy"
		if !slices.ContainsFunc(h.names, func(n string) bool { return strings.Contains(n, "/") }) &&
			h.hasRaw(cur2Markers...) {
			f.Version = "2.0"
		}
	case GCPExport:
		f.Version = "standard"
		if h.has("resource.global_name", "resource.name") {
			f.Version = "detailed"
		}
	case AzureCostDetails:
		f.Version = "mca"
		if h.has(azureEAMarkers...) || !h.has(azureMCAMarkers...) {
			f.Version = "ea"
		}
	}
	return f, nil
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}
