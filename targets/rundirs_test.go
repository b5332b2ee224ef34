package targets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRunDirRecords: a directory recorded by a process that has ended is listed for its machine only; one of a
// process still running (this one) is not, and a forgotten record is gone.
func TestRunDirRecords(t *testing.T) {
	t.Setenv("BENCH_BRIDGE_CACHE", t.TempDir())
	mine := recordRunDir("ssh:board:22", "/tmp/bench-bridge-mine")
	if mine == "" {
		t.Fatal("no record written")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	rd, _ := recordsDir()
	dead := filepath.Join(rd, "dead")
	os.WriteFile(dead, []byte("ssh:board:22\n"+strconv.Itoa(gone.Process.Pid)+"\n/tmp/bench-bridge-left\n"), 0o600)
	os.WriteFile(filepath.Join(rd, "other"), []byte("adb:x\n"+strconv.Itoa(gone.Process.Pid)+"\n/data/local/tmp/bench-bridge-y\n"), 0o600)
	left := leftRunDirs("ssh:board:22")
	if len(left) != 1 || left[0].dir != "/tmp/bench-bridge-left" || left[0].record != dead {
		t.Fatalf("left %+v, want only the dead process's directory on this machine", left)
	}
	old := filepath.Join(rd, "old")
	os.WriteFile(old, []byte("ssh:board:22\n"+strconv.Itoa(gone.Process.Pid)+"\n/tmp/bench-bridge-old\n"), 0o600)
	month := time.Now().Add(-recordLife - time.Hour)
	os.Chtimes(old, month, month)
	if left := leftRunDirs("ssh:board:22"); len(left) != 1 {
		t.Errorf("with a record older than %s: %+v", recordLife, left)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a record older than %s was kept", recordLife)
	}
	forgetRunDir(mine)
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("record %s still there after forgetting it", mine)
	}
}
