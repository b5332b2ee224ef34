package targets

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// novacomdTokenize splits a command line as novacomd does on the device (tokenize() in src/novacom/commands.c of
// openwebos/novacomd): at white space; inside a token a backslash takes the next character as is; a token's first
// character is always taken as is.
func novacomdTokenize(line string) []string {
	var toks []string
	var cur []byte
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case strings.IndexByte(" \t\n\v\f\r", c) >= 0:
			if in {
				toks, cur, in = append(toks, string(cur)), nil, false
			}
		case !in:
			cur, in = append(cur, c), true
		case c == '\\':
			if i+1 < len(line) {
				i++
				cur = append(cur, line[i])
			}
		default:
			cur = append(cur, c)
		}
	}
	if in {
		toks = append(toks, string(cur))
	}
	return toks
}

// sent is what the novacom client sends for argv: its options dropped, the rest joined with spaces.
func sent(argv []string) string {
	var words []string
	for i := 0; i < len(argv); i++ {
		switch argv[i] {
		case "-d":
			i++
		case "--":
		default:
			words = append(words, argv[i])
		}
	}
	return strings.Join(words, " ")
}

func TestNovacomCommandLines(t *testing.T) {
	n := &novacomConn{label: "touchpad", devID: "usb"}
	argv, err := n.args("put", "/media/internal/bench bridge/floor")
	if want := []string{"-d", "usb", "put", `file:///media/internal/bench\ bridge/floor`}; err != nil || !reflect.DeepEqual(argv, want) {
		t.Errorf("put: %q, %v; want %q", argv, err, want)
	}
	argv, _ = (&novacomConn{}).args("get", "/tmp/x")
	if want := []string{"get", "file:///tmp/x"}; !reflect.DeepEqual(argv, want) {
		t.Errorf("get without a device: %q; want %q", argv, want)
	}
	kill := killScript("/tmp/bench-bridge-x/.run-1.pid")
	argv, _ = n.execArgs(kill)
	want := []string{"run", "file:///bin/sh", "-c", "/bin/sh -c " + shellQuote(kill) + `; echo "` + exitMarker + `$?" >&2`}
	if got := novacomdTokenize(sent(argv)); !reflect.DeepEqual(got, want) {
		t.Errorf("kill: %q", got)
	}
	if argv[2] != "run" || argv[4] != "--" {
		t.Errorf("run: %q: the program's arguments must follow --, or novacom's getopt takes them", argv)
	}
}

// TestNovacomRunScript decodes the run command as the device would and runs it in this machine's sh: the program
// gets its arguments whole, the pid file has its pid, and the exit marker carries its status.
func TestNovacomRunScript(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bench dir; it's")
	os.MkdirAll(dir, 0o755)
	prog := filepath.Join(dir, `prog "x" $(touch INJECTED)`)
	os.WriteFile(prog, []byte("#!/bin/sh\nprintf '[%s]\\n' \"$@\"\necho $$ > own.pid\nexit 7\n"), 0o755)
	args := []string{"two words", "it's", "semi;colon; touch INJECTED", `back\slash`, "$(touch INJECTED)", "tab\there", "-"}
	n := &novacomConn{label: "touchpad"}
	pidFile := filepath.Join(dir, ".run-1.pid")
	argv, err := n.execArgs(runScript(dir, pidFile, []string{"env", "A=1"}, prog, args))
	if err != nil {
		t.Fatal(err)
	}
	toks := novacomdTokenize(sent(argv))
	if len(toks) != 4 || toks[0] != "run" || toks[1] != "file:///bin/sh" || toks[2] != "-c" {
		t.Fatalf("tokens %q", toks)
	}
	var stdout, stderr bytes.Buffer
	status := &exitFilter{w: &stderr}
	cmd := exec.Command("/bin/sh", "-c", toks[3])
	cmd.Stdout, cmd.Stderr = &stdout, status
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, a := range args {
		want += "[" + a + "]\n"
	}
	code, ok := status.result()
	if stdout.String() != want || !ok || code != 7 || stderr.Len() != 0 {
		t.Errorf("stdout %q (want %q), status %d %v, stderr %q", stdout.String(), want, code, ok, stderr.String())
	}
	recorded, _ := os.ReadFile(pidFile)
	own, _ := os.ReadFile(filepath.Join(dir, "own.pid"))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(recorded))); err != nil || pid <= 0 || string(recorded) != string(own) {
		t.Errorf("pid file %q, the program's own pid %q: exec must keep the pid", recorded, own)
	}
	var exit *ExitError
	if err := exitStatus(code); !errors.As(err, &exit) || exit.Status != 7 {
		t.Errorf("status 7: %v", err)
	}
	if err := exitStatus(139); !errors.As(err, &exit) || exit.Signal != "SIGSEGV" {
		t.Errorf("status 139: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "INJECTED")); err == nil {
		t.Error("an argument was executed")
	}
}

func TestNovacomRefusesWhatItCannotCarry(t *testing.T) {
	n := &novacomConn{label: "touchpad"}
	for _, arg := range []string{"", "two\nlines", " leading", `\start`, "trailing "} {
		if _, err := n.args("run", "/bin/echo", arg); err == nil || !strings.Contains(err.Error(), "novacom cannot pass") {
			t.Errorf("%q: %v", arg, err)
		}
	}
	if _, err := n.args("run", "/bin/echo", strings.Repeat("x", novacomMaxCommand)); err == nil || !strings.Contains(err.Error(), "longer than novacom takes") {
		t.Errorf("long command: %v", err)
	}
}

func TestExitFilterKeepsStderr(t *testing.T) {
	var stderr bytes.Buffer
	f := &exitFilter{w: &stderr}
	for _, p := range []string{"warn", "ing\nbench-bridge-", "exit 3\n", "last words"} {
		f.Write([]byte(p))
	}
	if code, ok := f.result(); !ok || code != 3 || stderr.String() != "warning\nlast words" {
		t.Errorf("status %d %v, stderr %q", code, ok, stderr.String())
	}
	f = &exitFilter{w: &bytes.Buffer{}}
	f.Write([]byte("novacomd socket was closed prematurely\n"))
	if _, ok := f.result(); ok || f.tail() != "novacomd socket was closed prematurely" {
		t.Errorf("lost device: ok=%v tail %q", ok, f.tail())
	}
}

func TestNovacomMissingSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewNovacom("touchpad", Spec{Kind: "novacom"}, Overrides{})
	if err == nil || !strings.Contains(err.Error(), "novacom not found") || !strings.Contains(err.Error(), "touchpad") {
		t.Fatalf("%v", err)
	}
}
