package build

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLockWaitHasABound holds a lock and asks for it again: the second wait ends with an error that names the lock
// and the bound, and a cancelled context ends it too.
func TestLockWaitHasABound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	old := lockWait
	lockWait = 200 * time.Millisecond
	defer func() { lockWait = old }()
	// flock locks belong to the open file, so a second open in this process waits as another process would.
	if _, err := lockFile(context.Background(), path); err == nil || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "more than 200ms") {
		t.Fatalf("a held lock: %v", err)
	}
	lockWait = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lockFile(ctx, path); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("a cancelled wait: %v", err)
	}
	unlock()
	if u, err := lockFile(context.Background(), path); err != nil {
		t.Fatalf("a released lock: %v", err)
	} else {
		u()
	}
}
