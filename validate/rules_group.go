package validate

import (
	"fmt"
	"slices"
	"strings"
)

// sutBoundaryFields are the inventory fields that define the system under
// test: a change among runs grouped as one configuration voids the group.
// Dataset, cache state, warm-up, endpoint URL and resource IDs describe a
// run, not the system, and are checked elsewhere.
var sutBoundaryFields = []string{
	"model", "model_revision", "quantization", "engine", "engine_version", "launch_args",
	"gpu_model", "gpu_count", "driver", "cuda", "container_image", "client_location",
}

// fieldValue returns a boundary field of a run: the tool-recorded model
// under "model (tool)", inventory fields by JSON name.
func fieldValue(d *RunData, field string) string {
	switch field {
	case "model (tool)":
		return d.Run.Model
	case "launch_args":
		// By flag: the order and spelling of the flags are not a change.
		return canonicalLaunchArgs(d.Run.SUT.LaunchArgs)
	}
	return inventoryValue(d.Run.SUT, field)
}

func checkSUTChanged(c *checker, s subject) outcome {
	if len(s.runs) < 2 {
		return skipped("the group has one run")
	}
	var o outcome
	fields := append([]string{"model (tool)"}, sutBoundaryFields...)
	known := 0
	for _, field := range fields {
		var runs []*RunData
		var values, distinct []string
		for _, d := range s.runs {
			v := fieldValue(d, field)
			if v == "" {
				continue
			}
			runs = append(runs, d)
			values = append(values, v)
			if !slices.Contains(distinct, v) {
				distinct = append(distinct, v)
			}
		}
		if len(runs) >= 2 {
			known++
		}
		if len(distinct) < 2 {
			continue
		}
		var parts []string
		for i, d := range runs {
			parts = append(parts, d.Name()+": "+values[i])
		}
		name := field
		if field != "model (tool)" {
			name = "sut." + field
		}
		f := s.finding(fmt.Sprintf("%s changed inside the configuration %s (%s): runs grouped as one configuration must share the system under test",
			name, s.group, strings.Join(parts, "; ")), runs...)
		f.Fields, f.Values = []string{name}, values
		o.add(f)
	}
	if len(o.findings) == 0 {
		if known == 0 {
			o.note("no system-under-test field is known for two runs of the group (V018 reports missing inventory)")
		} else {
			o.note(fmt.Sprintf("%d system-under-test fields agree across the group", known))
		}
	}
	return o
}

// sameServer reports whether two runs evidently ran against the same
// server: the same model, and no known endpoint or boundary field differs.
func sameServer(x, y *RunData) bool {
	if x.Run.Model != y.Run.Model && x.Run.Model != "" && y.Run.Model != "" {
		return false
	}
	ex, ey := x.Run.SUT.Endpoint, y.Run.SUT.Endpoint
	if ex == "" || ey == "" {
		ex, ey = x.Run.Endpoint, y.Run.Endpoint
	}
	if ex != "" && ey != "" && ex != ey {
		return false
	}
	for _, f := range sutBoundaryFields {
		vx, vy := fieldValue(x, f), fieldValue(y, f)
		if vx != "" && vy != "" && vx != vy {
			return false
		}
	}
	return true
}

// samePrompts reports whether two runs sent the same prompts, and whether
// that is shown (by a dataset hash or name, or the request rows) rather
// than assumed because nothing says otherwise.
func samePrompts(x, y *RunData) (same, shown bool) {
	ix, iy := x.Run.SUT, y.Run.SUT
	switch {
	case ix.DatasetSHA256 != "" && iy.DatasetSHA256 != "":
		return ix.DatasetSHA256 == iy.DatasetSHA256, true
	case ix.Dataset != "" && iy.Dataset != "" && ix.Dataset != iy.Dataset:
		return false, true
	case sequenceKnown(x) && sequenceKnown(y):
		return x.Requests.InputSequence == y.Requests.InputSequence, true
	case ix.Dataset != "" && ix.Dataset == iy.Dataset:
		return true, true
	}
	return true, false
}

func checkPrefixCache(c *checker, s subject) outcome {
	if len(s.runs) < 2 {
		return skipped("the group has one run")
	}
	runs := slices.Clone(s.runs)
	allTimed := true
	for _, d := range runs {
		if !d.Run.WindowStart.OK {
			allTimed = false
		}
	}
	if allTimed {
		slices.SortStableFunc(runs, func(x, y *RunData) int { return x.Run.WindowStart.V.Compare(y.Run.WindowStart.V) })
	}
	var o outcome
	for i := 1; i < len(runs); i++ {
		later := runs[i]
		state := later.Run.SUT.CacheState
		if state == "cold" || state == "reset" {
			continue
		}
		for _, earlier := range runs[:i] {
			if !sameServer(earlier, later) {
				continue
			}
			same, shown := samePrompts(earlier, later)
			if !same {
				continue
			}
			how := "the same prompts (the same dataset or prompt lengths)"
			if !shown {
				how = "presumably the same prompts (nothing recorded says otherwise)"
			}
			stateText := "no cache reset or restart is recorded (cache_state unknown)"
			if state == "warm" {
				stateText = "its cache_state is warm"
			}
			order := "ran after"
			if !allTimed {
				order = "comes after (in the order given; start times are not recorded)"
			}
			f := s.finding(fmt.Sprintf("%s %s %s against the same server and model (%s) with %s; %s, so its prefill may have hit the prefix cache",
				later.Name(), order, earlier.Name(), orUnknown(later.Run.Model), how, stateText), earlier, later)
			f.Fields, f.Values = []string{"sut.cache_state"}, []string{orUnknown(earlier.Run.SUT.CacheState), orUnknown(state)}
			o.add(f)
			break
		}
	}
	if len(o.findings) == 0 {
		o.note("no repeated run of the same prompts against the same server without a recorded cache reset")
	}
	return o
}

// sequenceKnown reports whether a run's prompt-length sequence covers all
// of its requests.
func sequenceKnown(d *RunData) bool {
	rs := completeRequests(d)
	return rs != nil && rs.InputSequence != 0
}
