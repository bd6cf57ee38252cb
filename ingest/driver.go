package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/verdict-llm/verdict/schemas"
)

// Options configure ToBundle. Formats must be set; the rest may be zero.
type Options struct {
	// Formats are the formats detection chooses among (see ingest/all).
	Formats []Format
	// Format forces a format by name; "" or "auto" detects per file.
	Format string
	// SUT is the system-under-test inventory applied to every run.
	SUT schemas.Inventory
	// Labels are added to every run; they win over labels from the file.
	Labels map[string]string
	// Strict makes any rejected row an error.
	Strict bool
	// Progress, when set, is told about the bytes read per file.
	Progress Progress
	// ListRejections caps the rejections listed per source in the
	// manifest (all are counted); 0 means 100.
	ListRejections int
	// MaxDecompressed limits the decompressed size of one .gz or .zst
	// input; 0 means DefaultMaxDecompressed. Exceeding it is an error
	// (a decompression bomb is never written out in full).
	MaxDecompressed int64
	// Bundle configures the bundle writer.
	Bundle schemas.BundleOptions
	// KeepPaths stores input paths as given; by default a bundle stores
	// them relative to the working directory, or as file names (see
	// pathStorer).
	KeepPaths bool
}

// Progress receives progress reports. File is called once per input with
// its size and returns a function that is called with byte counts as the
// input is read, and once with -1 when the file is done.
type Progress interface {
	File(name string, size int64) func(n int64)
}

// A PassProgress is a Progress that is also told about a second pass over
// an input, after its bytes have been read once (the per-request arrays of
// a vLLM result file are read in lockstep once the file has been scanned;
// see ingest/vllm). Pass is called with the input's name, what the pass
// reads and how many items it will read; the function it returns is
// called with item counts as they are read, and once with -1 when the
// pass ends.
type PassProgress interface {
	Progress
	Pass(name, what string, total int64) func(n int64)
}

// track makes in report its bytes read, and its second passes, to opts'
// Progress; the returned function ends the file's progress.
func track(in *Input, path string, opts Options) func() {
	if opts.Progress == nil {
		return func() {}
	}
	add := opts.Progress.File(path, in.Size)
	in.track = add
	if pp, ok := opts.Progress.(PassProgress); ok {
		in.pass = func(what string, total int64) func(int64) { return pp.Pass(path, what, total) }
	}
	return func() { add(-1) }
}

// A DirFormat reads inputs given as a directory (for example a tool's
// artifacts directory).
type DirFormat interface {
	Format
	// DetectDir returns a confidence in [0, 100] that dir holds this
	// format's output.
	DetectDir(dir string) int
	// ReadDir reads the directory and reports to sink.
	ReadDir(ctx context.Context, dir string, sink Sink) error
}

// Summary is what ToBundle did.
type Summary struct {
	Dest     string
	Manifest schemas.Manifest
	// Recovered says what was put right that an earlier, interrupted
	// write of Dest had left (see schemas.BundleWriter.Recovered).
	Recovered []string
}

// Totals sums the manifest's counts for a table over all sources.
func (s Summary) Totals(table string) schemas.Counts {
	var c schemas.Counts
	for _, src := range s.Manifest.Sources {
		t := src.Counts[table]
		c.Read += t.Read
		c.Ingested += t.Ingested
		c.Rejected += t.Rejected
	}
	return c
}

// Find returns the format with the given name.
func Find(formats []Format, name string) (Format, bool) {
	for _, f := range formats {
		if f.Name() == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the formats' names.
func Names(formats []Format) []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name()
	}
	return out
}

// ToBundle reads every path and writes one bundle at dest. Nothing is
// written unless every input reads; see the package documentation for what
// is an error and what is a rejection. Files that one tool run wrote
// together (see GroupFormat) are read as one source and one run.
func ToBundle(ctx context.Context, paths []string, dest string, opts Options) (Summary, error) {
	if len(paths) == 0 {
		return Summary{}, errors.New("no input files")
	}
	var forced Format
	if opts.Format != "" && opts.Format != "auto" {
		f, ok := Find(opts.Formats, opts.Format)
		if !ok {
			return Summary{}, fmt.Errorf("unknown format %q (known: %s)", opts.Format, strings.Join(Names(opts.Formats), ", "))
		}
		forced = f
	}
	units, err := planInputs(ctx, paths, forced, opts)
	defer closeUnits(units)
	if err != nil {
		return Summary{}, err
	}
	w, err := schemas.CreateBundle(dest, opts.Bundle)
	if err != nil {
		return Summary{}, err
	}
	defer w.Abort()
	var m schemas.Manifest
	seenRuns := map[string]string{}
	for _, u := range units {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		src, err := u.read(ctx, w, opts)
		if err != nil {
			return Summary{}, err
		}
		for _, id := range src.Runs {
			if other, dup := seenRuns[id]; dup {
				return Summary{}, fmt.Errorf("%s: run %s was already read from %s (the same file given twice?)", src.Path, id, other)
			}
			seenRuns[id] = src.Path
		}
		m.Sources = append(m.Sources, src)
	}
	if err := w.Commit(m); err != nil {
		return Summary{}, err
	}
	b, err := schemas.OpenBundle(dest)
	if err != nil {
		return Summary{}, err
	}
	return Summary{Dest: dest, Manifest: b.Manifest, Recovered: w.Recovered}, nil
}

// A prepared input is a path that has been looked at: a directory and the
// format that reads it, or a file with its hash, its decompressed head and
// the format detected (or forced) for it.
type prepared struct {
	path  string
	dirFm DirFormat // set for a directory
	f     Format
	in    *Input
	head  []byte
	comp  string // compression, "" for none
	close func()
}

// prepare stats, hashes and detects one path.
func prepare(path string, forced Format, opts Options) (*prepared, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Err: unwrapPathError(err)}
	}
	if fi.IsDir() {
		df, err := pickDir(path, forced, opts.Formats)
		if err != nil {
			return nil, err
		}
		return &prepared{path: path, dirFm: df, f: df, close: func() {}}, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Err: errors.New("not a regular file")}
	}
	if fi.Size() == 0 {
		return nil, &Error{File: path, Err: errors.New("empty file")}
	}
	head, err := readHead(path)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	limit := opts.MaxDecompressed
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	// The file is hashed alongside its reading (readFile): run IDs wait
	// for it (Input.SHA256), the rest of the work does not.
	p := &prepared{path: path, in: &Input{Path: path, Size: fi.Size(), digest: hashFile(path)}, close: func() {}}
	if c := sniff(head); c != plain {
		p.comp = c.String()
		// Compressed: stream it decompressed, and materialise it once in a
		// temporary file only if the format asks for random access.
		sp := &spilled{}
		p.close = sp.close
		p.in.open = func() (io.ReadCloser, error) { return decompressor(path, c, limit) }
		p.in.openAt = func(off int64) (io.ReadCloser, error) {
			f, size, err := sp.open(path, c, limit)
			if err != nil {
				return nil, err
			}
			return nopCloser{io.NewSectionReader(f, off, size-off)}, nil
		}
		if head, err = decompressedHead(p.in, path, c); err != nil {
			return p, err
		}
	} else {
		p.in.open = func() (io.ReadCloser, error) { return os.Open(path) }
		p.in.openAt = func(off int64) (io.ReadCloser, error) {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			return sectionCloser{io.NewSectionReader(f, off, fi.Size()-off), f}, nil
		}
	}
	p.head, p.f = head, forced
	if p.f == nil {
		if p.f, err = detect(path, head, opts.Formats); err != nil {
			return p, err
		}
	}
	return p, nil
}

// decompressedHead reads the first HeadSize bytes of a compressed input.
func decompressedHead(in *Input, path string, c compression) ([]byte, error) {
	rc, err := in.open()
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(rc, head)
	rc.Close()
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, &Error{File: path, Err: fmt.Errorf("%s: %w", c, err)}
	}
	if n == 0 {
		return nil, &Error{File: path, Err: fmt.Errorf("empty file (after %s decompression)", c)}
	}
	return head[:n], nil
}

// readFile reads one prepared input (a file or a directory) as one source.
func readFile(ctx context.Context, p *prepared, w *schemas.BundleWriter, opts Options) (schemas.Source, error) {
	sink := newSourceSink(ctx, p.path, w, opts)
	if p.dirFm != nil {
		sink.src.Format = p.dirFm.Name()
		if err := p.dirFm.ReadDir(ctx, p.path, sink); err != nil {
			return schemas.Source{}, err
		}
		return sink.finish()
	}
	sink.src.Compression = p.comp
	defer track(p.in, p.path, opts)()
	sink.src.Bytes, sink.src.Format = p.in.Size, p.f.Name()
	p.in.digest.begin() // hashed while the format reads
	if err := p.f.Read(ctx, p.in, sink); err != nil {
		p.in.digest.cancel() // do not wait for a hash nobody needs (Ctrl-C)
		return schemas.Source{}, fileError(p.path, err)
	}
	if err := p.in.hashErr(); err != nil {
		return schemas.Source{}, &Error{File: p.path, Err: fmt.Errorf("hashing: %w", err)}
	}
	sink.src.SHA256 = p.in.SHA256()
	return sink.finish()
}

// fileError makes sure a size-limit error names its file.
func fileError(path string, err error) error {
	if errors.Is(err, ErrTooLarge) {
		var ie *Error
		if !errors.As(err, &ie) {
			err = &Error{File: path, Err: err}
		}
	}
	return err
}

type sectionCloser struct {
	*io.SectionReader
	f *os.File
}

func (s sectionCloser) Close() error { return s.f.Close() }

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readHead reads the first HeadSize bytes of a file, for detection.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return head[:n], nil
}

// detect picks the format with the highest confidence.
func detect(path string, head []byte, formats []Format) (Format, error) {
	best, bestScore, tie := Format(nil), 0, false
	for _, f := range formats {
		s := f.Detect(path, head)
		switch {
		case s > bestScore:
			best, bestScore, tie = f, s, false
		case s == bestScore && s > 0:
			tie = true
		}
	}
	if best == nil {
		return nil, &Error{File: path, Err: fmt.Errorf("format not recognised from its content; name one with --format (known: %s)", strings.Join(Names(formats), ", "))}
	}
	if tie {
		return nil, &Error{File: path, Err: errors.New("content matches several formats equally; name one with --format")}
	}
	return best, nil
}

func pickDir(path string, forced Format, formats []Format) (DirFormat, error) {
	if forced != nil {
		if df, ok := forced.(DirFormat); ok {
			return df, nil
		}
		return nil, &Error{File: path, Err: fmt.Errorf("is a directory, and format %s reads files; give the files inside it", forced.Name())}
	}
	var best DirFormat
	bestScore := 0
	for _, f := range formats {
		if df, ok := f.(DirFormat); ok {
			if s := df.DetectDir(path); s > bestScore {
				best, bestScore = df, s
			}
		}
	}
	if best == nil {
		return nil, &Error{File: path, Err: errors.New("is a directory, not a result file; give the files inside it")}
	}
	return best, nil
}

// sourceSink accounts for one source's rows and forwards records to the
// bundle writer.
type sourceSink struct {
	ctx  context.Context
	w    *schemas.BundleWriter
	opts Options
	src  schemas.Source
	runs map[string]bool
	// request run IDs seen, to check they all belong to reported runs
	reqRuns map[string]bool
	n       int
	// files are the paths of a several-file source (see readGroup); runs
	// that do not list their files get these.
	files []string
	path  string // the input as given
	paths pathStorer
}

func newSourceSink(ctx context.Context, path string, w *schemas.BundleWriter, opts Options) *sourceSink {
	if opts.ListRejections <= 0 {
		opts.ListRejections = 100
	}
	ps := newPathStorer(opts.KeepPaths)
	return &sourceSink{ctx: ctx, w: w, opts: opts, runs: map[string]bool{}, reqRuns: map[string]bool{}, path: path, paths: ps,
		src: schemas.Source{Path: ps.store(path), Counts: map[string]schemas.Counts{}}}
}

func (s *sourceSink) count(table string, ingested bool, reason string) {
	c := s.src.Counts[table]
	c.Read++
	if ingested {
		c.Ingested++
	} else {
		c.Rejected++
		if c.Reasons == nil {
			c.Reasons = map[string]int64{}
		}
		c.Reasons[reason]++
	}
	s.src.Counts[table] = c
}

func (s *sourceSink) Describe(format, tool, toolVersion string) {
	if format != "" {
		s.src.Format = format
	}
	s.src.Tool, s.src.ToolVersion = tool, toolVersion
}

func (s *sourceSink) Run(r *schemas.Run) error {
	if r.ID == "" {
		return errors.New("ingest: a format reported a run without an ID")
	}
	if s.runs[r.ID] {
		return fmt.Errorf("ingest: run %s reported twice", r.ID)
	}
	s.runs[r.ID] = true
	run := *r
	cutRunText(&run)
	for _, w := range []struct {
		name string
		t    *schemas.Opt[time.Time]
	}{{"window_start", &run.WindowStart}, {"window_end", &run.WindowEnd}} {
		if w.t.OK && !schemas.Representable(w.t.V) {
			s.Warn(fmt.Sprintf("run %s: %s %s is outside the years a bundle's timestamps hold (%d to %d); left unset",
				run.ID, w.name, w.t.V.UTC().Format(time.RFC3339), schemas.Earliest.Year(), schemas.Latest.Year()))
			*w.t = schemas.Opt[time.Time]{}
		}
	}
	var notes []string
	run.SUT, notes = MergeInventory(r.SUT, s.opts.SUT)
	for _, n := range notes {
		s.Warn("run " + run.ID + ": " + n)
	}
	if len(run.SourceFiles) == 0 && len(s.files) > 1 {
		run.SourceFiles = s.files
	}
	run.SourcePath = s.paths.store(run.SourcePath)
	run.SourceFiles = s.paths.storeAll(run.SourceFiles)
	if len(s.opts.Labels) > 0 {
		labels := maps.Clone(run.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		for _, k := range slices.Sorted(maps.Keys(s.opts.Labels)) {
			v := s.opts.Labels[k]
			if old, ok := labels[k]; ok && old != v {
				s.Warn(fmt.Sprintf("run %s: label %s=%q from the file replaced by --label %s=%q", run.ID, k, old, k, v))
			}
			labels[k] = v
		}
		run.Labels = labels
	}
	s.w.AddRun(run)
	s.src.Runs = append(s.src.Runs, run.ID)
	s.count(schemas.TableRuns, true, "")
	return nil
}

func (s *sourceSink) Request(r *schemas.Request) error {
	s.n++
	if s.n&0xfff == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	s.reqRuns[r.RunID] = true
	s.count(schemas.TableRequests, true, "")
	if len(r.Error) > MaxTextBytes {
		q := *r
		q.Error = CutText(q.Error)
		return s.w.AddRequest(&q)
	}
	return s.w.AddRequest(r)
}

func (s *sourceSink) Metric(m *schemas.Metric) error {
	if _, ok := schemas.Lookup(m.MetricID); !ok {
		return fmt.Errorf("ingest: unregistered metric %q", m.MetricID)
	}
	s.reqRuns[m.RunID] = true
	mm := *m
	mm.Note, mm.NativeName = CutText(mm.Note), CutText(mm.NativeName)
	s.w.AddMetric(mm)
	if m.Source == schemas.SourceComputed {
		c := s.src.Counts[schemas.TableMetrics]
		c.Computed++
		s.src.Counts[schemas.TableMetrics] = c
		return nil
	}
	s.count(schemas.TableMetrics, true, "")
	return nil
}

func (s *sourceSink) Sample(smp *schemas.Sample) error {
	if smp.RunID != "" {
		s.reqRuns[smp.RunID] = true
	}
	s.count(schemas.TableSamples, true, "")
	return s.w.AddSample(smp)
}

func (s *sourceSink) Reject(rej schemas.Rejection) {
	rej.Reason, rej.Field, rej.Record = CutText(rej.Reason), CutText(rej.Field), CutText(rej.Record)
	s.count(rej.Table, false, rej.Reason)
	if len(s.src.Rejections) < s.opts.ListRejections {
		s.src.Rejections = append(s.src.Rejections, rej)
	} else {
		s.src.RejectionsOmitted++
	}
}

func (s *sourceSink) Warn(msg string) {
	for _, f := range s.files {
		msg = s.paths.text(msg, f)
	}
	s.src.Warnings = append(s.src.Warnings, CutText(s.paths.text(msg, s.path)))
}

func (s *sourceSink) finish() (schemas.Source, error) {
	for id := range s.reqRuns {
		if !s.runs[id] {
			return schemas.Source{}, fmt.Errorf("ingest: %s: rows reference run %s, which was never reported", s.src.Path, id)
		}
	}
	if len(s.runs) == 0 {
		return schemas.Source{}, &Error{File: s.src.Path, Err: errors.New("no benchmark runs found")}
	}
	if s.opts.Strict {
		var total int64
		for _, c := range s.src.Counts {
			total += c.Rejected
		}
		if total > 0 {
			first := ""
			if len(s.src.Rejections) > 0 {
				first = ": first: " + s.src.Rejections[0].String()
			}
			return schemas.Source{}, &Error{File: s.src.Path, Err: fmt.Errorf("%d rows rejected (--strict)%s", total, first)}
		}
	}
	return s.src, nil
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}
