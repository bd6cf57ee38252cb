package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
)

// ArtifactSets finds a tool's artifact sets in dir, for DirFormats whose
// tools write one directory per run (GenAI-Perf, AIPerf): dir itself when
// scan recognises it, otherwise each subdirectory scan recognises.
func ArtifactSets[S any](dir string, scan func(dir string) (S, bool)) []S {
	if s, ok := scan(dir); ok {
		return []S{s}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []S
	for _, de := range entries {
		if de.IsDir() {
			if s, ok := scan(filepath.Join(dir, de.Name())); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// ReadSets reads every set with read, which returns the tool version it
// found, and returns the version common to all sets, or a note that they
// differ.
func ReadSets[S any](ctx context.Context, sets []S, read func(S) (string, error)) (string, error) {
	var versions []string
	for _, s := range sets {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		v, err := read(s)
		if err != nil {
			return "", err
		}
		versions = append(versions, v)
	}
	if len(versions) == 0 {
		return "", nil
	}
	sort.Strings(versions)
	if versions[0] != versions[len(versions)-1] {
		return "several (see each run's tool_version)", nil
	}
	return versions[0], nil
}
