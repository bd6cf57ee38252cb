package validate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-llm/verdict/schemas"
)

// Options configure Validate. The zero value validates each bundle (group)
// on its own, with every rule and DefaultPolicy.
type Options struct {
	// Compare pairs the runs of every two groups and runs the pair rules,
	// giving a comparison verdict. It needs at least two groups.
	Compare bool
	// GroupBy says which runs form one configuration: "bundle" (the
	// default), "run" (each run alone), "tool", "label:KEY" (the value of
	// a run label) or "sut:FIELD" (an inventory field by JSON name).
	GroupBy string
	// Rules, when not empty, limits validation to these rules (IDs like
	// "V001-scenario" or numbers like "V001").
	Rules []string
	// Disable turns rules off, on top of the policy's disable list.
	Disable []string
	// Policy sets thresholds and the gate; nil means DefaultPolicy.
	Policy *Policy
}

// Validate runs the selected rules over runs and returns the report. It
// returns an error only for invalid options: an unknown rule, a bad
// GroupBy, an invalid policy, no runs, or Compare with fewer than two
// groups. Problems of the runs themselves are findings, never errors.
// Validate sets each run's display name (see RunData.Name).
func Validate(runs []*RunData, opts Options) (*Report, error) {
	pol := DefaultPolicy.clone()
	if opts.Policy != nil {
		pol = opts.Policy.clone()
		if err := pol.Check(); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
	}
	rules, err := selectRules(opts, pol)
	if err != nil {
		return nil, err
	}
	gb, err := parseGroupBy(opts.GroupBy)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs to validate")
	}
	uniqueNames(runs)
	groups := gb.group(runs)
	if opts.Compare && len(groups) < 2 {
		return nil, fmt.Errorf("comparing needs at least two groups, and --group-by %s gives one (%s); give two bundles, or group by run, tool, label:KEY or sut:FIELD", gb, groups[0].name)
	}

	rep := &Report{Schema: ReportSchema, Mode: ModeBundles, GroupBy: gb.String(), Policy: pol,
		Findings: []Finding{}, Checks: []Check{}, Gate: []string{}}
	if opts.Compare {
		rep.Mode = ModeCompare
	}
	groupOf := map[*RunData]string{}
	for _, g := range groups {
		names := make([]string, len(g.runs))
		for i, d := range g.runs {
			names[i] = d.Name()
			groupOf[d] = g.name
		}
		rep.Groups = append(rep.Groups, GroupResult{Name: g.name, Runs: names})
	}
	var pairs []pairing
	if opts.Compare {
		pairs, rep.Unpaired = pairUp(groups)
	}

	c := &checker{policy: pol, th: pol.Thresholds, compare: opts.Compare}
	for i := range rules {
		r := &rules[i]
		var subjects []subject
		switch r.Scope {
		case ScopeRun:
			for _, d := range runs {
				subjects = append(subjects, subject{scope: ScopeRun, runs: []*RunData{d}, group: groupOf[d], key: "run " + d.Name()})
			}
		case ScopeGroup:
			for _, g := range groups {
				subjects = append(subjects, subject{scope: ScopeGroup, runs: g.runs, group: g.name, key: "group " + g.name})
			}
		case ScopePair:
			if !opts.Compare {
				continue
			}
			for _, p := range pairs {
				subjects = append(subjects, subject{scope: ScopePair, runs: []*RunData{p.a, p.b}, key: p.key()})
			}
		}
		rep.Rules = append(rep.Rules, RuleRef{ID: r.ID, Title: r.Title, Severity: pol.severityOf(r), Scope: r.Scope})
		for _, s := range subjects {
			rep.apply(c, r, s)
		}
	}
	rep.finish(runs, pairs)
	return rep, nil
}

// apply runs one rule on one subject and records the check and findings.
func (rep *Report) apply(c *checker, r *Rule, s subject) {
	o := r.check(c, s)
	chk := Check{Rule: r.ID, Scope: r.Scope, Subject: s.key, Group: s.group, Notes: o.notes}
	for _, d := range s.runs {
		chk.Runs = append(chk.Runs, d.Name())
	}
	if o.skip != "" {
		chk.Status, chk.Reason = StatusSkip, o.skip
		rep.Checks = append(rep.Checks, chk)
		return
	}
	sev := c.policy.severityOf(r)
	chk.Status = StatusPass
	for _, f := range o.findings {
		f.Rule, f.Severity, f.Scope, f.Subject = r.ID, sev, r.Scope, s.key
		if f.severity != "" && rankSeverity(f.severity) < rankSeverity(sev) {
			f.Severity = f.severity // a check may lower, never raise, the policy's severity
		}
		sev := f.Severity
		if r.Scope != ScopePair {
			f.Group = s.group
		}
		f.Effect = effectOf(sev, f.Unverified, c.compare)
		switch f.Effect {
		case EffectInvalid, EffectNotComparable:
			f.FailsGate = true
		case EffectIncomplete:
			f.FailsGate = !c.policy.AllowIncomplete
		case EffectWarning:
			f.FailsGate = c.policy.failsOnWarning(r)
		}
		if f.FailsGate {
			chk.Status = StatusFail
		} else if chk.Status == StatusPass {
			chk.Status = StatusWarn
		}
		rep.Findings = append(rep.Findings, f)
	}
	rep.Checks = append(rep.Checks, chk)
}

func rankSeverity(s Severity) int {
	switch s {
	case Error:
		return 2
	case Warning:
		return 1
	}
	return 0
}

func effectOf(sev Severity, unverified, compare bool) Effect {
	switch {
	case sev == Error && unverified:
		return EffectIncomplete
	case sev == Error && compare:
		return EffectNotComparable
	case sev == Error:
		return EffectInvalid
	case sev == Warning:
		return EffectWarning
	}
	return EffectInfo
}

func rank(e Effect) int {
	switch e {
	case EffectInvalid, EffectNotComparable:
		return 3
	case EffectIncomplete:
		return 2
	case EffectWarning:
		return 1
	}
	return 0
}

// verdictOf is the worst effect over findings, in the words of a bundle
// or of a comparison.
func verdictOf(fs []Finding, compare bool) Verdict {
	worst := 0
	for _, f := range fs {
		worst = max(worst, rank(f.Effect))
	}
	if compare {
		return [...]Verdict{Comparable, ComparableWithWarnings, Incomplete, NotComparable}[worst]
	}
	return [...]Verdict{Valid, Valid, Incomplete, Invalid}[worst]
}

func passes(fs []Finding) bool {
	for _, f := range fs {
		if f.FailsGate {
			return false
		}
	}
	return true
}

// finish computes verdicts, the gate and counts.
func (rep *Report) finish(runs []*RunData, pairs []pairing) {
	compare := rep.Mode == ModeCompare
	// Findings that concern a run on its own: run and group scope.
	about := func(names ...string) []Finding {
		var out []Finding
		for _, f := range rep.Findings {
			if f.Scope == ScopePair {
				continue
			}
			for _, n := range names {
				if slices.Contains(f.Runs, n) {
					out = append(out, f)
					break
				}
			}
		}
		return out
	}
	var bundleOrder []string
	bundleRuns := map[string][]string{}
	for _, d := range runs {
		rep.Runs = append(rep.Runs, RunResult{Name: d.Name(), RunID: d.Run.ID, Bundle: d.Bundle, Tool: d.Run.Tool,
			Format: d.Run.Format, Scenario: string(d.Run.Scenario), Verdict: verdictOf(about(d.Name()), false)})
		if _, ok := bundleRuns[d.Bundle]; !ok {
			bundleOrder = append(bundleOrder, d.Bundle)
		}
		bundleRuns[d.Bundle] = append(bundleRuns[d.Bundle], d.Name())
	}
	for _, b := range bundleOrder {
		fs := about(bundleRuns[b]...)
		rep.Bundles = append(rep.Bundles, BundleResult{Path: b, Verdict: verdictOf(fs, false), Pass: passes(fs), Runs: bundleRuns[b]})
	}
	for _, p := range pairs {
		fs := about(p.a.Name(), p.b.Name())
		for _, f := range rep.Findings {
			if f.Scope == ScopePair && f.Subject == p.key() {
				fs = append(fs, f)
			}
		}
		rep.Pairs = append(rep.Pairs, PairResult{A: p.a.Name(), B: p.b.Name(), Groups: [2]string{p.ga, p.gb},
			Verdict: verdictOf(fs, true), Pass: passes(fs)})
	}
	rep.Verdict = verdictOf(rep.Findings, compare)
	rep.Pass = passes(rep.Findings)

	var errs, incomplete int
	var warnRules []string
	warns := 0
	for _, f := range rep.Findings {
		rep.Counts.Findings++
		switch f.Severity {
		case Error:
			rep.Counts.Errors++
		case Warning:
			rep.Counts.Warnings++
		case Info:
			rep.Counts.Infos++
		}
		if f.Unverified {
			rep.Counts.Unverified++
		}
		if !f.FailsGate {
			continue
		}
		rep.Counts.FailingGate++
		switch f.Effect {
		case EffectInvalid, EffectNotComparable:
			errs++
		case EffectIncomplete:
			incomplete++
		default:
			warns++
			if !slices.Contains(warnRules, f.Rule) {
				warnRules = append(warnRules, f.Rule)
			}
		}
	}
	if errs > 0 {
		rep.Gate = append(rep.Gate, fmt.Sprintf("%d %s (%s)", errs, plural(errs, "error", "errors"), pick(compare, "not comparable", "invalid")))
	}
	if incomplete > 0 {
		rep.Gate = append(rep.Gate, fmt.Sprintf("%d unverified %s: the evidence is incomplete (policy allow_incomplete is false)", incomplete, plural(incomplete, "error", "errors")))
	}
	if warns > 0 {
		rep.Gate = append(rep.Gate, fmt.Sprintf("%d %s of %s, which the policy's fail_on_warnings lists", warns, plural(warns, "warning", "warnings"), strings.Join(warnRules, ", ")))
	}
	for _, ch := range rep.Checks {
		rep.Counts.Checks++
		switch ch.Status {
		case StatusPass:
			rep.Counts.Passed++
		case StatusSkip:
			rep.Counts.Skipped++
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// selectRules returns the catalogue's rules to run, in catalogue order.
func selectRules(opts Options, pol Policy) ([]Rule, error) {
	for _, list := range [][]string{opts.Rules, opts.Disable} {
		for _, id := range list {
			if _, ok := FindRule(id); !ok {
				return nil, fmt.Errorf("unknown rule %q (`verdict rules` lists them)", id)
			}
		}
	}
	matchAny := func(r *Rule, ids []string) bool {
		for _, id := range ids {
			if ruleMatches(r, id) {
				return true
			}
		}
		return false
	}
	var out []Rule
	for i := range catalogue {
		r := &catalogue[i]
		if len(opts.Rules) > 0 && !matchAny(r, opts.Rules) {
			continue
		}
		if matchAny(r, opts.Disable) || matchAny(r, pol.Disable) {
			continue
		}
		out = append(out, *r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule left to run after --rules and --disable")
	}
	return out, nil
}

// groupBy is a parsed Options.GroupBy.
type groupBy struct{ kind, key string }

func parseGroupBy(s string) (groupBy, error) {
	switch {
	case s == "" || s == "bundle":
		return groupBy{kind: "bundle"}, nil
	case s == "run" || s == "tool":
		return groupBy{kind: s}, nil
	case strings.HasPrefix(s, "label:") && len(s) > len("label:"):
		return groupBy{kind: "label", key: s[len("label:"):]}, nil
	case strings.HasPrefix(s, "sut:"):
		f := s[len("sut:"):]
		if !slices.Contains(inventoryFieldNames(), f) {
			return groupBy{}, fmt.Errorf("--group-by %s: unknown inventory field %q (known: %s)", s, f, strings.Join(inventoryFieldNames(), ", "))
		}
		return groupBy{kind: "sut", key: f}, nil
	}
	return groupBy{}, fmt.Errorf("unknown --group-by %q: use bundle, run, tool, label:KEY or sut:FIELD", s)
}

func (g groupBy) String() string {
	if g.key != "" {
		return g.kind + ":" + g.key
	}
	return g.kind
}

type group struct {
	name string
	runs []*RunData
}

// group splits runs into groups, in order of first appearance.
func (g groupBy) group(runs []*RunData) []group {
	bundleName := map[string]string{}
	if g.kind == "bundle" {
		bases := map[string]int{}
		for _, d := range runs {
			if _, ok := bundleName[d.Bundle]; !ok {
				bundleName[d.Bundle] = ""
				bases[filepath.Base(d.Bundle)]++
			}
		}
		for dir := range bundleName {
			switch {
			case dir == "":
				bundleName[dir] = "(in memory)"
			case bases[filepath.Base(dir)] > 1:
				bundleName[dir] = dir
			default:
				bundleName[dir] = filepath.Base(dir)
			}
		}
	}
	var out []group
	index := map[string]int{}
	for _, d := range runs {
		var name string
		switch g.kind {
		case "bundle":
			name = bundleName[d.Bundle]
		case "run":
			name = d.Name()
		case "tool":
			name = orUnknown(d.Run.Tool)
		case "label":
			v, ok := d.Run.Labels[g.key]
			name = g.key + "=" + v
			if !ok {
				name = g.key + " unset"
			}
		case "sut":
			name = g.key + "=" + orUnknown(inventoryValue(d.Run.SUT, g.key))
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, group{name: name})
		}
		out[i].runs = append(out[i].runs, d)
	}
	return out
}

// pairing is one comparison of two runs from different groups.
type pairing struct {
	a, b   *RunData
	ga, gb string
}

func (p pairing) key() string { return "pair " + p.a.Name() + " vs " + p.b.Name() }

// LoadKey identifies a run's load point: scenario, arrival process,
// request rate, burstiness, concurrency limit, ramp-up and streaming. Runs
// of two groups with the same load point pair first.
func LoadKey(r schemas.Run) string {
	return strings.Join([]string{string(r.Scenario), string(r.Arrival), rateText(r.RequestRate), floatText(r.Burstiness),
		concurrencyText(r.MaxConcurrency), r.RampUp, boolText(r.Streaming)}, "|")
}

// PairRuns is verdict's one pairing of runs, used by the pair rules, by
// `verdict compare` and by `verdict report`: the runs of a and b with the
// same load point (LoadKey) pair first, each run of a with the first
// unpaired run of b, in order; then the remaining runs pair in order.
// Pairs are indices into a and b, in the order of a's runs; restA and
// restB are the indices left over (when one list is longer).
func PairRuns(a, b []schemas.Run) (pairs [][2]int, restA, restB []int) {
	usedA := make([]bool, len(a))
	usedB := make([]bool, len(b))
	keyB := make([]string, len(b))
	for y := range b {
		keyB[y] = LoadKey(b[y])
	}
	for x := range a {
		k := LoadKey(a[x])
		for y := range b {
			if !usedB[y] && k == keyB[y] {
				usedA[x], usedB[y] = true, true
				pairs = append(pairs, [2]int{x, y})
				break
			}
		}
	}
	for x := range a {
		if !usedA[x] {
			restA = append(restA, x)
		}
	}
	for y := range b {
		if !usedB[y] {
			restB = append(restB, y)
		}
	}
	n := min(len(restA), len(restB))
	for k := range n {
		pairs = append(pairs, [2]int{restA[k], restB[k]})
	}
	slices.SortStableFunc(pairs, func(p, q [2]int) int { return p[0] - q[0] })
	return pairs, restA[n:], restB[n:]
}

// pairUp pairs the runs of every two groups with PairRuns. Runs left over
// are unpaired.
func pairUp(groups []group) ([]pairing, []Unpaired) {
	var pairs []pairing
	var unpaired []Unpaired
	for i := 0; i < len(groups); i++ {
		for j := i + 1; j < len(groups); j++ {
			ga, gb := groups[i], groups[j]
			ps, restA, restB := PairRuns(runsOf(ga.runs), runsOf(gb.runs))
			for _, p := range ps {
				pairs = append(pairs, pairing{a: ga.runs[p[0]], b: gb.runs[p[1]], ga: ga.name, gb: gb.name})
			}
			for _, x := range restA {
				unpaired = append(unpaired, Unpaired{Run: ga.runs[x].Name(), Group: ga.name, OtherGroup: gb.name,
					Reason: "every run of " + gb.name + " (" + strconv.Itoa(len(gb.runs)) + ") is paired already"})
			}
			for _, y := range restB {
				unpaired = append(unpaired, Unpaired{Run: gb.runs[y].Name(), Group: gb.name, OtherGroup: ga.name,
					Reason: "every run of " + ga.name + " (" + strconv.Itoa(len(ga.runs)) + ") is paired already"})
			}
		}
	}
	return pairs, unpaired
}

func runsOf(ds []*RunData) []schemas.Run {
	out := make([]schemas.Run, len(ds))
	for i, d := range ds {
		out[i] = d.Run
	}
	return out
}
