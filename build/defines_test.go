package build

import (
	"slices"
	"strings"
	"testing"
)

func TestDefineFlags(t *testing.T) {
	got, err := defineFlags([]string{"BB_EXTRA_WORK", "BB_EXTRA_WORK_STEPS=64"})
	if err != nil || !slices.Equal(got, []string{"-DBB_EXTRA_WORK", "-DBB_EXTRA_WORK_STEPS=64"}) {
		t.Fatalf("defineFlags = %v, %v", got, err)
	}
	// Each of these would smuggle something else onto the compiler's command line.
	for _, bad := range []string{"", "-O0", "A B", "X=1 -o /tmp/x", "1ST", `Q="x"`, "N=a\\b"} {
		if _, err := defineFlags([]string{bad}); err == nil || !strings.Contains(err.Error(), "want NAME or NAME=VALUE") {
			t.Errorf("define %q: err %v", bad, err)
		}
	}
}
