package targets

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/adbsim"
)

// shortBound sets a bound to d for one test.
func shortBound(t *testing.T, bound *time.Duration, d time.Duration) {
	old := *bound
	*bound = d
	t.Cleanup(func() { *bound = old })
}

// TestADBServiceOpenHasABound opens a service on a server that never answers the request: the open ends at its
// bound with an error that names the service and the bound, or at once when the caller cancels.
func TestADBServiceOpenHasABound(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	port := adbsim.StallingServer(t, "stall-1")
	h := adbHost{addr: "127.0.0.1:" + strconv.Itoa(port)}
	_, err := h.service(context.Background(), "stall-1", "shell,v2,raw:echo hi")
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "opening adb service shell,v2,raw on stall-1: no answer within 300ms") {
		t.Fatalf("service on a stalled server: %v", err)
	}
	shortBound(t, &openOp, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := h.service(ctx, "stall-1", "shell:echo hi"); !errors.Is(err, context.Canceled) {
		t.Fatalf("service cancelled while the server stalls: %v", err)
	}
}

// TestADBOpenOnAStalledServer is what `bench-bridge targets` met: the device is listed, and the first command's
// service request is never answered. Opening the target fails, naming the step, instead of hanging.
func TestADBOpenOnAStalledServer(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	adbsim.StallingServer(t, "stall-2")
	t.Setenv("ANDROID_SERIAL", "")
	_, err := NewADB(context.Background(), "android", BuiltIn["android"], Overrides{})
	if err == nil || !strings.Contains(err.Error(), "target android: device stall-2: getprop: opening adb service shell,v2,raw on stall-2: no answer within 300ms") {
		t.Fatalf("opening the target: %v", err)
	}
}
