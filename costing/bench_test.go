package costing

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/verdict-llm/verdict/internal/memwatch"
)

// genFOCUS is an io.Reader producing a FOCUS 1.2 CSV of n hourly rows for
// 5000 resources, generated on the fly so that a million-row file never
// sits in memory (the point of a streaming reader).
type genFOCUS struct {
	n, next int
	hdr     bool
	buf     []byte
	off     int
	hours   []string
}

const genHeader = "BilledCost,EffectiveCost,ListCost,BillingCurrency,InvoiceId,BillingPeriodStart,BillingPeriodEnd," +
	"ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeFrequency,ResourceId,ServiceName,SkuId," +
	"PricingQuantity,PricingUnit,ConsumedQuantity,ConsumedUnit,RegionId,ProviderName,Tags\r\n"

func newGenFOCUS(n int) *genFOCUS {
	g := &genFOCUS{n: n}
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for h := 0; h <= 720; h++ {
		g.hours = append(g.hours, t0.Add(time.Duration(h)*time.Hour).Format("2006-01-02T15:04:05Z"))
	}
	return g
}

func (g *genFOCUS) Read(p []byte) (int, error) {
	for g.off >= len(g.buf) {
		g.buf, g.off = g.buf[:0], 0
		if !g.hdr {
			g.hdr = true
			g.buf = append(g.buf, genHeader...)
			continue
		}
		if g.next >= g.n {
			return 0, io.EOF
		}
		for k := 0; k < 512 && g.next < g.n; k++ {
			g.buf = g.row(g.buf, g.next)
			g.next++
		}
	}
	n := copy(p, g.buf[g.off:])
	g.off += n
	return n, nil
}

func (g *genFOCUS) row(b []byte, i int) []byte {
	h := (i / 5000) % 720
	var digits [8]byte
	c := strconv.AppendInt(digits[:0], int64(1_000_000+i%999_983), 10)
	cost := func(b []byte) []byte {
		b = append(b, '1', '2', '.')
		return append(b, c[1:]...) // 12.xxxxxx
	}
	b = cost(b)
	b = append(b, ',')
	b = cost(b)
	b = append(b, ',')
	b = cost(b)
	b = append(b, ",USD,INV-1,2025-06-01T00:00:00Z,2025-07-01T00:00:00Z,"...)
	b = append(b, g.hours[h]...)
	b = append(b, ',')
	b = append(b, g.hours[h+1]...)
	b = append(b, ",Usage,NULL,Usage-Based,i-"...)
	b = strconv.AppendInt(b, int64(10_000_000+i%5000), 16)
	b = append(b, `,Amazon Elastic Compute Cloud,SKU-P5,1,Hours,1,Hours,us-east-1,AWS,"{""team"": ""perf""}"`...)
	return append(b, '\r', '\n')
}

// BenchmarkReadFOCUS1M streams a generated 1,000,000-row FOCUS file
// through the Reader. Run with -benchmem; ns/row is reported too.
func BenchmarkReadFOCUS1M(b *testing.B) {
	for _, reuse := range []bool{true, false} {
		name := "ReuseCharge"
		if !reuse {
			name = "NewCharge"
		}
		b.Run(name, func(b *testing.B) {
			const rows = 1_000_000
			var size int64
			for b.Loop() {
				g := newGenFOCUS(rows)
				cr := &countingReader{r: g}
				r, err := NewReader(cr, ReaderOptions{FileName: "gen.csv", ReuseCharge: reuse})
				if err != nil {
					b.Fatal(err)
				}
				var total Decimal
				for r.Scan() {
					c, ok := r.Record().(*Charge)
					if !ok {
						b.Fatalf("rejected: %v", r.Record())
					}
					total = total.Add(c.EffectiveCost)
				}
				if r.Err() != nil || r.Counts().Charges != rows {
					b.Fatalf("%v %+v", r.Err(), r.Counts())
				}
				size = cr.n
			}
			b.SetBytes(size)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}

// BenchmarkJoin1M streams the same million rows into a Joiner with 100
// runs of 45 minutes, each on one of the 5000 resources.
func BenchmarkJoin1M(b *testing.B) {
	const rows = 1_000_000
	var runs []RunWindow
	t0 := time.Date(2025, 6, 1, 10, 30, 0, 0, time.UTC)
	for k := range 100 {
		runs = append(runs, RunWindow{RunID: strconv.Itoa(k),
			ResourceIDs: []string{"i-" + strconv.FormatInt(int64(10_000_000+k*50), 16)},
			Start:       t0.Add(time.Duration(k) * time.Hour), End: t0.Add(time.Duration(k)*time.Hour + 45*time.Minute)})
	}
	for b.Loop() {
		r, err := NewReader(newGenFOCUS(rows), ReaderOptions{FileName: "gen.csv", ReuseCharge: true})
		if err != nil {
			b.Fatal(err)
		}
		j := NewJoiner(runs, JoinOptions{})
		for r.Scan() {
			j.Add(r.Record().(*Charge))
		}
		res := j.Result()
		if res.Matched == 0 || res.Runs[0].Total == nil {
			b.Fatalf("nothing joined: %+v", res.Runs[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// BenchmarkAddBill5M streams a generated 5,000,000-row FOCUS export into
// a Joiner (what `verdict cost` and `verdict report --billing` do) with
// one run whose resources match a share of the rows, and reports the peak
// heap: issue 15 measured 5.9 GB before the process died, when every
// charge was held; now only the charges that touch the run are.
func BenchmarkAddBill5M(b *testing.B) {
	const n = 5_000_000
	win := RunWindow{RunID: "r", ResourceIDs: []string{"i-1000007", "i-1000042"},
		Start: time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 6, 4, 0, 0, 0, 0, time.UTC)}
	var peak float64
	for b.Loop() {
		stop := memwatch.Start()
		j := NewJoiner([]RunWindow{win}, JoinOptions{})
		bill, err := j.AddBill(newGenFOCUS(n), ReaderOptions{FileName: "gen.csv"})
		res := j.Result()
		p := stop()
		peak = max(peak, p.HeapMiB)
		if err != nil {
			b.Fatal(err)
		}
		if bill.Counts.Rows != n || res.Charges != n {
			b.Fatalf("counts %+v, %d charges", bill.Counts, res.Charges)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(peak, "peak-heap-MiB")
}
