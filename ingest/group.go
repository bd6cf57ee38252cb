package ingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// One tool run is one verdict run, whatever files it was given as. Several
// tools write one run as several files: AIPerf its records, summary and
// GPU telemetry; LLMPerf a summary and the individual responses; Locust
// four CSVs; MLPerf LoadGen a summary and a detail log. Given as files (a
// shell glob, say), the files of one run are grouped by the tool's naming
// convention and directory, confirmed by their content, and read together
// as one source whose manifest entry lists every file (Source.Files) and
// whose runs list them too (Run.SourceFiles). A grouping the names and
// contents do not settle is an error naming the files.

// A GroupFormat is a Format whose tool writes one run as several files.
type GroupFormat interface {
	Format
	// Group sorts the inputs detected as this format into tool runs. Each
	// group it returns holds the indexes (into files) of one run's files,
	// the one the run's identity comes from first; inputs in no group are
	// read one by one with Read. It returns an *Error naming the files
	// when names and contents leave the grouping ambiguous, or when files
	// named as one run contradict each other.
	Group(files []*Candidate) ([][]int, error)
	// ReadGroup reads the files of one group, in Group's order, as one
	// source.
	ReadGroup(ctx context.Context, files []*Input, sink Sink) error
}

// A Candidate is an input offered to GroupFormat.Group.
type Candidate struct {
	Path   string
	SHA256 string
	Size   int64 // bytes on disk (compressed, for a compressed input)
	// Head is the input's first bytes (up to HeadSize), decompressed.
	Head []byte
	in   *Input
}

// Open returns the candidate's content, decompressed, from its start, for
// a look at more than the head. Bytes read this way do not count toward
// progress.
func (c *Candidate) Open() (io.ReadCloser, error) { return c.in.openAt(0) }

// Input returns the candidate as an Input, for reading it with the
// format's own reader (into Discard) before deciding on a group.
func (c *Candidate) Input() *Input {
	return &Input{Path: c.in.Path, Size: c.in.Size, sha: c.in.sha, digest: c.in.digest, open: c.Open, openAt: c.in.openAt}
}

// A unit is what the driver reads as one source: one path, or the files of
// one run.
type unit struct {
	files []*prepared
	gf    GroupFormat // set when len(files) > 1
}

func (u unit) read(ctx context.Context, w *schemas.BundleWriter, opts Options) (schemas.Source, error) {
	if len(u.files) == 1 {
		return readFile(ctx, u.files[0], w, opts)
	}
	return readGroup(ctx, u, w, opts)
}

func closeUnits(us []unit) {
	for _, u := range us {
		for _, p := range u.files {
			if p != nil && p.close != nil {
				p.close()
			}
		}
	}
}

// planInputs prepares every path and groups the files of one run into
// units, in the order of each unit's first path.
func planInputs(ctx context.Context, paths []string, forced Format, opts Options) ([]unit, error) {
	ps := make([]*prepared, 0, len(paths))
	var units []unit
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return units, err
		}
		p, err := prepare(path, forced, opts)
		if p != nil {
			// Keep it for closeUnits even when it failed.
			units = append(units, unit{files: []*prepared{p}})
		}
		if err != nil {
			return units, err
		}
		ps = append(ps, p)
	}
	groups, err := groupPrepared(ps)
	if err != nil {
		return units, err
	}
	units = units[:0]
	for _, g := range groups {
		u := unit{files: make([]*prepared, len(g))}
		for i, k := range g {
			u.files[i] = ps[k]
		}
		if len(g) > 1 {
			u.gf = ps[g[0]].f.(GroupFormat)
		}
		units = append(units, u)
	}
	return units, nil
}

// groupPrepared asks each GroupFormat to group its files and returns every
// input's index in a group, groups ordered by their first input.
func groupPrepared(ps []*prepared) ([][]int, error) {
	byFormat := map[string][]int{}
	var names []string
	for i, p := range ps {
		if p.dirFm != nil {
			continue
		}
		if _, ok := p.f.(GroupFormat); !ok {
			continue
		}
		n := p.f.Name()
		if byFormat[n] == nil {
			names = append(names, n)
		}
		byFormat[n] = append(byFormat[n], i)
	}
	owner := make([]int, len(ps)) // group number + 1 of each input
	var groups [][]int
	for _, n := range names {
		idx := byFormat[n]
		// A file given twice is not grouped with itself: the duplicate-run
		// check names it.
		var cands []*Candidate
		var candIdx []int
		seen := map[string]bool{}
		for _, i := range idx {
			if seen[ps[i].in.SHA256()] {
				continue
			}
			seen[ps[i].in.SHA256()] = true
			cands = append(cands, &Candidate{Path: ps[i].path, SHA256: ps[i].in.SHA256(), Size: ps[i].in.Size, Head: ps[i].head, in: ps[i].in})
			candIdx = append(candIdx, i)
		}
		if len(cands) < 2 {
			continue
		}
		gs, err := ps[idx[0]].f.(GroupFormat).Group(cands)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			if len(g) < 2 {
				continue
			}
			var out []int
			for _, k := range g {
				if k < 0 || k >= len(cands) || owner[candIdx[k]] != 0 {
					return nil, fmt.Errorf("ingest: format %s grouped input %d twice or out of range", n, k)
				}
				owner[candIdx[k]] = len(groups) + 1
				out = append(out, candIdx[k])
			}
			groups = append(groups, out)
		}
	}
	var out [][]int
	emitted := map[int]bool{}
	for i := range ps {
		switch g := owner[i]; {
		case g == 0:
			out = append(out, []int{i})
		case !emitted[g]:
			emitted[g] = true
			out = append(out, groups[g-1])
		}
	}
	return out, nil
}

// readGroup reads the files of one run as one source.
func readGroup(ctx context.Context, u unit, w *schemas.BundleWriter, opts Options) (schemas.Source, error) {
	first := u.files[0]
	for _, p := range u.files {
		if err := p.in.hashErr(); err != nil {
			return schemas.Source{}, &Error{File: p.path, Err: fmt.Errorf("hashing: %w", err)}
		}
	}
	sink := newSourceSink(ctx, first.path, w, opts)
	sink.src.SHA256, sink.src.Bytes, sink.src.Compression, sink.src.Format = first.in.SHA256(), first.in.Size, first.comp, u.gf.Name()
	ins := make([]*Input, len(u.files))
	for i, p := range u.files {
		ins[i] = p.in
		sink.files = append(sink.files, p.path)
		sink.src.Files = append(sink.src.Files, schemas.SourceFile{Path: sink.paths.store(p.path), SHA256: p.in.SHA256(), Bytes: p.in.Size, Compression: p.comp})
		defer track(p.in, p.path, opts)()
	}
	if err := u.gf.ReadGroup(ctx, ins, sink); err != nil {
		return schemas.Source{}, fileError(first.path, err)
	}
	return sink.finish()
}

// A FileKind classifies a candidate for GroupByStem: its kind (records,
// summary, ...) and the stem its name leaves once the kind's suffix is
// removed (see Stem). ok is false for a candidate that is never grouped.
type FileKind func(c *Candidate) (kind, stem string, ok bool)

// GroupByStem groups candidates by directory and stem: files of one run
// share both and are of different kinds. Two files of one kind with the
// same directory and stem are an error naming both. It returns the groups
// of two or more, in the order of their first candidate, each in the order
// of kinds given by rank (lower first; kinds not listed last).
func GroupByStem(cands []*Candidate, kindOf FileKind, rank []string) ([][]int, error) {
	type key struct{ dir, stem string }
	buckets := map[key][]int{}
	var order []key
	kinds := make([]string, len(cands))
	for i, c := range cands {
		kind, stem, ok := kindOf(c)
		if !ok {
			continue
		}
		kinds[i] = kind
		k := key{filepath.Dir(c.Path), stem}
		for _, j := range buckets[k] {
			if kinds[j] == kind {
				return nil, &Error{File: c.Path, Err: fmt.Errorf("%s and %s are both %s files named as one run (same directory, same name stem %q); give them in separate ingest calls, or rename one",
					cands[j].Path, c.Path, kind, stem)}
			}
		}
		if buckets[k] == nil {
			order = append(order, k)
		}
		buckets[k] = append(buckets[k], i)
	}
	pos := func(kind string) int {
		if i := slices.Index(rank, kind); i >= 0 {
			return i
		}
		return len(rank)
	}
	var out [][]int
	for _, k := range order {
		g := buckets[k]
		if len(g) < 2 {
			continue
		}
		slices.SortStableFunc(g, func(a, b int) int { return pos(kinds[a]) - pos(kinds[b]) })
		out = append(out, g)
	}
	return out, nil
}

// Stem returns a file's base name with suffix removed and then any
// trailing separator ('_', '-', '.') trimmed, and whether the name ends in
// suffix (compared without case). Tools name the files of one run PREFIX +
// suffix; users who rename them usually keep a common prefix.
func Stem(path, suffix string) (string, bool) {
	base := filepath.Base(path)
	for _, ext := range []string{".gz", ".zst"} {
		base = strings.TrimSuffix(base, ext)
	}
	if len(base) < len(suffix) || !strings.EqualFold(base[len(base)-len(suffix):], suffix) {
		return "", false
	}
	return strings.TrimRight(base[:len(base)-len(suffix)], "_-."), true
}

// GroupMismatch is the error of files named as one run whose contents say
// they are not: what differs, with both values.
func GroupMismatch(a, b, what, va, vb string) error {
	return &Error{File: a, Err: fmt.Errorf("%s and %s are named as one run, but their %s differs (%s against %s); give them in separate ingest calls, or rename one",
		a, b, what, va, vb)}
}

// Discard is a Sink that keeps nothing, for a GroupFormat's look at a
// candidate's content before it decides on a group.
var Discard Sink = discard{}

type discard struct{}

func (discard) Run(*schemas.Run) error         { return nil }
func (discard) Request(*schemas.Request) error { return nil }
func (discard) Metric(*schemas.Metric) error   { return nil }
func (discard) Sample(*schemas.Sample) error   { return nil }
func (discard) Reject(schemas.Rejection)       {}
func (discard) Warn(string)                    {}
func (discard) Describe(_, _, _ string)        {}
