package testenv

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
)

// Shared is a part that the tests of one package share, a device say: the first test that asks for it makes it, it
// outlives that test, and Close (which the package's TestMain calls after the tests) ends it. A part that could not
// be made fails every test that asks for it with the first one's reason (or skips them, where Missing skips).
type Shared[T any] struct {
	make  func(t testing.TB) T
	once  sync.Once
	life  *lifetime
	value T
}

// NewShared returns a part made by make on first use. make gets a testing.TB whose temporary directories and
// cleanups last until Close; Fatal and Skip there end the making, and every test that asks gets that outcome.
func NewShared[T any](name string, make func(t testing.TB) T) *Shared[T] {
	return &Shared[T]{make: make, life: newLifetime(name)}
}

// Get returns the part, making it on the first call.
func (s *Shared[T]) Get(t testing.TB) T {
	t.Helper()
	s.once.Do(func() {
		done := make(chan struct{})
		go func() { // Fatal and Skip end this goroutine, as they end a test's
			defer close(done)
			s.value = s.make(s.life)
		}()
		<-done
		for _, line := range s.life.logs {
			t.Log(line)
		}
	})
	switch {
	case s.life.skipped:
		t.Skip(s.life.reason)
	case s.life.failed:
		t.Fatalf("%s: %s", s.life.name, s.life.reason)
	}
	return s.value
}

// Close ends the part: its cleanups run, last registered first, as a test's do.
func (s *Shared[T]) Close() { s.life.close() }

// lifetime is the testing.TB a shared part is made with. The embedded TB is nil: it supplies the interface's
// unexported method, and only the methods below are ever called.
type lifetime struct {
	testing.TB
	name     string
	ctx      context.Context
	cancel   context.CancelFunc
	mu       sync.Mutex
	cleanups []func()
	logs     []string
	failed   bool
	skipped  bool
	reason   string
}

func newLifetime(name string) *lifetime {
	ctx, cancel := context.WithCancel(context.Background())
	return &lifetime{name: name, ctx: ctx, cancel: cancel}
}

func (l *lifetime) close() {
	l.cancel()
	l.mu.Lock()
	cleanups := l.cleanups
	l.cleanups = nil
	l.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

func (l *lifetime) Name() string             { return l.name }
func (l *lifetime) Helper()                  {}
func (l *lifetime) Context() context.Context { return l.ctx }

func (l *lifetime) Cleanup(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cleanups = append(l.cleanups, f)
}

func (l *lifetime) TempDir() string {
	dir, err := os.MkdirTemp("", "bench-bridge-shared-")
	if err != nil {
		l.Fatalf("TempDir: %v", err)
	}
	l.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (l *lifetime) Log(args ...any)                   { l.log(fmt.Sprint(args...)) }
func (l *lifetime) Logf(format string, args ...any)   { l.log(fmt.Sprintf(format, args...)) }
func (l *lifetime) Error(args ...any)                 { l.fail(fmt.Sprint(args...)) }
func (l *lifetime) Errorf(format string, args ...any) { l.fail(fmt.Sprintf(format, args...)) }
func (l *lifetime) Fatal(args ...any)                 { l.Error(args...); runtime.Goexit() }
func (l *lifetime) Fatalf(format string, args ...any) { l.Errorf(format, args...); runtime.Goexit() }
func (l *lifetime) Fail()                             { l.fail("failed") }
func (l *lifetime) FailNow()                          { l.Fail(); runtime.Goexit() }
func (l *lifetime) Failed() bool                      { return l.failed }
func (l *lifetime) Skip(args ...any)                  { l.skip(fmt.Sprint(args...)) }
func (l *lifetime) Skipf(format string, args ...any)  { l.skip(fmt.Sprintf(format, args...)) }
func (l *lifetime) SkipNow()                          { l.skip("skipped") }
func (l *lifetime) Skipped() bool                     { return l.skipped }

// Setenv and Chdir would change the whole test binary for as long as the part lives: a shared part may not.
func (l *lifetime) Setenv(key, _ string) {
	l.Fatalf("%s may not set %s: the environment is each test's", l.name, key)
}
func (l *lifetime) Chdir(dir string) {
	l.Fatalf("%s may not change to %s: the directory is each test's", l.name, dir)
}

func (l *lifetime) log(line string) { l.logs = append(l.logs, line) }

func (l *lifetime) fail(reason string) {
	if !l.failed {
		l.reason = reason
	}
	l.failed = true
}

func (l *lifetime) skip(reason string) {
	l.skipped, l.reason = true, reason
	runtime.Goexit()
}
