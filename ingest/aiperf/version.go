package aiperf

import (
	"fmt"
	"slices"
	"strings"
)

// Before 0.4 AIPerf did not write its version. What a file's layout says
// about the code that wrote it is an interval of releases (minor
// versions), narrowed by each piece of evidence, as for GenAI-Perf. The
// run's own date bounds it from above for releases whose dates are known.

var releases = []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.10", "0.11", "0.12"}

// releaseDates are the first days a release was published (tags v0.2.0,
// v0.3.0, v0.4.0).
var releaseDates = []struct{ release, day string }{
	{"0.2", "2025-10-21"},
	{"0.3", "2025-11-18"},
	{"0.4", "2026-01-12"},
}

type versions struct {
	lo, hi int
	exact  string // aiperf_version when the file says it
	// loWhy and hiWhy say what set the bounds, for a contradiction.
	loWhy, hiWhy string
}

func anyVersion() versions { return versions{lo: 0, hi: len(releases) - 1} }

func idx(v string) int {
	i := slices.Index(releases, v)
	if i < 0 {
		panic("aiperf: unknown release " + v)
	}
	return i
}

// since raises the lower bound; why names the evidence.
func (vs *versions) since(v string, why ...string) {
	if i := idx(v); i > vs.lo {
		vs.lo, vs.loWhy = i, strings.Join(why, " ")
	}
}

// until lowers the upper bound; why names the evidence.
func (vs *versions) until(v string, why ...string) {
	if i := idx(v); i < vs.hi {
		vs.hi, vs.hiWhy = i, strings.Join(why, " ")
	}
}

// dated bounds the interval by the day the run started (YYYY-MM-DD): a
// release published after that day cannot have written it. A dev build
// can run ahead of its release, so a bound that contradicts the layout is
// dropped.
func (vs *versions) dated(day string) {
	if len(day) < 10 {
		return
	}
	day = day[:10]
	for i := len(releaseDates) - 1; i >= 0; i-- {
		if day < releaseDates[i].day {
			if j := idx(releaseDates[i].release) - 1; j >= vs.lo && j < vs.hi {
				vs.hi = j
			}
		}
	}
}

func (vs versions) String() string {
	if vs.exact != "" {
		return vs.exact
	}
	last := len(releases) - 1
	x := func(i int) string { return releases[i] + ".x" }
	switch {
	case vs.lo > vs.hi:
		lo, hi := orLayout(vs.loWhy), orLayout(vs.hiWhy)
		return fmt.Sprintf("unknown (contradictory layout: %s says %s or later, %s says %s or earlier)", lo, x(vs.lo), hi, x(vs.hi))
	case vs.lo == vs.hi:
		return x(vs.lo)
	case vs.lo == 0 && vs.hi == last:
		return "unknown"
	case vs.hi == last:
		return x(vs.lo) + " or later"
	case vs.lo == 0:
		return x(vs.hi) + " or earlier"
	}
	return x(vs.lo) + "-" + x(vs.hi)
}

// exactVersion narrows the interval to a written aiperf_version.
func (vs *versions) exactVersion(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	vs.exact = v
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		if i := slices.Index(releases, parts[0]+"."+parts[1]); i >= 0 {
			vs.lo, vs.hi = i, i
		}
	}
}

func orLayout(why string) string {
	if why == "" {
		return "the layout"
	}
	return why
}
