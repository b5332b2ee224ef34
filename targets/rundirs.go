package targets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run directory is recorded on this machine while it exists on the device, so that one left behind by a
// connection that dropped (or a bench-bridge that was killed) is removed at the next connection to that device.
// A record is a file in the cache: the device's machine name, the pid of the bench-bridge that made the directory,
// and the directory.

// recordsDir is where the records live: $BENCH_BRIDGE_CACHE/run-dirs, as the build cache.
func recordsDir() (string, error) {
	if d := os.Getenv("BENCH_BRIDGE_CACHE"); d != "" {
		return filepath.Join(d, "run-dirs"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "bench-bridge", "run-dirs"), nil
}

// recordRunDir records dir on machine for this process and returns the record's path ("" when it cannot be
// written: the directory is then only removed by this run's cleanup).
func recordRunDir(machine, dir string) string {
	rd, err := recordsDir()
	if err != nil || os.MkdirAll(rd, 0o700) != nil {
		return ""
	}
	var b [6]byte
	rand.Read(b[:])
	file := filepath.Join(rd, hex.EncodeToString(b[:]))
	if os.WriteFile(file, []byte(machine+"\n"+strconv.Itoa(os.Getpid())+"\n"+dir+"\n"), 0o600) != nil {
		return ""
	}
	return file
}

// forgetRunDir removes a record once its directory is gone.
func forgetRunDir(record string) {
	if record != "" {
		os.Remove(record)
	}
}

// recordLife is how long a record of a directory left behind is kept for the device to come back.
const recordLife = 30 * 24 * time.Hour

// leftRunDir is a recorded directory whose bench-bridge is gone.
type leftRunDir struct{ record, dir string }

// leftRunDirs lists the directories on machine that processes no longer running made.
func leftRunDirs(machine string) []leftRunDir {
	rd, err := recordsDir()
	if err != nil {
		return nil
	}
	entries, _ := os.ReadDir(rd)
	var left []leftRunDir
	for _, e := range entries {
		file := filepath.Join(rd, e.Name())
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > recordLife {
			os.Remove(file) // a device not seen for that long is not coming back under that name
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		f := strings.SplitN(string(b), "\n", 4)
		if len(f) < 3 || f[0] != machine {
			continue
		}
		pid, err := strconv.Atoi(f[1])
		if err != nil || !processGone(pid) {
			continue
		}
		left = append(left, leftRunDir{record: file, dir: f[2]})
	}
	return left
}

// processGone reports whether no process pid runs on this machine.
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// sweep removes what earlier runs left on this device, each within its bound; a failure only delays it.
func (r *device) sweep(ctx context.Context) {
	for _, l := range leftRunDirs(r.machine) {
		if !strings.HasPrefix(path.Base(l.dir), runDirPrefix) {
			forgetRunDir(l.record) // not one of ours: never removed
			continue
		}
		if err := r.remove(ctx, l.dir); err != nil {
			fmt.Fprintf(r.log, "%s: warning: could not remove %s, left by an earlier run: %v\n", r.label, l.dir, err)
			continue
		}
		forgetRunDir(l.record)
		fmt.Fprintf(r.log, "%s: removed %s, left on the device by an earlier run that lost its connection\n", r.label, l.dir)
	}
}
