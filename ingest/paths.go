package ingest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// A pathStorer turns input paths into the paths a bundle stores. Bundles
// travel (they are attached to reviews, exported, shared), and an absolute
// input path names a home directory or a build machine, so by default a
// path is stored relative to the directory ingest ran in when the input is
// inside it, and as its file name alone otherwise; the SHA-256 identifies
// the content either way. Options.KeepPaths stores paths as given.
type pathStorer struct {
	keep bool
	wd   string
}

func newPathStorer(keep bool) pathStorer {
	wd, _ := os.Getwd()
	return pathStorer{keep: keep, wd: wd}
}

// store returns the path to store for an input path as given.
func (p pathStorer) store(path string) string {
	if p.keep || path == "" {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil || p.wd == "" {
		return filepath.Base(path)
	}
	if rel, err := filepath.Rel(p.wd, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// storeAll is store for every path of a list (nil stays nil).
func (p pathStorer) storeAll(paths []string) []string {
	if p.keep || len(paths) == 0 {
		return paths
	}
	out := make([]string, len(paths))
	for i, q := range paths {
		out[i] = p.store(q)
	}
	return out
}

// text rewrites the occurrences of path in a message that is stored (a
// warning naming its file).
func (p pathStorer) text(msg, path string) string {
	if p.keep || path == "" {
		return msg
	}
	if s := p.store(path); s != path {
		return strings.ReplaceAll(msg, path, s)
	}
	return msg
}

// cutRunText cuts a run's text fields and labels to MaxTextBytes.
func cutRunText(r *schemas.Run) {
	for _, p := range []*string{&r.ToolVersion, &r.Format, &r.RampUp, &r.Backend, &r.Endpoint, &r.Model, &r.Tokenizer, &r.ToolDate, &r.TokenSource} {
		*p = CutText(*p)
	}
	for i, f := range r.Flags {
		r.Flags[i] = CutText(f)
	}
	if len(r.Labels) == 0 {
		return
	}
	labels := make(map[string]string, len(r.Labels))
	for k, v := range r.Labels {
		labels[CutText(k)] = CutText(v)
	}
	r.Labels = labels
}
