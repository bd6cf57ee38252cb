package ingest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/verdict-llm/verdict/ingest"
	"github.com/verdict-llm/verdict/schemas"
)

// TestMergeInventory checks that the user's inventory wins field by field
// over the file's, that fields only one of them knows are kept, and that
// every replaced value is named.
func TestMergeInventory(t *testing.T) {
	file := schemas.Inventory{Model: "m-file", GPUModel: "H100", GPUCount: schemas.Some(int64(16)), Parallelism: "tp=8", LaunchArgs: []string{"--a"}}
	user := schemas.Inventory{Model: "m-user", GPUCount: schemas.Some(int64(16)), Driver: "550", LaunchArgs: []string{"--b"}}
	got, notes := ingest.MergeInventory(file, user)
	want := schemas.Inventory{Model: "m-user", GPUModel: "H100", GPUCount: schemas.Some(int64(16)), Parallelism: "tp=8", Driver: "550", LaunchArgs: []string{"--b"}}
	if got.Model != want.Model || got.GPUModel != want.GPUModel || got.GPUCount != want.GPUCount || got.Parallelism != want.Parallelism ||
		got.Driver != want.Driver || !slices.Equal(got.LaunchArgs, want.LaunchArgs) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], `inventory model: the file's "m-file" replaced by --sut's "m-user"`) || !strings.Contains(notes[1], "launch_args") {
		t.Errorf("notes %v", notes)
	}
	if got, notes := ingest.MergeInventory(file, schemas.Inventory{}); got.Model != "m-file" || len(notes) != 0 {
		t.Errorf("no --sut: %+v %v", got, notes)
	}
}
