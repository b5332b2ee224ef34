package build

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestEngineFloorRunsOnThisMachineOnly: a floor over a library of this machine is refused for a toolchain of another
// architecture (a board of this one's runs it, when the board has the library), V8's addon for any toolchain but the
// host's, and an engine without a floor is named with those that have one.
func TestEngineFloorRunsOnThisMachineOnly(t *testing.T) {
	armel, err := ForPlatform("armel", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildEngineFloor(context.Background(), armel, "jsc", io.Discard); err == nil || !strings.Contains(err.Error(), "on boards of its architecture") {
		t.Errorf("the jsc floor for armel: %v", err)
	}
	for _, tc := range Toolchains {
		if tc.NativeOn == runtime.GOARCH {
			if _, err := BuildEngineFloor(context.Background(), tc, "v8", io.Discard); err == nil || !strings.Contains(err.Error(), "runs on this machine only") {
				t.Errorf("the v8 floor for %s: %v", tc.Name, err)
			}
		}
	}
	if _, err := BuildEngineFloor(context.Background(), Host(), "hermes", io.Discard); err == nil || !strings.Contains(err.Error(), "have quickjs, duktape, jsc, mujs, spidermonkey, v8") {
		t.Errorf("a hermes floor: %v", err)
	}
}
