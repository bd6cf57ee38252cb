package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// A DCGMScrape is what one dcgm-exporter scrape says about the devices.
type DCGMScrape struct {
	// Samples holds one sample per device (per GPU UUID, and per MIG
	// instance where the exporter labels series with GPU_I_ID), in order
	// of first appearance, for devices with at least one mapped reading.
	Samples []schemas.Sample
	// Driver is the DCGM_FI_DRIVER_VERSION label, when present.
	Driver string
	// Warnings are lines that were skipped, with their line numbers.
	Warnings []error
}

// dcgmField maps an exporter series to a sample reading. The exporter's
// legacy names are listed with the newer aliases of the same field IDs.
var dcgmFields = map[string]string{
	"DCGM_FI_DEV_GPU_UTIL":                 "util",     // % (field 203)
	"DCGM_FI_DEV_FB_USED":                  "fb_used",  // MiB (252)
	"DCGM_FI_DEV_FB_FREE":                  "fb_free",  // MiB (251)
	"DCGM_FI_DEV_FB_RESERVED":              "fb_resv",  // MiB (253)
	"DCGM_FI_DEV_FB_TOTAL":                 "fb_total", // MiB (250)
	"DCGM_FI_DEV_POWER_USAGE":              "power",    // W (155)
	"DCGM_FI_DEV_BOARD_POWER_WATTS":        "power",    // W (155, newer name)
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "energy_mj",
	"DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL":  "energy_j", // J (1611)
	"DCGM_FI_DEV_SM_CLOCK":                 "sm_clock", // MHz (100)
	"DCGM_FI_DEV_GPU_TEMP":                 "temp",     // °C (150)
}

// DCGM's "blank" sentinels: integer fields at or above int64Blank and
// float fields in [fp64Blank, fp64Blank+3] mean no value.
const (
	int64Blank = float64(0x7ffffffffffffff0)
	fp64Blank  = 140737488355328.0
)

const mib = 1 << 20

// ParseDCGM reads a dcgm-exporter scrape in the Prometheus text format.
// Samples are stamped at, or at the line's own timestamp when it has one.
// Units are converted to the samples table's: MiB to bytes, the mJ energy
// counter to J. Memory used is FB_USED + FB_RESERVED when both are given
// (total - free, as NVML's v1 memory info counts it) and FB_USED otherwise;
// memory total is FB_TOTAL, or FB_FREE + FB_USED + FB_RESERVED when all
// three are given, and unknown otherwise. Malformed lines are skipped with
// a warning; only read errors are returned.
func ParseDCGM(r io.Reader, at time.Time) (*DCGMScrape, error) {
	type dev struct {
		s      schemas.Sample
		vals   map[string]float64
		mapped bool
	}
	var order []string
	devs := map[string]*dev{}
	out := &DCGMScrape{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		name, labels, value, ts, err := parsePromLine(text)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Errorf("line %d: %w", line, err))
			continue
		}
		field, ok := dcgmFields[name]
		if drv := labels.get("DCGM_FI_DRIVER_VERSION"); drv != "" && out.Driver == "" {
			out.Driver = drv
		}
		if !ok {
			continue
		}
		uuid := labels.get("UUID")
		gpu := labels.get("gpu")
		if uuid == "" && gpu == "" {
			out.Warnings = append(out.Warnings, fmt.Errorf("line %d: %s has neither a UUID nor a gpu label", line, name))
			continue
		}
		device := gpu
		if gi := labels.get("GPU_I_ID"); gi != "" {
			device = fmt.Sprintf("%s MIG %s id %s", gpu, labels.get("GPU_I_PROFILE"), gi)
		}
		key := uuid + "\x00" + device
		d := devs[key]
		if d == nil {
			d = &dev{vals: map[string]float64{}, s: schemas.Sample{Source: "dcgm", Host: labels.get("Hostname"),
				Device: device, DeviceUUID: uuid, DeviceName: labels.get("modelName"), Time: at}}
			devs[key] = d
			order = append(order, key)
		}
		if ts != nil {
			if t := time.UnixMilli(*ts).UTC(); schemas.Representable(t) {
				d.s.Time = t
			}
		}
		if value >= int64Blank || (value >= fp64Blank && value <= fp64Blank+3) || math.IsNaN(value) || math.IsInf(value, 0) || value < 0 {
			continue // blank, not supported, or nonsense: unknown
		}
		d.vals[field] = value
		d.mapped = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range order {
		d := devs[k]
		if !d.mapped {
			continue
		}
		v := d.vals
		get := func(k string) (float64, bool) { x, ok := v[k]; return x, ok }
		if x, ok := get("util"); ok {
			d.s.UtilPct = schemas.Some(x)
		}
		used, okU := get("fb_used")
		resv, okR := get("fb_resv")
		free, okF := get("fb_free")
		switch {
		case okU && okR:
			d.s.MemUsedBytes = schemas.Some(int64((used + resv) * mib))
		case okU:
			d.s.MemUsedBytes = schemas.Some(int64(used * mib))
		}
		if x, ok := get("fb_total"); ok {
			d.s.MemTotalBytes = schemas.Some(int64(x * mib))
		} else if okU && okR && okF {
			d.s.MemTotalBytes = schemas.Some(int64((used + resv + free) * mib))
		}
		if x, ok := get("power"); ok {
			d.s.PowerW = schemas.Some(x)
		}
		if x, ok := get("energy_j"); ok {
			d.s.EnergyJ = schemas.Some(x)
		} else if x, ok := get("energy_mj"); ok {
			d.s.EnergyJ = schemas.Some(x / 1000)
		}
		if x, ok := get("sm_clock"); ok {
			d.s.SMClockMHz = schemas.Some(x)
		}
		if x, ok := get("temp"); ok {
			d.s.TempC = schemas.Some(x)
		}
		out.Samples = append(out.Samples, d.s)
	}
	return out, nil
}

// promLabels are a series' labels; lookups ignore case, because exporter
// versions renamed Hostname to hostname and UUID to uuid.
type promLabels []string // name, value, name, value, ...

func (l promLabels) get(name string) string {
	for i := 0; i+1 < len(l); i += 2 {
		if strings.EqualFold(l[i], name) {
			return l[i+1]
		}
	}
	return ""
}

// parsePromLine parses one sample line: name{labels} value [timestamp].
func parsePromLine(s string) (name string, labels promLabels, value float64, ts *int64, err error) {
	i := 0
	for i < len(s) && isNameByte(s[i], i == 0) {
		i++
	}
	if i == 0 {
		return "", nil, 0, nil, errors.New("no metric name")
	}
	name = s[:i]
	if i < len(s) && s[i] == '{' {
		i++
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == ',') {
				i++
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			j := i
			for j < len(s) && isNameByte(s[j], j == i) {
				j++
			}
			if j == i || j >= len(s) || s[j] != '=' {
				return "", nil, 0, nil, fmt.Errorf("%s: malformed label", name)
			}
			lname := s[i:j]
			j++
			if j >= len(s) || s[j] != '"' {
				return "", nil, 0, nil, fmt.Errorf("%s: label %s: value not quoted", name, lname)
			}
			j++
			var b strings.Builder
			closed := false
			for j < len(s) {
				c := s[j]
				if c == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case 'n':
						b.WriteByte('\n')
					default:
						b.WriteByte(s[j+1])
					}
					j += 2
					continue
				}
				if c == '"' {
					closed = true
					j++
					break
				}
				b.WriteByte(c)
				j++
			}
			if !closed {
				return "", nil, 0, nil, fmt.Errorf("%s: label %s: unterminated value", name, lname)
			}
			labels = append(labels, lname, b.String())
			i = j
		}
	}
	rest := strings.Fields(s[i:])
	if len(rest) == 0 || len(rest) > 2 {
		return "", nil, 0, nil, fmt.Errorf("%s: want a value and an optional timestamp", name)
	}
	value, err = strconv.ParseFloat(rest[0], 64)
	if err != nil {
		return "", nil, 0, nil, fmt.Errorf("%s: bad value %q", name, rest[0])
	}
	if len(rest) == 2 {
		t, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil {
			return "", nil, 0, nil, fmt.Errorf("%s: bad timestamp %q", name, rest[1])
		}
		ts = &t
	}
	return name, labels, value, ts, nil
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// DCGMSampler scrapes a dcgm-exporter endpoint (e.g.
// http://gpu-host:9400/metrics) on every Sample call: telemetry of a GPU
// host the load generator does not run on.
type DCGMSampler struct {
	URL    string
	Client *http.Client // nil: a client with a 10 s timeout
	devs   Devices
	seen   bool
}

// NewDCGMSampler scrapes url once to learn the devices.
func NewDCGMSampler(ctx context.Context, url string, client *http.Client) (*DCGMSampler, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	d := &DCGMSampler{URL: url, Client: client}
	ss, err := d.Sample(ctx)
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("dcgm: %s: no GPU series in the scrape", RedactURL(url))
	}
	return d, nil
}

// Source implements Sampler.
func (d *DCGMSampler) Source() string { return "dcgm" }

// Devices implements Sampler.
func (d *DCGMSampler) Devices() Devices { return d.devs }

// Close implements Sampler.
func (d *DCGMSampler) Close() error { return nil }

// Sample implements Sampler.
func (d *DCGMSampler) Sample(ctx context.Context) ([]schemas.Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("dcgm: %w", err)
	}
	at := time.Now()
	resp, err := d.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("dcgm: scraping %s: %w", RedactURL(d.URL), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dcgm: scraping %s: HTTP %d", RedactURL(d.URL), resp.StatusCode)
	}
	sc, err := ParseDCGM(io.LimitReader(resp.Body, 64<<20), at.UTC())
	if err != nil {
		return nil, fmt.Errorf("dcgm: %w", err)
	}
	if !d.seen {
		d.seen = true
		var names []string
		var uuids []string
		for _, s := range sc.Samples {
			if !slices.Contains(uuids, s.DeviceUUID) {
				uuids = append(uuids, s.DeviceUUID)
				names = append(names, s.DeviceName)
			}
		}
		d.devs = Devices{GPUModel: modelOf(names), GPUCount: len(uuids), Driver: sc.Driver}
	}
	return sc.Samples, nil
}

// unwrapURLError drops the "Get URL:" prefix of a client error, which may
// carry a query string.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
