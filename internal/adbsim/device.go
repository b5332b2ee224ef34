// Package adbsim is a simulated Android device for tests: it speaks the adbd wire protocol over loopback TCP so that
// the real adb server accepts it with `adb connect`, keeps the device's filesystem in a temporary directory, answers
// getprop, uname and dumpsys from fixtures, and runs pushed ARM binaries under qemu-user. Tests of a device's normal
// life use Debian's real adbd (internal/devroot); this simulator is for the faults real adbd cannot be made to
// produce: a connection dropped at a chosen byte of a program's output, a device that stays offline or unauthorized.
package adbsim

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Options describe the device.
type Options struct {
	// Props are what getprop prints.
	Props map[string]string
	// Files are fixture files by their path on the device (/proc/cpuinfo, /sys/...).
	Files map[string]string
	// Uname is what uname -s, -r and -m print.
	Uname [3]string
	// QEMU is the command that runs the device's binaries on this machine, e.g. ["qemu-aarch64"]; nil runs them
	// directly.
	QEMU []string
	// ThermalStatus is what `dumpsys thermalservice` reports (0 none ... 6 shutdown).
	ThermalStatus int
	// NoShellV2 leaves shell_v2 out of the device's features, as adbd before Android 7 did.
	NoShellV2 bool
	// Unauthorized answers the connection with AUTH and refuses every key: the state of a phone whose user has
	// not accepted this computer.
	Unauthorized bool
	// Offline accepts the connection and never answers it.
	Offline bool
}

// Device is a running simulated device.
type Device struct {
	opts Options
	ln   net.Listener
	root string // the device's "/" on this machine
	bin  string // real binaries behind the qemu wrappers

	mu      sync.Mutex
	conns   []net.Conn
	pids    []int
	dropped bool
	dropOn  []byte // drop the connection when a shell's stdout contains this
	wg      sync.WaitGroup
}

// Start starts a device on a loopback port; the test's cleanup stops it.
func Start(t testing.TB, opts Options) *Device {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &Device{opts: opts, ln: ln, root: t.TempDir(), bin: t.TempDir()}
	if err := d.layout(); err != nil {
		ln.Close()
		t.Fatal(err)
	}
	d.wg.Add(1)
	go d.accept()
	t.Cleanup(d.Close)
	return d
}

// Addr is the device's host:port, which is also its serial once adb has connected.
func (d *Device) Addr() string { return d.ln.Addr().String() }

// Root is the directory that holds the device's filesystem.
func (d *Device) Root() string { return d.root }

// DropWhen makes the device vanish (connection closed, no longer listening) as soon as a shell's stdout contains
// marker.
func (d *Device) DropWhen(marker string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropOn = []byte(marker)
}

// Running lists the processes the device started that still exist (zombies excluded).
func (d *Device) Running() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	var alive []int
	for _, pid := range d.pids {
		if processAlive(pid) {
			alive = append(alive, pid)
		}
	}
	return alive
}

// Close drops every connection, kills what the device started and stops listening.
func (d *Device) Close() {
	d.drop()
	d.mu.Lock()
	for _, pid := range d.pids {
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGCONT)
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// drop closes the listener and every connection: the device is gone.
func (d *Device) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropped = true
	d.ln.Close()
	for _, c := range d.conns {
		c.Close()
	}
}

func (d *Device) accept() {
	defer d.wg.Done()
	for {
		c, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		if d.dropped {
			d.mu.Unlock()
			c.Close()
			return
		}
		d.conns = append(d.conns, c)
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			newConn(d, c).serve()
		}()
	}
}

// trigger finds the drop marker in a shell's stdout, p following seen. It returns how much of p to send (up to the
// end of the marker's line) and the fault to apply then, or a nil fault.
func (d *Device) trigger(seen, p []byte) (int, func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dropOn == nil {
		return len(p), nil
	}
	all := append(append([]byte(nil), seen...), p...)
	i := bytes.Index(all, d.dropOn)
	if i < 0 {
		return len(p), nil
	}
	end := i + len(d.dropOn)
	if j := bytes.IndexByte(all[end:], '\n'); j >= 0 {
		end += j + 1
	} else {
		end = len(all)
	}
	return max(end-len(seen), 0), d.drop
}

func (d *Device) started(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pids = append(d.pids, pid)
}

// banner is the device's CNXN payload: identity and features, as adbd sends them.
func (d *Device) banner() []byte {
	p := d.opts.Props
	features := "shell_v2,cmd"
	if d.opts.NoShellV2 {
		features = "cmd"
	}
	return []byte("device::ro.product.name=" + p["ro.product.name"] + ";ro.product.model=" + p["ro.product.model"] +
		";ro.product.device=" + p["ro.product.device"] + ";features=" + features)
}

// conn is one adb server's connection to the device.
type conn struct {
	dev     *Device
	c       net.Conn
	wmu     sync.Mutex
	mu      sync.Mutex
	streams map[uint32]*stream
	nextID  uint32
	maxData int
}

func newConn(d *Device, c net.Conn) *conn {
	return &conn{dev: d, c: c, streams: map[uint32]*stream{}, nextID: 1, maxData: maxPayload}
}

func (c *conn) send(p packet) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.c.Write(p.encode())
	return err
}

func (c *conn) serve() {
	defer c.c.Close()
	defer c.closeAll()
	for {
		p, err := readPacket(c.c)
		if err != nil {
			return
		}
		switch p.cmd {
		case aCNXN:
			if c.dev.opts.Offline {
				continue
			}
			if c.dev.opts.Unauthorized {
				c.send(packet{cmd: aAUTH, arg0: authToken, data: bytes.Repeat([]byte{7}, 20)})
				continue
			}
			if int(p.arg1) < c.maxData {
				c.maxData = int(p.arg1)
			}
			c.send(packet{cmd: aCNXN, arg0: aVersion, arg1: maxPayload, data: c.dev.banner()})
		case aAUTH:
			// Every signature is refused; a public key is "shown to the user", who never answers.
			if p.arg0 != authRSAKey {
				c.send(packet{cmd: aAUTH, arg0: authToken, data: bytes.Repeat([]byte{7}, 20)})
			}
		case aOPEN:
			c.open(p.arg0, strings.TrimRight(string(p.data), "\x00"))
		case aOKAY:
			if s := c.stream(p.arg1); s != nil {
				s.ready()
			}
		case aWRTE:
			if s := c.stream(p.arg1); s != nil {
				s.in.write(p.data)
				c.send(packet{cmd: aOKAY, arg0: s.local, arg1: s.remote})
			}
		case aCLSE:
			if s := c.stream(p.arg1); s != nil {
				s.closed()
			}
		}
	}
}

func (c *conn) stream(id uint32) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

func (c *conn) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.streams {
		s.closed()
	}
}

// open starts a service on a new stream.
func (c *conn) open(remote uint32, service string) {
	handler := c.dev.service(service)
	if handler == nil {
		c.send(packet{cmd: aCLSE, arg1: remote})
		return
	}
	c.mu.Lock()
	s := &stream{c: c, local: c.nextID, remote: remote, okay: make(chan struct{}, 1), done: make(chan struct{}),
		in: newPipe()}
	c.nextID++
	c.streams[s.local] = s
	c.mu.Unlock()
	c.send(packet{cmd: aOKAY, arg0: s.local, arg1: remote})
	s.okay <- struct{}{}
	c.dev.wg.Add(1)
	go func() {
		defer c.dev.wg.Done()
		handler(s)
		s.Close()
	}()
}

// stream is one adb socket: the service reads what the server writes and writes back with flow control (one
// WRTE in flight until the server's OKAY).
type stream struct {
	c             *conn
	local, remote uint32
	okay          chan struct{}
	done          chan struct{}
	once          sync.Once
	in            *pipe
}

func (s *stream) ready() {
	select {
	case s.okay <- struct{}{}:
	default:
	}
}

func (s *stream) closed() {
	s.once.Do(func() {
		close(s.done)
		s.in.close()
	})
}

var errStreamClosed = errors.New("stream closed")

func (s *stream) Read(p []byte) (int, error) { return s.in.Read(p) }

func (s *stream) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		select {
		case <-s.okay:
		case <-s.done:
			return written, errStreamClosed
		}
		n := min(len(p), s.c.maxData)
		if err := s.c.send(packet{cmd: aWRTE, arg0: s.local, arg1: s.remote, data: p[:n]}); err != nil {
			return written, err
		}
		written += n
		p = p[n:]
	}
	return written, nil
}

// Close closes the stream from the device's side.
func (s *stream) Close() error {
	select {
	case <-s.done:
	default:
		s.c.send(packet{cmd: aCLSE, arg0: s.local, arg1: s.remote})
	}
	s.closed()
	s.c.mu.Lock()
	delete(s.c.streams, s.local)
	s.c.mu.Unlock()
	return nil
}

// pipe is an unbounded in-memory byte queue: WRTE data waiting for the service to read it.
type pipe struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
}

func newPipe() *pipe {
	p := &pipe{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pipe) write(b []byte) {
	p.mu.Lock()
	p.buf = append(p.buf, b...)
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *pipe) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buf) == 0 && !p.closed {
		p.cond.Wait()
	}
	if len(p.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	return n, nil
}

func processAlive(pid int) bool {
	b, err := readFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state is the field after the parenthesised command name; Z is a zombie.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}
