package genaiperf

import "slices"

// GenAI-Perf never writes its version. What a file's layout says about the
// code that wrote it is an interval of releases, narrowed by each piece of
// evidence (docs/formats/genai-perf.md section 5.2): a key or a
// unit that appeared in a release bounds it from below, one that was
// removed bounds it from above. Semantics that changed between releases
// (ITL's definition, the 0.0.8-0.0.9 output-length bug) are decided only
// when the whole interval lies on one side.

var releases = []string{"0.0.1", "0.0.2", "0.0.3", "0.0.4", "0.0.5", "0.0.6", "0.0.7", "0.0.8",
	"0.0.9", "0.0.10", "0.0.11", "0.0.12", "0.0.13", "0.0.14", "0.0.15", "0.0.16"}

// versions is an interval [lo, hi] of indexes into releases.
type versions struct{ lo, hi int }

func anyVersion() versions { return versions{0, len(releases) - 1} }

func idx(v string) int {
	i := slices.Index(releases, v)
	if i < 0 {
		panic("genaiperf: unknown release " + v)
	}
	return i
}

// since records evidence that the code is release v or later.
func (vs *versions) since(v string) {
	if i := idx(v); i > vs.lo {
		vs.lo = i
	}
}

// until records evidence that the code is release v or earlier.
func (vs *versions) until(v string) {
	if i := idx(v); i < vs.hi {
		vs.hi = i
	}
}

// within reports whether the whole interval lies in [lo, hi].
func (vs versions) within(lo, hi string) bool { return vs.lo >= idx(lo) && vs.hi <= idx(hi) }

// overlaps reports whether the interval meets [lo, hi].
func (vs versions) overlaps(lo, hi string) bool { return vs.lo <= idx(hi) && vs.hi >= idx(lo) }

// contradictory reports evidence that cannot all hold (a fork, an edited
// file).
func (vs versions) contradictory() bool { return vs.lo > vs.hi }

func (vs versions) String() string {
	last := len(releases) - 1
	switch {
	case vs.contradictory():
		return "unknown (contradictory layout)"
	case vs.lo == vs.hi:
		return releases[vs.lo]
	case vs.lo == 0 && vs.hi == last:
		return "unknown"
	case vs.hi == last:
		return releases[vs.lo] + " or later"
	case vs.lo == 0:
		return releases[vs.hi] + " or earlier"
	}
	return releases[vs.lo] + "-" + releases[vs.hi]
}
