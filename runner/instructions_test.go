package runner

import (
	"context"
	"strings"
	"testing"
)

func TestCheckValgrindSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // a machine without valgrind
	err := CheckValgrind(context.Background(), localTarget(t))
	if err == nil || !strings.Contains(err.Error(), "cannot run valgrind") || !strings.Contains(err.Error(), "apt-get install valgrind") {
		t.Fatalf("err %v, want the target named and how to install valgrind", err)
	}
}

func TestRoundSignificant(t *testing.T) {
	for _, tt := range []struct{ v, want float64 }{
		{19048.3573, 19048.4}, {451.00612, 451.006}, {160269012, 160269000}, {0.123456789, 0.123457}, {0, 0},
	} {
		if got := roundSignificant(tt.v, 6); got != tt.want {
			t.Errorf("roundSignificant(%v, 6) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
