package analysis

import (
	"github.com/verdict-llm/verdict/schemas"
	"github.com/verdict-llm/verdict/validate"
)

// PairRuns pairs the runs of an old and a new bundle with validate's
// pairing (validate.PairRuns), the one the pair rules judge: runs with the
// same load point first, the rest in order. pairs are indices into old and
// new; unpaired are the run IDs left over, old first.
func PairRuns(old, new []schemas.Run) (pairs [][2]int, unpaired []string) {
	pairs, restOld, restNew := validate.PairRuns(old, new)
	for _, i := range restOld {
		unpaired = append(unpaired, old[i].ID)
	}
	for _, j := range restNew {
		unpaired = append(unpaired, new[j].ID)
	}
	return pairs, unpaired
}
