package schemas

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateRegistryVersions = flag.Bool("update-registry-version", false, "record the current RegistryDigest under a new RegistryVersion in testdata/registry-versions.txt")

// TestRegistryVersion checks that the definitions measure what they
// measured when RegistryVersion was given its number:
// testdata/registry-versions.txt holds one line per version, "N digest".
// After changing a definition, bump RegistryVersion and run
//
//	go test ./schemas -run TestRegistryVersion -update-registry-version
//
// which appends the new version's line; an old version's line is never
// rewritten.
func TestRegistryVersion(t *testing.T) {
	path := filepath.Join("testdata", "registry-versions.txt")
	recorded := map[int]string{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			n, digest, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
			v, err := strconv.Atoi(n)
			if !ok || err != nil || len(digest) != 64 {
				t.Fatalf("%s:%d: want \"VERSION DIGEST\", got %q", path, line, sc.Text())
			}
			recorded[v] = digest
		}
		f.Close()
	}
	got := RegistryDigest()
	want, ok := recorded[RegistryVersion]
	switch {
	case ok && want == got:
	case ok:
		t.Errorf("the registry's definitions changed, but RegistryVersion is still %d (digest %s, recorded %s): bump RegistryVersion and run go test ./schemas -run TestRegistryVersion -update-registry-version",
			RegistryVersion, got, want)
	case *updateRegistryVersions:
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "%d %s\n", RegistryVersion, got)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("RegistryVersion %d is not recorded in %s: run go test ./schemas -run TestRegistryVersion -update-registry-version", RegistryVersion, path)
	}
	for v := range recorded {
		if v > RegistryVersion {
			t.Errorf("%s records version %d, above RegistryVersion %d", path, v, RegistryVersion)
		}
	}
}
