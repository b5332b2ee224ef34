package build

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestEngineFloorRunsOnThisMachineOnly: a floor over a library of this machine is refused for another toolchain,
// and an engine without a floor is named with those that have one.
func TestEngineFloorRunsOnThisMachineOnly(t *testing.T) {
	tc, err := ForPlatform("aarch64", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildEngineFloor(context.Background(), tc, "jsc", io.Discard); err == nil || !strings.Contains(err.Error(), "runs on this machine only") {
		t.Errorf("the jsc floor for aarch64: %v", err)
	}
	if _, err := BuildEngineFloor(context.Background(), Host(), "hermes", io.Discard); err == nil || !strings.Contains(err.Error(), "have quickjs, duktape, jsc, mujs, spidermonkey, v8") {
		t.Errorf("a hermes floor: %v", err)
	}
}
