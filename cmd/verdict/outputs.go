package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// checkOutputs refuses report outputs that would destroy an input (a path
// inside one of the input bundles or datasets) and, unless force is set,
// outputs that already exist. outputs maps a flag name to its path ("" is
// not given); dirs names the flags whose value is a directory.
func checkOutputs(inputs []string, outputs map[string]string, dirs map[string]bool, force bool) error {
	var ins []string
	for _, in := range inputs {
		ins = append(ins, resolved(in))
	}
	seen := map[string]string{}
	for _, flag := range sortedFlags(outputs) {
		out := outputs[flag]
		if out == "" {
			continue
		}
		p := resolved(out)
		if other, dup := seen[p]; dup {
			return usage("--%s: %s is also given to --%s", flag, out, other)
		}
		seen[p] = flag
		for i, in := range ins {
			if rel, err := filepath.Rel(in, p); err == nil && filepath.IsLocal(rel) || p == in {
				return usage("--%s: %s is inside the input %s; refusing to write there", flag, out, inputs[i])
			}
		}
		fi, err := os.Stat(out)
		switch {
		case err != nil:
		case dirs[flag] && fi.IsDir():
			if entries, _ := os.ReadDir(out); len(entries) > 0 && !force {
				return usage("--%s: %s exists and is not empty (use --force to write into it)", flag, out)
			}
		case dirs[flag]:
			return usage("--%s: %s exists and is not a directory", flag, out)
		case fi.IsDir():
			return usage("--%s: %s is a directory", flag, out)
		case !force:
			return usage("--%s: %s exists (use --force to replace it)", flag, out)
		}
	}
	return nil
}

// resolved is path made absolute with the symbolic links of its existing
// part resolved, so that two names of one file compare equal.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

func sortedFlags(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
