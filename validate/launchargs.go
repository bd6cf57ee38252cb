package validate

import (
	"slices"
	"strings"
)

// Engine launch arguments (inventory engine.launch_args) compared as the
// engine reads them: by flag, whatever their order, "--flag=v" and
// "--flag v" alike, dashes and underscores alike (vLLM and SGLang accept
// both), short aliases expanded, "--no-flag" as flag=false. Differences
// that change performance most are called out by kind.

// launchFlag is one flag as given: its canonical name and its value ("" for
// a flag without one).
type launchFlag struct {
	name, value string
	bare        bool // given without a value: a switch
}

// text renders the flag as "--name value" (or "--name").
func (f launchFlag) text() string {
	switch {
	case f.bare:
		return "--" + f.name
	case f.value == "false" && strings.HasPrefix(f.name, "enable-"):
		return "--no-" + f.name
	}
	return "--" + f.name + " " + f.value
}

// flagAliases are short or older spellings of the engines' flags.
var flagAliases = map[string]string{
	"tp": "tensor-parallel-size", "pp": "pipeline-parallel-size", "dp": "data-parallel-size", "q": "quantization",
	"tp-size": "tensor-parallel-size", "pp-size": "pipeline-parallel-size", "dp-size": "data-parallel-size",
	"ep-size": "expert-parallel-size",
}

// parseLaunchArgs reads a command line. An element holding a flag and its
// value separated by a space ("--max-num-seqs 256") is split; other
// elements are tokens as given.
func parseLaunchArgs(args []string) (flags []launchFlag, positional []string) {
	var toks []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && strings.Contains(a, " ") && !strings.ContainsAny(a, `{["'`) {
			toks = append(toks, strings.Fields(a)...)
			continue
		}
		toks = append(toks, a)
	}
	isFlag := func(t string) bool {
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			return false
		}
		return !(t[1] >= '0' && t[1] <= '9') && t[1] != '.' // -1, -.5 are values
	}
	at := map[string]int{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if !isFlag(t) {
			positional = append(positional, t)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(t, "-"), "=")
		name = strings.ReplaceAll(strings.ToLower(name), "_", "-")
		if full, ok := flagAliases[name]; ok {
			name = full
		}
		f := launchFlag{name: name, value: value}
		if !hasValue {
			if i+1 < len(toks) && !isFlag(toks[i+1]) {
				f.value = toks[i+1]
				i++
			} else {
				f.bare, f.value = true, "true"
			}
		}
		if base, ok := strings.CutPrefix(name, "no-"); ok && f.bare {
			f = launchFlag{name: base, value: "false"}
		}
		if j, ok := at[f.name]; ok {
			flags[j] = f // argparse: the last occurrence wins
			continue
		}
		at[f.name] = len(flags)
		flags = append(flags, f)
	}
	return flags, positional
}

// canonicalLaunchArgs is a command line in a form equal for equal
// settings: flags sorted by name as name=value, then the positional
// arguments in order.
func canonicalLaunchArgs(args []string) string {
	if len(args) == 0 {
		return ""
	}
	flags, pos := parseLaunchArgs(args)
	parts := make([]string, 0, len(flags)+len(pos))
	for _, f := range flags {
		parts = append(parts, "--"+f.name+"="+f.value)
	}
	slices.Sort(parts)
	return strings.Join(append(parts, pos...), " ")
}

// flagKinds are the kinds of settings called out when they differ, each
// with a test on the canonical flag name.
var flagKinds = []struct {
	kind  string
	match func(name string) bool
}{
	{"prefix caching", func(n string) bool {
		return strings.Contains(n, "prefix-caching") || n == "disable-radix-cache" || strings.Contains(n, "block-reuse")
	}},
	{"scheduling limits", func(n string) bool {
		return slices.Contains([]string{"max-num-seqs", "max-num-batched-tokens", "max-running-requests", "max-total-tokens",
			"chunked-prefill-size", "enable-chunked-prefill", "max-num-partial-prefills", "long-prefill-token-threshold",
			"scheduling-policy", "schedule-policy", "max-batch-size", "max-num-tokens"}, n)
	}},
	{"speculative decoding", func(n string) bool {
		return strings.HasPrefix(n, "speculative") || n == "num-speculative-tokens"
	}},
	{"parallelism", func(n string) bool {
		return strings.Contains(n, "parallel") || n == "enable-dp-attention"
	}},
	{"quantization", func(n string) bool {
		return slices.Contains([]string{"quantization", "kv-cache-dtype", "dtype", "quantization-param-path", "calculate-kv-scales", "torchao-config"}, n)
	}},
}

// kindOfFlag returns the kind a flag is called out as, or "".
func kindOfFlag(name string) string {
	for _, k := range flagKinds {
		if k.match(name) {
			return k.kind
		}
	}
	return ""
}

// launchDiff is how two command lines differ.
type launchDiff struct {
	a, b  []string            // each side's differing flags, as given, in its order
	kinds map[string][]string // kind -> "--flag X against Y" for the called-out kinds
	order []string            // kinds in the order of flagKinds
	pos   bool                // the positional arguments differ
}

// diffLaunchArgs compares two command lines; ok is false when they set
// the same.
func diffLaunchArgs(x, y []string) (launchDiff, bool) {
	fx, px := parseLaunchArgs(x)
	fy, py := parseLaunchArgs(y)
	find := func(fs []launchFlag, name string) (launchFlag, bool) {
		for _, f := range fs {
			if f.name == name {
				return f, true
			}
		}
		return launchFlag{}, false
	}
	d := launchDiff{kinds: map[string][]string{}, pos: !slices.Equal(px, py)}
	note := func(name, va, vb string) {
		k := kindOfFlag(name)
		if k == "" {
			return
		}
		if _, seen := d.kinds[k]; !seen {
			d.order = append(d.order, k)
		}
		d.kinds[k] = append(d.kinds[k], "--"+name+" "+va+" against "+vb)
	}
	show := func(f launchFlag, ok bool) string {
		switch {
		case !ok:
			return "(not given)"
		case f.bare:
			return "(set)"
		}
		return f.value
	}
	for _, f := range fx {
		g, ok := find(fy, f.name)
		if !ok || g.value != f.value {
			d.a = append(d.a, f.text())
			note(f.name, show(f, true), show(g, ok))
		}
	}
	for _, g := range fy {
		f, ok := find(fx, g.name)
		if !ok || g.value != f.value {
			d.b = append(d.b, g.text())
			if !ok {
				note(g.name, show(f, false), show(g, true))
			}
		}
	}
	slices.SortStableFunc(d.order, func(p, q string) int { return kindIndex(p) - kindIndex(q) })
	return d, len(d.a) > 0 || len(d.b) > 0 || d.pos
}

func kindIndex(kind string) int {
	return slices.IndexFunc(flagKinds, func(k struct {
		kind  string
		match func(string) bool
	}) bool {
		return k.kind == kind
	})
}
