// Package spill holds a large sample of float64 observations with bounded
// memory and answers exact order statistics over it.
//
// Below a limit the values stay in memory and are sorted for queries. Past
// the limit they are appended to a temporary file, and order statistics are
// found by radix selection: each pass over the file narrows the candidates
// by 16 bits of an order-preserving key, and the final candidates are
// sorted in memory. The answers are exact either way, so statistics
// recomputed from a tool's per-request data can be compared with the
// tool's own to the last digits whatever the input size.
package spill

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/verdict-llm/verdict/stats"
)

// DefaultMemLimit is the number of values kept in memory before spilling
// (8 MiB of float64s).
const DefaultMemLimit = 1 << 20

// Floats is a sample of float64 values. NaN values must not be added. The
// zero value keeps up to DefaultMemLimit values in memory. Close removes
// any temporary file.
type Floats struct {
	// MemLimit overrides DefaultMemLimit when positive.
	MemLimit int
	// Dir is where a spill file is created ("" means os.TempDir()).
	Dir string

	mem []float64
	// memMoments caches the in-memory mean and standard deviations,
	// computed in insertion order before the first sort (as numpy sums
	// the unsorted array), so that sorting for quantiles never changes
	// the last bits of the mean.
	memMoments *[3]float64 // mean, std ddof 0, std ddof 1
	file       *os.File
	w          *bufio.Writer
	n          int64
	sorted     bool

	// Running moments: Welford for the variance, Neumaier for the sum.
	mean, m2  float64
	sum, comp float64
	min, max  float64

	scratch [8]byte
}

// Add appends one value.
func (f *Floats) Add(x float64) error {
	f.moments(x)
	limit := f.limit()
	if f.file == nil && len(f.mem) < limit {
		f.mem = append(f.mem, x)
		return nil
	}
	if f.file == nil {
		if err := f.spill(); err != nil {
			return err
		}
	}
	binary.LittleEndian.PutUint64(f.scratch[:], math.Float64bits(x))
	_, err := f.w.Write(f.scratch[:])
	return err
}

// AddAll appends the values in order, as Add does one at a time (the same
// moments, the same storage), writing spilled values in one piece.
func (f *Floats) AddAll(xs []float64) error {
	for _, x := range xs {
		f.moments(x)
	}
	if f.file == nil {
		room := f.limit() - len(f.mem)
		if len(xs) <= room {
			f.mem = append(f.mem, xs...)
			return nil
		}
		f.mem = append(f.mem, xs[:room]...)
		xs = xs[room:]
		if err := f.spill(); err != nil {
			return err
		}
	}
	buf := f.w.AvailableBuffer()
	for _, x := range xs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	}
	_, err := f.w.Write(buf)
	return err
}

func (f *Floats) limit() int {
	if f.MemLimit > 0 {
		return f.MemLimit
	}
	return DefaultMemLimit
}

// moments updates the running moments and extremes with x.
func (f *Floats) moments(x float64) {
	if f.n == 0 {
		f.min, f.max = x, x
	} else {
		f.min = min(f.min, x)
		f.max = max(f.max, x)
	}
	f.n++
	d := x - f.mean
	f.mean += d / float64(f.n)
	f.m2 += d * (x - f.mean)
	t := f.sum + x
	if math.Abs(f.sum) >= math.Abs(x) {
		f.comp += (f.sum - t) + x
	} else {
		f.comp += (x - t) + f.sum
	}
	f.sum = t
	f.sorted = false
	f.memMoments = nil
}

func (f *Floats) spill() error {
	file, err := os.CreateTemp(f.Dir, "verdict-spill-*")
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	// Unlink at once where the OS allows it; the descriptor keeps the data.
	_ = os.Remove(file.Name())
	f.file = file
	f.w = bufio.NewWriterSize(file, 1<<20)
	var b [8]byte
	for _, x := range f.mem {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		if _, err := f.w.Write(b[:]); err != nil {
			return err
		}
	}
	f.mem = nil
	return nil
}

// Values returns the values when they are held in memory (ok is false
// once they spilled). The slice is the sample's own storage, in insertion
// order until Quantiles sorts it; callers may sort it but not otherwise
// change it, and take Mean and StdDev before they sort it.
func (f *Floats) Values() (xs []float64, ok bool) {
	if f.file != nil {
		return nil, false
	}
	return f.mem, true
}

// Len is the number of values.
func (f *Floats) Len() int64 { return f.n }

// Spilled reports whether the values are on disk.
func (f *Floats) Spilled() bool { return f.file != nil }

// Min and Max return the extremes (0 for an empty sample).
func (f *Floats) Min() float64 { return f.min }
func (f *Floats) Max() float64 { return f.max }

// Mean returns the arithmetic mean (NaN when empty). In memory it is
// summed in numpy's pairwise order; spilled, with compensated summation.
func (f *Floats) Mean() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	if f.file == nil {
		if f.memMoments != nil {
			return f.memMoments[0]
		}
		return stats.Mean(f.mem)
	}
	return (f.sum + f.comp) / float64(f.n)
}

// StdDev returns the standard deviation with ddof degrees of freedom
// removed (0: population, 1: sample); NaN when Len() <= ddof.
func (f *Floats) StdDev(ddof int) float64 {
	if f.n <= int64(ddof) {
		return math.NaN()
	}
	if f.file == nil {
		if f.memMoments != nil && ddof <= 1 {
			return f.memMoments[1+ddof]
		}
		return stats.StdDev(f.mem, ddof)
	}
	return math.Sqrt(f.m2 / float64(f.n-int64(ddof)))
}

// Quantiles returns the ps-quantiles (each in [0, 1]) read with method m.
// It panics on an empty sample (a programmer error).
func (f *Floats) Quantiles(ps []float64, m stats.Method) ([]float64, error) {
	return f.QuantilesScaled(ps, m, 1)
}

// ErrNeedsMemory is returned by Quantiles for a method that needs the
// whole sample in memory (stats.NearestRankCumulative merges ties) once
// the sample has spilled to disk.
var ErrNeedsMemory = errors.New("spill: the method needs the whole sample in memory")

// QuantilesScaled is Quantiles for values stored in a unit of msPerUnit
// milliseconds (see stats.QuantileScaled; only LocustBuckets depends on
// it).
func (f *Floats) QuantilesScaled(ps []float64, m stats.Method, msPerUnit float64) ([]float64, error) {
	if f.n == 0 {
		panic("spill: Quantiles of an empty sample")
	}
	if f.file == nil {
		if !f.sorted {
			f.memMoments = &[3]float64{stats.Mean(f.mem), stats.StdDev(f.mem, 0), stats.StdDev(f.mem, 1)}
			stats.SortFloats(f.mem)
			f.sorted = true
		}
		out := make([]float64, len(ps))
		for i, p := range ps {
			out[i] = stats.QuantileScaled(f.mem, p, m, msPerUnit)
		}
		return out, nil
	}
	// Select the order statistics each quantile reads exactly from the
	// file, then let stats evaluate the method on them.
	if f.n > math.MaxInt {
		return nil, errors.New("spill: sample too large")
	}
	n := int(f.n)
	need := map[int64]bool{}
	plans := make([][]int, len(ps))
	for i, p := range ps {
		rs, ok := stats.QuantileRanks(n, p, m)
		if !ok {
			return nil, fmt.Errorf("%w (%s, %d values)", ErrNeedsMemory, m, n)
		}
		plans[i] = rs
		for _, r := range rs {
			need[int64(r)] = true
		}
	}
	rs := make([]int64, 0, len(need))
	for r := range need {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	vals, err := f.selectRanks(rs)
	if err != nil {
		return nil, err
	}
	at := func(r int) float64 { i, _ := slices.BinarySearch(rs, int64(r)); return vals[i] }
	out := make([]float64, len(ps))
	for i, p := range ps {
		v := make([]float64, len(plans[i]))
		for j, r := range plans[i] {
			v[j] = at(r)
		}
		out[i] = stats.QuantileFromRanksScaled(n, p, m, msPerUnit, v)
	}
	return out, nil
}

// key maps a float64 to a uint64 whose unsigned order is the float order.
func key(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// selectRanks returns the values at the given sorted 0-based ranks, reading
// the spill file once per 16-bit radix digit (at most four passes) plus a
// final collection pass.
func (f *Floats) selectRanks(rs []int64) ([]float64, error) {
	if err := f.w.Flush(); err != nil {
		return nil, err
	}
	type target struct {
		rank   int64  // rank within the whole sample
		prefix uint64 // known high bits of the key
		before int64  // values with a key below the prefix range
	}
	ts := make([]target, len(rs))
	for i, r := range rs {
		ts[i] = target{rank: r}
	}
	// Narrow each target's prefix 16 bits at a time until the candidates
	// sharing it are few enough to collect.
	for shift := 48; shift >= 0; shift -= 16 {
		var idx prefixIndex
		for _, t := range ts {
			idx.add(t.prefix)
		}
		hists := make([][1 << 16]int64, len(idx.prefixes))
		mask := ^uint64(0) << (shift + 16) // the bits fixed so far (none at first)
		err := f.scan(func(keys []uint64) {
			if len(hists) == 1 {
				h, p := &hists[0], idx.prefixes[0]
				for _, k := range keys {
					if k&mask == p {
						h[(k>>shift)&0xffff]++
					}
				}
				return
			}
			for _, k := range keys {
				if j := idx.find(k & mask); j >= 0 {
					hists[j][(k>>shift)&0xffff]++
				}
			}
		})
		if err != nil {
			return nil, err
		}
		small := true
		for i := range ts {
			h := &hists[idx.find(ts[i].prefix)]
			within := ts[i].rank - ts[i].before
			var acc int64
			for d := 0; d < 1<<16; d++ {
				if acc+h[d] > within {
					ts[i].prefix |= uint64(d) << shift
					ts[i].before += acc
					if h[d] > 1<<16 {
						small = false
					}
					break
				}
				acc += h[d]
			}
		}
		if shift == 0 {
			// Every bit of each key is known: the key is the value.
			out := make([]float64, len(ts))
			for i, t := range ts {
				out[i] = math.Float64frombits(unkey(t.prefix))
			}
			return out, nil
		}
		if small {
			// Collect the candidates of each prefix and pick the ranks.
			var cidx prefixIndex
			for _, t := range ts {
				cidx.add(t.prefix)
			}
			cands := make([][]float64, len(cidx.prefixes))
			mask := ^uint64(0) << shift
			err := f.scan(func(keys []uint64) {
				for _, k := range keys {
					if j := cidx.find(k & mask); j >= 0 {
						cands[j] = append(cands[j], math.Float64frombits(unkey(k)))
					}
				}
			})
			if err != nil {
				return nil, err
			}
			out := make([]float64, len(ts))
			for i, t := range ts {
				c := cands[cidx.find(t.prefix)]
				stats.SortFloats(c)
				j := t.rank - t.before
				if j < 0 || j >= int64(len(c)) {
					return nil, errors.New("spill: selection lost track of a rank")
				}
				out[i] = c[j]
			}
			return out, nil
		}
	}
	return nil, errors.New("spill: unreachable")
}

func unkey(k uint64) uint64 {
	if k>>63 == 1 {
		return k &^ (1 << 63)
	}
	return ^k
}

// scan calls fn with the keys of the spilled values, a block at a time,
// reading the file in 1 MiB blocks (8 bytes at a time through a
// bufio.Reader was most of a selection's time, and a call per value the
// most of the rest).
func (f *Floats) scan(fn func(keys []uint64)) error {
	buf := make([]byte, 1<<20)
	keys := make([]uint64, len(buf)/8)
	total := f.n * 8
	for off := int64(0); off < total; {
		m := int(min(int64(len(buf)), total-off))
		if n, err := f.file.ReadAt(buf[:m], off); n < m {
			return fmt.Errorf("spill: reading back: %w", cmp.Or(err, io.ErrUnexpectedEOF))
		}
		ks := keys[:m/8]
		for i := range ks {
			ks[i] = key(math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:])))
		}
		fn(ks)
		off += int64(m)
	}
	return nil
}

// A prefixIndex finds the targets' distinct key prefixes: a handful, so a
// linear search beats a map's hashing for each of millions of keys, and
// a map takes over past prefixIndexLinear of them.
type prefixIndex struct {
	prefixes []uint64
	at       map[uint64]int
}

const prefixIndexLinear = 8

func (x *prefixIndex) add(p uint64) {
	if x.find(p) >= 0 {
		return
	}
	x.prefixes = append(x.prefixes, p)
	if len(x.prefixes) > prefixIndexLinear {
		if x.at == nil {
			x.at = make(map[uint64]int, len(x.prefixes))
			for i, q := range x.prefixes {
				x.at[q] = i
			}
		}
		x.at[p] = len(x.prefixes) - 1
	}
}

// find returns p's position, or -1.
func (x *prefixIndex) find(p uint64) int {
	if x.at != nil {
		if i, ok := x.at[p]; ok {
			return i
		}
		return -1
	}
	for i, q := range x.prefixes {
		if q == p {
			return i
		}
	}
	return -1
}

// Close releases the spill file, if any.
func (f *Floats) Close() error {
	f.mem = nil
	if f.file == nil {
		return nil
	}
	err := f.file.Close()
	f.file, f.w = nil, nil
	return err
}
