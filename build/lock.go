package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait bounds the wait for a lock another process holds: longer than any fetch or build takes on a slow
// machine, short enough that a hung holder does not hang everyone behind it. A variable for tests.
var lockWait = 15 * time.Minute

// lockFile takes an exclusive advisory lock, so that two bench-bridge processes (or parallel tests) sharing a cache
// do not fetch or build the same thing at once. It waits for the holder until ctx ends or lockWait has passed. The
// kernel drops a lock whose holder exits, so one that is never released means a holder that hangs.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("waiting for the build lock %s: another process has held it for more than %s; "+
				"stop the bench-bridge that hangs (fuser %s names it)", path, lockWait, path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the build lock %s: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
