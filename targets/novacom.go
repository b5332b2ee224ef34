package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
)

// Novacom runs programs on a webOS device over USB through Palm's novacom command-line client and its novacomd
// daemon, for devices without sshd. The device is named by --host or host in the config (an nduid, or a
// connection or device type that novacom -d matches); empty means the first device novacomd lists.
type Novacom struct {
	remoteShell
	name  string
	devID string // what novacom -d takes
	bin   string // the novacom client
	tc    build.Toolchain
}

// novacomMaxCommand is what the client's command buffer holds (4096 bytes, copied without a bound check).
const novacomMaxCommand = 4000

// NewNovacom finds the novacom client for the target called name.
func NewNovacom(name string, spec config.Target, o Overrides) (*Novacom, error) {
	bin, err := exec.LookPath("novacom")
	if err != nil {
		return nil, fmt.Errorf("target %s: novacom not found: install the novacom client and novacomd from Palm's webOS SDK "+
			"(or openwebos/novacom), or reach the device over ssh (kind = \"ssh\")", name)
	}
	tc := build.Toolchains["webos"]
	if spec.Toolchain != "" {
		if tc, err = build.ToolchainNamed(spec.Toolchain); err != nil {
			return nil, fmt.Errorf("target %s: %w", name, err)
		}
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	n := &Novacom{name: name, devID: pick(o.Host, spec.Host), bin: bin, tc: tc}
	label := name + " (novacom)"
	if n.devID != "" {
		label = name + " (novacom " + n.devID + ")"
	}
	n.remoteShell = remoteShell{label: label, workdir: pick(o.Workdir, spec.Workdir, "/tmp"),
		prefix: strings.Fields(pick(o.RunPrefix, spec.RunPrefix)), log: log, run: n.shell, upload: n.put}
	return n, nil
}

// Name implements Target.
func (n *Novacom) Name() string { return n.name }

// Toolchain implements Target.
func (n *Novacom) Toolchain() build.Toolchain { return n.tc }

// novacomEscape writes one word so that novacomd's tokenizer gives it back whole: the client joins its arguments
// with spaces and the device splits at white space, taking a backslash to mean "the next character as is" (except
// for a token's first character, which it always takes as is).
func novacomEscape(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (r == '\\' || r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// novacomWord checks that novacom can carry w: the command is one line, and a token cannot start with white space
// or a backslash.
func novacomWord(w string) error {
	switch {
	case w == "":
		return errors.New("novacom cannot pass an empty argument")
	case strings.ContainsAny(w, "\n\x00"):
		return fmt.Errorf("novacom cannot pass an argument with a line break: %q", w)
	case strings.ContainsAny(w[:1], " \t\r\v\f\\") || strings.TrimRight(w, " \t\r\v\f") != w:
		return fmt.Errorf("novacom cannot pass an argument that starts with white space or a backslash, or ends with white space: %q", w)
	}
	return nil
}

// args is the client's command line for verb on path (file:// URLs) with the program's arguments.
func (n *Novacom) args(verb, path string, args ...string) ([]string, error) {
	words := []string{verb, "file://" + novacomEscape(path)}
	for _, a := range append([]string{path}, args...) {
		if err := novacomWord(a); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
	}
	for _, a := range args {
		words = append(words, novacomEscape(a))
	}
	if size := len(strings.Join(words, " ")); size > novacomMaxCommand {
		return nil, fmt.Errorf("%s: command of %d bytes is longer than novacom takes (%d)", n, size, novacomMaxCommand)
	}
	var argv []string
	if n.devID != "" {
		argv = append(argv, "-d", n.devID)
	}
	argv = append(argv, words[:2]...)
	if len(args) > 0 {
		argv = append(append(argv, "--"), words[2:]...) // the rest is the program's, not novacom's options
	}
	return argv, nil
}

// shellArgs runs script with the device's /bin/sh.
func (n *Novacom) shellArgs(script string) ([]string, error) {
	return n.args("run", "/bin/sh", "-c", script)
}

// exitMarker is the line the run wrapper writes to stderr with the program's exit status: novacom's own status
// cannot tell a program's failure from a lost device.
const exitMarker = "bench-bridge-exit "

// runArgs wraps program so that it prints its pid, runs in dir, and reports how it ended.
func (n *Novacom) runArgs(dir, program string, args []string) ([]string, error) {
	inner := runScript("", n.prefix, program, args)
	script := "cd " + shellPath(dir) + " && /bin/sh -c " + shellQuote(inner) + `; echo "` + exitMarker + `$?" >&2`
	return n.shellArgs(script)
}

// novacom runs the client with argv; it returns the client's error and its stderr.
func (n *Novacom) novacom(ctx context.Context, argv []string, stdin io.Reader, stdout io.Writer) (string, error) {
	cmd := exec.CommandContext(ctx, n.bin, argv...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stderr.String()), err
}

// shell runs a one-line script on the device and returns its stdout.
func (n *Novacom) shell(ctx context.Context, script string, stdin io.Reader) ([]byte, error) {
	argv, err := n.shellArgs(script)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if msg, err := n.novacom(ctx, argv, stdin, &out); err != nil {
		return nil, fmt.Errorf("%w: %s", err, msg)
	}
	return out.Bytes(), nil
}

// put copies r to the remote path.
func (n *Novacom) put(ctx context.Context, r io.Reader, remote string) error {
	argv, err := n.args("put", remote)
	if err != nil {
		return err
	}
	if msg, err := n.novacom(ctx, argv, r, io.Discard); err != nil {
		return fmt.Errorf("%w: %s", err, msg)
	}
	return nil
}

// Push implements Target with novacom put, then chmod.
func (n *Novacom) Push(ctx context.Context, local string) (string, error) { return n.push(ctx, local) }

// Pull implements Target with novacom get.
func (n *Novacom) Pull(ctx context.Context, remote, local string) error {
	argv, err := n.args("get", remote)
	if err != nil {
		return err
	}
	var data bytes.Buffer
	if msg, err := n.novacom(ctx, argv, nil, &data); err != nil {
		return n.fail("pull "+remote, fmt.Errorf("%w: %s", err, msg))
	}
	return os.WriteFile(local, data.Bytes(), 0o644)
}

// Run implements Target. When ctx ends the program is killed on the device by pid, then the client is stopped.
func (n *Novacom) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	dir, err := n.remoteDir(ctx)
	if err != nil {
		return err
	}
	argv, err := n.runArgs(dir, program, args)
	if err != nil {
		return err
	}
	pids, status := newPidFilter(stdout), &exitFilter{w: stderr}
	cmd := exec.Command(n.bin, argv...)
	cmd.Stdout, cmd.Stderr = pids, status
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting novacom: %w", n, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		n.kill(pids)
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s: %s: %w", n, program, ctx.Err())
	}
	code, ok := status.result()
	if !ok {
		return fmt.Errorf("%s: connection lost while running %s: %v: %s", n, program, err, status.tail())
	}
	return shellStatus(code)
}

// shellStatus reads a status as sh's $? reports it: 128+n for a program killed by signal n.
func shellStatus(code int) error {
	switch {
	case code == 0:
		return nil
	case code > 128 && code < 128+65:
		return &ExitError{Status: -1, Signal: signalName(syscall.Signal(code - 128))}
	}
	return &ExitError{Status: code}
}

// Device implements Target.
func (n *Novacom) Device(ctx context.Context) (artifact.Device, error) { return n.device(ctx) }

// Close implements Target: it removes the run's directory.
func (n *Novacom) Close() error { return n.cleanup() }

// exitFilter passes stderr through, minus the wrapper's exit line, whose status it keeps.
type exitFilter struct {
	w       io.Writer
	partial []byte
	status  int
	seen    bool
	last    []byte // the end of stderr, for a lost connection's message
}

func (f *exitFilter) Write(p []byte) (int, error) {
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			break
		}
		line := f.partial[:i+1]
		if v, ok := strings.CutPrefix(strings.TrimSpace(string(line)), exitMarker); ok {
			if code, err := strconv.Atoi(v); err == nil {
				f.status, f.seen = code, true
			}
		} else {
			f.keep(line)
			if _, err := f.w.Write(line); err != nil {
				return 0, err
			}
		}
		f.partial = f.partial[i+1:]
	}
	return len(p), nil
}

func (f *exitFilter) keep(b []byte) {
	f.last = append(f.last, b...)
	if len(f.last) > 1024 {
		f.last = f.last[len(f.last)-1024:]
	}
}

// result is the program's exit status, and whether the wrapper reported one.
func (f *exitFilter) result() (int, bool) {
	if len(f.partial) > 0 { // a last line without a newline
		f.keep(f.partial)
		f.w.Write(f.partial)
		f.partial = nil
	}
	return f.status, f.seen
}

func (f *exitFilter) tail() string { return strings.TrimSpace(string(f.last)) }
