package ingest

import (
	"fmt"
	"reflect"

	"github.com/verdict-llm/verdict/schemas"
)

// MergeInventory combines the inventory a file records about its system
// under test (the llm-d Benchmark Report's scenario.stack, for one) with
// the one the user gave (--sut). The user's value wins field by field; each
// field where both are known and differ is returned as a note, so that the
// replacement is never silent.
func MergeInventory(file, user schemas.Inventory) (schemas.Inventory, []string) {
	out := file
	var notes []string
	fv, uv, ov := reflect.ValueOf(file), reflect.ValueOf(user), reflect.ValueOf(&out).Elem()
	t := fv.Type()
	for i := range t.NumField() {
		u := uv.Field(i)
		if u.IsZero() {
			continue
		}
		if f := fv.Field(i); !f.IsZero() && !reflect.DeepEqual(f.Interface(), u.Interface()) {
			notes = append(notes, fmt.Sprintf("inventory %s: the file's %v replaced by --sut's %v", t.Field(i).Tag.Get("json"), show(f), show(u)))
		}
		ov.Field(i).Set(u)
	}
	return out, notes
}

func show(v reflect.Value) string {
	if o, ok := v.Interface().(schemas.Opt[int64]); ok {
		return fmt.Sprint(o.V)
	}
	return fmt.Sprintf("%q", fmt.Sprint(v.Interface()))
}
