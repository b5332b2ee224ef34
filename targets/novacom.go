package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Novacom is a webOS device over USB, reached through Palm's novacom command-line client and its novacomd daemon,
// for devices without sshd. The device is named by --host or host in the spec (an nduid, or a connection or device
// type that novacom -d matches); empty means the first device novacomd lists.
type Novacom struct {
	*device
}

// novacomConn is the novacom transport: every command is a run of the client.
type novacomConn struct {
	label string
	devID string // what novacom -d takes
	bin   string // the novacom client
}

// novacomMaxCommand is what the client's command buffer holds (4096 bytes, copied without a bound check).
const novacomMaxCommand = 4000

// NewNovacom finds the novacom client for the target called name.
func NewNovacom(name string, spec Spec, o Overrides) (*Novacom, error) {
	bin, err := exec.LookPath("novacom")
	if err != nil {
		return nil, fmt.Errorf("target %s: novacom not found: install the novacom client and novacomd from Palm's webOS SDK "+
			"(or openwebos/novacom), or reach the device over ssh (kind = \"ssh\")", name)
	}
	c := &novacomConn{devID: pick(o.Host, spec.Host), bin: bin, label: name + " (novacom)"}
	if c.devID != "" {
		c.label = name + " (novacom " + c.devID + ")"
	}
	r, err := newDevice(deviceParts{name: name, label: c.label, machine: "novacom:" + c.devID,
		platform: Platform{Toolchain: pick(spec.Toolchain, "webos")}, workdir: pick(o.Workdir, spec.Workdir, "/tmp"),
		prefix: pick(o.RunPrefix, spec.RunPrefix), sysfs: spec.Sysfs, log: o.Log, tr: c, probe: linuxProbe})
	if err != nil {
		return nil, err
	}
	return &Novacom{device: r}, nil
}

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
func (c *novacomConn) args(verb, path string, args ...string) ([]string, error) {
	words := []string{verb, "file://" + novacomEscape(path)}
	for _, a := range append([]string{path}, args...) {
		if err := novacomWord(a); err != nil {
			return nil, fmt.Errorf("%s: %w", c.label, err)
		}
	}
	for _, a := range args {
		words = append(words, novacomEscape(a))
	}
	if size := len(strings.Join(words, " ")); size > novacomMaxCommand {
		return nil, fmt.Errorf("%s: command of %d bytes is longer than novacom takes (%d)", c.label, size, novacomMaxCommand)
	}
	var argv []string
	if c.devID != "" {
		argv = append(argv, "-d", c.devID)
	}
	argv = append(argv, words[:2]...)
	if len(args) > 0 {
		argv = append(append(argv, "--"), words[2:]...) // the rest is the program's, not novacom's options
	}
	return argv, nil
}

// exitMarker is the line the wrapper writes to stderr with the command's exit status: novacom's own status cannot
// tell a command's failure from a lost device.
const exitMarker = "bench-bridge-exit "

// execArgs runs command in a sh of its own under the device's /bin/sh, which then reports its status.
func (c *novacomConn) execArgs(command string) ([]string, error) {
	return c.args("run", "/bin/sh", "-c", "/bin/sh -c "+shellQuote(command)+`; echo "`+exitMarker+`$?" >&2`)
}

// novacom runs the client with argv until it ends or ctx does.
func (c *novacomConn) novacom(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, c.bin, argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// exec implements transport.
func (c *novacomConn) exec(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	argv, err := c.execArgs(command)
	if err != nil {
		return 0, err
	}
	status := &exitFilter{w: stderr}
	err = c.novacom(ctx, argv, stdin, stdout, status)
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	code, ok := status.result()
	if !ok {
		return 0, fmt.Errorf("novacom: %v: %s", err, status.tail())
	}
	return code, nil
}

// push implements transport with novacom put.
func (c *novacomConn) push(ctx context.Context, r io.Reader, remote string) error {
	return c.copy(ctx, "put", remote, r, io.Discard)
}

// pull implements transport with novacom get.
func (c *novacomConn) pull(ctx context.Context, remote string, w io.Writer) error {
	return c.copy(ctx, "get", remote, nil, w)
}

func (c *novacomConn) copy(ctx context.Context, verb, remote string, r io.Reader, w io.Writer) error {
	argv, err := c.args(verb, remote)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	if err := c.novacom(ctx, argv, r, w, &stderr); err != nil {
		return fmt.Errorf("novacom %s: %w: %s", verb, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// close implements transport: every command was a client of its own.
func (c *novacomConn) close() error { return nil }

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
