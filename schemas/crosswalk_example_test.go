package schemas_test

import (
	"fmt"

	"github.com/verdict-llm/verdict/schemas"
)

// The definitions a BR field can hold, the writer's choice first.
func ExampleStandardFor() {
	for _, s := range schemas.StandardFor(schemas.StandardBR, schemas.BRAggregate+schemas.BRTTFT) {
		fmt.Println(s.Metric, s.Match)
	}
	// Output:
	// ttft same
	// ttft_answer close
	// ttft_scheduled close
}
