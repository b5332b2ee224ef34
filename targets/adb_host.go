package targets

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/textsafe"
)

// The adb server's host protocol (a hex length, then the request; OKAY or FAIL with a message) is spoken here
// directly: the device list (gadb v0.1.0 drops lines without product/model), device states, features, shell_v2, whose
// framing carries stderr and the exit status, and file transfer over sync:, each bounded by its context.

// adbServer is the address of the adb server: the -H and -P of the overrides, else ANDROID_ADB_SERVER_ADDRESS and
// ANDROID_ADB_SERVER_PORT as adb reads them, else localhost:5037.
func adbServer(o Overrides) (string, error) {
	host, port := "127.0.0.1", 5037
	if h := os.Getenv("ANDROID_ADB_SERVER_ADDRESS"); h != "" {
		host = h
	}
	if p := os.Getenv("ANDROID_ADB_SERVER_PORT"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("ANDROID_ADB_SERVER_PORT is %q, want a port number", p)
		}
		port = n
	}
	if o.ADBHost != "" {
		host = o.ADBHost
	}
	if o.ADBPort != 0 {
		if o.ADBPort < 0 || o.ADBPort > 65535 {
			return "", fmt.Errorf("adb server port (-P) %d: want a port number", o.ADBPort)
		}
		port = o.ADBPort
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// adbHost is a connection to the adb server.
type adbHost struct {
	addr string
}

// dial connects to the server, starting it with the adb command when it is not running, as adb itself does.
func (h adbHost) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", h.addr)
	if err == nil {
		return c, nil
	}
	host, port, _ := net.SplitHostPort(h.addr)
	if !isLoopback(host) {
		// adb starts a server on this machine only: one on a lab host is started there.
		return nil, fmt.Errorf("no adb server answers at %s: %w (start it on that host: adb -a -P %s server nodaemon)", h.addr, err, port)
	}
	if _, lookErr := exec.LookPath("adb"); lookErr != nil {
		return nil, fmt.Errorf("no adb server at %s, and adb is not installed to start one: apt-get install adb, "+
			"or Android's platform-tools", h.addr)
	}
	start, cancel := context.WithTimeout(ctx, shortOp)
	defer cancel()
	if out, err := exec.CommandContext(start, "adb", "-P", port, "start-server").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("no adb server at %s and adb start-server failed: %v: %s", h.addr, err, strings.TrimSpace(string(out)))
	}
	if c, err = d.DialContext(ctx, "tcp", h.addr); err != nil {
		return nil, fmt.Errorf("adb server at %s: %w", h.addr, err)
	}
	return c, nil
}

// isLoopback reports whether host names this machine's loopback, where adb would start a server of its own.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// request sends one host request and reads the server's OKAY, or returns the FAIL message as an error.
func request(c net.Conn, req string) error {
	if _, err := fmt.Fprintf(c, "%04x%s", len(req), req); err != nil {
		return err
	}
	var status [4]byte
	if _, err := io.ReadFull(c, status[:]); err != nil {
		return fmt.Errorf("adb server closed the connection: %w", err)
	}
	switch string(status[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := readHex(c)
		if err != nil {
			return err
		}
		return errors.New(textsafe.Line(msg)) // the server's message, shown on a terminal
	}
	return fmt.Errorf("adb server answered %q", status)
}

// readHex reads a hex length-prefixed string.
func readHex(c io.Reader) (string, error) {
	var n [4]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return "", err
	}
	size, err := strconv.ParseUint(string(n[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("adb server sent a bad length %q", n)
	}
	b := make([]byte, size)
	_, err = io.ReadFull(c, b)
	return string(b), err
}

// query sends a host request that answers with one string (host:devices-l, host-serial:S:features).
func (h adbHost) query(ctx context.Context, req string) (string, error) {
	c, err := h.dial(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if err := request(c, req); err != nil {
		return "", err
	}
	return readHex(c)
}

// adbDevice is one line of `adb devices -l`.
type adbDevice struct {
	Serial, State, Model string
}

func (h adbHost) devices(ctx context.Context) ([]adbDevice, error) {
	out, err := h.query(ctx, "host:devices-l")
	if err != nil {
		return nil, fmt.Errorf("listing devices: %w", err)
	}
	return parseDevices(out), nil
}

// parseDevices reads the server's answer to host:devices-l: a serial, a state, then key:value fields that may all be
// missing ("127.0.0.1:6001 device transport_id:2" from adbd on a Linux board, a device in recovery or coming up) or
// include a usb path. A serial holds no spaces; "no permissions" is a state of two words, followed by a hint in
// brackets before the fields.
func parseDevices(out string) []adbDevice {
	var list []adbDevice
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		d := adbDevice{Serial: f[0], State: f[1]}
		if f[1] == "no" && len(f) > 2 && f[2] == "permissions" {
			d.State = "no permissions"
		}
		for _, kv := range f[2:] {
			if m, ok := strings.CutPrefix(kv, "model:"); ok {
				d.Model = m
			}
		}
		list = append(list, d)
	}
	return list
}

// syncChunk is the largest DATA packet of adb's sync protocol.
const syncChunk = 64 * 1024

// push copies r to remote on the device with mode through the sync: service (SEND path,mode; DATA chunks; DONE
// mtime; OKAY or FAIL), cut when ctx ends.
func (h adbHost) push(ctx context.Context, serial string, r io.Reader, remote string, mode os.FileMode, mtime time.Time) error {
	c, err := h.service(ctx, serial, "sync:")
	if err != nil {
		return err
	}
	defer c.Close()
	w := bufio.NewWriterSize(c, syncChunk+8)
	writeSync(w, "SEND", uint32(len(remote)+1+len(strconv.Itoa(int(mode)))), []byte(remote+","+strconv.Itoa(int(mode))))
	buf := make([]byte, syncChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			writeSync(w, "DATA", uint32(n), buf[:n])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	writeSync(w, "DONE", uint32(mtime.Unix()), nil)
	if err := w.Flush(); err != nil {
		return syncErr(ctx, err)
	}
	id, n, err := readSync(c)
	if err != nil {
		return syncErr(ctx, err)
	}
	msg := make([]byte, n)
	if id == "FAIL" {
		if _, err := io.ReadFull(c, msg); err != nil {
			return syncErr(ctx, err)
		}
		return errors.New(string(msg))
	}
	if id != "OKAY" {
		return fmt.Errorf("sync: adbd answered %q to SEND", id)
	}
	return nil
}

// pull copies remote from the device to w through the sync: service (RECV path; DATA chunks up to DONE, or FAIL).
func (h adbHost) pull(ctx context.Context, serial, remote string, w io.Writer) error {
	c, err := h.service(ctx, serial, "sync:")
	if err != nil {
		return err
	}
	defer c.Close()
	bw := bufio.NewWriter(c)
	writeSync(bw, "RECV", uint32(len(remote)), []byte(remote))
	if err := bw.Flush(); err != nil {
		return syncErr(ctx, err)
	}
	for {
		id, n, err := readSync(c)
		if err != nil {
			return syncErr(ctx, err)
		}
		switch id {
		case "DONE":
			return nil
		case "DATA":
			if _, err := io.CopyN(w, c, int64(n)); err != nil {
				return syncErr(ctx, err)
			}
		case "FAIL":
			msg := make([]byte, n)
			if _, err := io.ReadFull(c, msg); err != nil {
				return syncErr(ctx, err)
			}
			return errors.New(string(msg))
		default:
			return fmt.Errorf("sync: adbd answered %q to RECV", id)
		}
	}
}

func writeSync(w *bufio.Writer, id string, n uint32, data []byte) {
	w.WriteString(id)
	binary.Write(w, binary.LittleEndian, n)
	w.Write(data)
}

func readSync(r io.Reader) (string, uint32, error) {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", 0, err
	}
	return string(head[:4]), binary.LittleEndian.Uint32(head[4:]), nil
}

// syncErr names a transfer cut by ctx, or by the device going away.
func syncErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("the connection ended during the transfer: the device went away (%v)", err)
}

// shell_v2 packet ids (adb's shell_protocol.h).
const (
	shellStdout = 1
	shellStderr = 2
	shellExit   = 3
)

// errDeviceLost is a shell stream that ended without an exit status: the device or its adbd went away.
var errDeviceLost = errors.New("the connection ended before the program's exit status came back: the device went away")

// shellV2 runs command on the device through the shell_v2 service and returns its exit status. It runs until the
// command ends or ctx is done; closing the stream is all it does then (the caller kills the program).
func (h adbHost) shellV2(ctx context.Context, serial, command string, stdout, stderr io.Writer) (int, error) {
	c, err := h.service(ctx, serial, "shell,v2,raw:"+command)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return readShellV2(ctx, bufio.NewReaderSize(c, 64*1024), stdout, stderr)
}

// readShellV2 copies shell_v2 packets (one id byte, a little-endian uint32 length, the data) from r to stdout and
// stderr until the exit packet, and returns the status it carries. Packets of other ids are skipped; a stream that
// ends first is the device going away.
func readShellV2(ctx context.Context, r io.Reader, stdout, stderr io.Writer) (int, error) {
	var head [5]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, errDeviceLost
		}
		n := int64(binary.LittleEndian.Uint32(head[1:]))
		var dst io.Writer = io.Discard
		switch head[0] {
		case shellStdout:
			dst = stdout
		case shellStderr:
			dst = stderr
		case shellExit:
			var status [1]byte
			if n != 1 {
				return 0, fmt.Errorf("shell_v2 exit packet of %d bytes, want 1", n)
			}
			if _, err := io.ReadFull(r, status[:]); err != nil {
				return 0, errDeviceLost
			}
			return int(status[0]), nil
		}
		if _, err := io.CopyN(dst, r, n); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, errDeviceLost
		}
	}
}

// shellLegacy runs command through the plain shell: service of adbd before Android 7, which merges nothing only
// because the command sends its stderr to a file, and reports no exit status, so the command prints it after a
// marker line that the program cannot produce by chance.
func (h adbHost) shellLegacy(ctx context.Context, serial, command, errFile string, stdout, stderr io.Writer) (int, error) {
	marker := "bench-bridge-exit-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	// sh -c keeps the command's $$ its own, as under shell_v2, for Run's pid file.
	wrapped := "sh -c " + shellQuote(command) + " 2>" + shellQuote(errFile) + "; s=$?; echo; echo " + marker + " $s"
	c, err := h.service(ctx, serial, "shell:"+wrapped)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	status, err := readLegacy(c, marker, stdout)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, err
	}
	var errOut strings.Builder
	if err := h.shellV1Output(ctx, serial, "cat "+shellQuote(errFile)+"; rm -f "+shellQuote(errFile), &errOut); err == nil {
		io.WriteString(stderr, errOut.String())
	}
	return status, nil
}

// readLegacy copies the plain shell's output from r to stdout up to the marker line that shellLegacy's command
// prints after the program, and returns the exit status on it (0 to 255). Lines hold a CR at their end on old adbd's
// pty; the empty line echoed before the marker is not the program's.
func readLegacy(r io.Reader, marker string, stdout io.Writer) (int, error) {
	// Hold back one line: the echo before the marker ends the program's last line, or adds an empty one.
	var held *string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxShellLine)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r") // old adbd runs shell: on a pty, which sends CRLF
		if rest, ok := strings.CutPrefix(line, marker+" "); ok {
			status, err := strconv.Atoi(rest)
			if err != nil || status < 0 || status > 255 {
				return 0, fmt.Errorf("the plain shell's exit marker carries %q, not an exit status", rest)
			}
			if held != nil && *held != "" {
				fmt.Fprintln(stdout, *held)
			}
			return status, nil
		}
		if held != nil {
			fmt.Fprintln(stdout, *held)
		}
		held = &line
	}
	if held != nil {
		fmt.Fprintln(stdout, *held)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return 0, fmt.Errorf("the program printed a line longer than %d MiB (the plain shell's line cap)", maxShellLine>>20)
	}
	return 0, errDeviceLost
}

// maxShellLine is the longest output line the plain shell passes on: a bench program's line cap.
const maxShellLine = 1 << 20

// shellV1Output runs a short command through the plain shell: service and collects what it prints.
func (h adbHost) shellV1Output(ctx context.Context, serial, command string, out io.Writer) error {
	c, err := h.service(ctx, serial, "shell:"+command)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = io.Copy(out, c)
	return err
}

// service opens a device service through the server; the connection is cut when ctx ends. Opening it has a bound
// of its own, since a server may answer host:transport and then never the service request.
func (h adbHost) service(ctx context.Context, serial, name string) (*serviceConn, error) {
	c, err := h.dial(ctx)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	c.SetDeadline(time.Now().Add(openOp))
	err = request(c, "host:transport:"+serial)
	if err == nil {
		err = request(c, name)
	}
	if err == nil {
		c.SetDeadline(time.Time{})
		err = ctx.Err() // cancelled while the deadline was being cleared
	}
	if err != nil {
		stop()
		c.Close()
		service, _, _ := strings.Cut(name, ":")
		step := "opening adb service " + service + " on " + serial
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			return nil, &TimeoutError{Step: step, Bound: openOp}
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", step, ctx.Err())
		}
		return nil, err
	}
	return &serviceConn{c, stop}, nil
}

type serviceConn struct {
	net.Conn
	stop func() bool
}

func (s *serviceConn) Close() error {
	s.stop()
	return s.Conn.Close()
}
