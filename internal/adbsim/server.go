package adbsim

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// Server is a real adb server (Debian's adb) of the test's own: its own port and HOME, killed at cleanup.
type Server struct {
	Port     int
	home     string
	connects sync.WaitGroup
}

// StartServer starts an adb server; it fails in CI or skips elsewhere when adb is missing. The test's environment
// gets ANDROID_ADB_SERVER_PORT, so that any adb client in the test, bench-bridge included, talks to this server.
func StartServer(t testing.TB) *Server {
	t.Helper()
	s := NewServer(t)
	t.Setenv("ANDROID_ADB_SERVER_PORT", strconv.Itoa(s.Port))
	return s
}

// NewServer starts an adb server as StartServer does, leaving the environment alone: a server that several tests
// share (testenv.Shared) is pointed at by each of them.
func NewServer(t testing.TB) *Server {
	t.Helper()
	testenv.SkipInShort(t, "starts a real adb server")
	testenv.Require(t, "adb", "apt-get install adb (scripts/setup does it)")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{Port: port, home: t.TempDir()}
	t.Cleanup(s.connects.Wait) // after kill-server, which ends them
	t.Cleanup(func() { s.ADB("kill-server") })
	if out, err := s.ADB("start-server"); err != nil {
		t.Fatalf("adb start-server: %v\n%s", err, out)
	}
	return s
}

// ADB runs the adb command line against this server.
func (s *Server) ADB(args ...string) (string, error) {
	cmd := exec.Command("adb", append([]string{"-P", strconv.Itoa(s.Port)}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+s.home, "ANDROID_USER_HOME="+filepath.Join(s.home, ".android"))
	// The server daemonises and keeps the streams it inherited: give it a file, not a pipe that Output waits on.
	log, err := os.CreateTemp(s.home, "adb-*.log")
	if err != nil {
		return "", err
	}
	defer os.Remove(log.Name())
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	out, _ := os.ReadFile(log.Name())
	return string(out), err
}

// Connect has the server connect to d and waits until `adb devices` shows it in state want ("device", "offline",
// "unauthorized"). adb connect itself is not waited for: for a device that never answers it waits ten seconds.
func (s *Server) Connect(t testing.TB, d *Device, want string) {
	t.Helper()
	s.ConnectAddr(t, d.Addr(), want)
}

// ConnectAddr is Connect for any adbd at addr (HOST:PORT), a real one included.
func (s *Server) ConnectAddr(t testing.TB, addr, want string) {
	t.Helper()
	s.connects.Add(1)
	go func() {
		defer s.connects.Done()
		s.ADB("connect", addr)
	}()
	var out string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		out, _ = s.ADB("devices")
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == addr && f[1] == want {
				return
			}
		}
	}
	t.Fatalf("adb devices never listed %s as %s:\n%s", addr, want, out)
}
