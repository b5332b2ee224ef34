package adbsim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

var (
	readFile = os.ReadFile
	itoa     = strconv.Itoa
)

// service returns the handler of an adb service name, or nil for one the device does not offer.
func (d *Device) service(name string) func(*stream) {
	switch {
	case name == "sync:":
		return d.sync
	case strings.HasPrefix(name, "shell"):
		opts, command, ok := strings.Cut(name, ":")
		if !ok {
			return nil
		}
		v2 := strings.Contains(opts, "v2")
		if v2 && d.opts.NoShellV2 {
			return nil
		}
		return func(s *stream) { d.shell(s, command, v2) }
	}
	return nil
}

// shell_v2 packet ids.
const (
	idStdin      = 0
	idStdout     = 1
	idStderr     = 2
	idExit       = 3
	idCloseStdin = 4
)

// shell runs command with sh. With v2 the streams are framed (id, little-endian length, data) and the exit status
// comes last; without it stdout and stderr are merged and the status is lost, as with adbd's plain shell.
func (d *Device) shell(s *stream, command string, v2 bool) {
	cmd := exec.Command("sh", "-c", d.rewrite(command))
	cmd.Dir = d.root
	cmd.Env = []string{"PATH=" + filepath.Join(d.root, "system", "bin") + ":/usr/bin:/bin", "HOME=" + d.root}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var wmu sync.Mutex
	stopped := false
	var seen []byte
	frame := func(id byte, p []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		if stopped {
			return
		}
		// A fault comes right after the line that triggers it, which the client gets; the rest is never sent.
		fault := func() {}
		if id == idStdout {
			var n int
			if n, fault = d.trigger(seen, p); fault != nil {
				p, stopped = p[:n], true
			}
			seen = append(seen, p...)
		}
		if !v2 {
			s.Write(p)
		} else {
			h := make([]byte, 5, 5+len(p))
			h[0] = id
			binary.LittleEndian.PutUint32(h[1:], uint32(len(p)))
			s.Write(append(h, p...))
		}
		if stopped {
			fault()
		}
	}
	stdout, stderr := &framer{id: idStdout, f: frame}, &framer{id: idStderr, f: frame}
	if v2 {
		cmd.Stdout, cmd.Stderr = stdout, stderr
	} else {
		cmd.Stdout, cmd.Stderr = stdout, stdout
	}
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		frame(idStderr, []byte(err.Error()+"\n"))
		return
	}
	d.started(cmd.Process.Pid)
	go feedStdin(s, stdin, v2)
	err := cmd.Wait()
	wmu.Lock()
	faulted := stopped
	wmu.Unlock()
	if faulted {
		<-s.done // a hung program says nothing more, even if it ended: the client gives up first
		return
	}
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	}
	if v2 {
		frame(idExit, []byte{byte(status)})
	}
}

// feedStdin copies the client's stdin packets to the program until it closes stdin.
func feedStdin(s *stream, stdin io.WriteCloser, v2 bool) {
	defer stdin.Close()
	if !v2 {
		io.Copy(stdin, s)
		return
	}
	for {
		var h [5]byte
		if _, err := io.ReadFull(s, h[:]); err != nil {
			return
		}
		data := make([]byte, binary.LittleEndian.Uint32(h[1:]))
		if _, err := io.ReadFull(s, data); err != nil {
			return
		}
		switch h[0] {
		case idStdin:
			stdin.Write(data)
		case idCloseStdin:
			return
		}
	}
}

type framer struct {
	id byte
	f  func(byte, []byte)
}

func (w *framer) Write(p []byte) (int, error) {
	w.f(w.id, append([]byte(nil), p...))
	return len(p), nil
}

// devicePath matches the absolute paths of the device's own directories in a shell command.
var devicePath = regexp.MustCompile(`(^|[\s'"=:;(<>|])/(data|sdcard|sys|proc|system)(/|\b)`)

// rewrite points the command's device paths into the device's directory on this machine: the simulator has no
// root filesystem of its own.
func (d *Device) rewrite(command string) string {
	return devicePath.ReplaceAllString(command, "${1}"+d.root+"/${2}${3}")
}

// hostPath is where a device path lives on this machine.
func (d *Device) hostPath(p string) string {
	return filepath.Join(d.root, filepath.Clean("/"+p))
}

// Sync protocol replies.
func syncFail(s *stream, msg string) {
	s.Write(syncMsg("FAIL", uint32(len(msg)), []byte(msg)))
}

func syncMsg(id string, n uint32, data []byte) []byte {
	b := append([]byte(id), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], n)
	return append(b, data...)
}

// sync serves the file transfer service: STAT, LIST, SEND, RECV, QUIT.
func (d *Device) sync(s *stream) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(s, h[:]); err != nil {
			return
		}
		id, n := string(h[:4]), binary.LittleEndian.Uint32(h[4:])
		if n > 64*1024 {
			syncFail(s, "request too long")
			return
		}
		arg := make([]byte, n)
		if _, err := io.ReadFull(s, arg); err != nil {
			return
		}
		switch id {
		case "STAT":
			var b [12]byte
			if fi, err := os.Stat(d.hostPath(string(arg))); err == nil {
				binary.LittleEndian.PutUint32(b[0:], unixMode(fi))
				binary.LittleEndian.PutUint32(b[4:], uint32(fi.Size()))
				binary.LittleEndian.PutUint32(b[8:], uint32(fi.ModTime().Unix()))
			}
			s.Write(append([]byte("STAT"), b[:]...))
		case "LIST":
			d.list(s, string(arg))
		case "SEND":
			if err := d.receive(s, string(arg)); err != nil {
				syncFail(s, err.Error())
				return
			}
			s.Write(syncMsg("OKAY", 0, nil))
		case "RECV":
			data, err := os.ReadFile(d.hostPath(string(arg)))
			if err != nil {
				syncFail(s, strings.TrimPrefix(err.Error(), "open "+d.root))
				continue
			}
			for len(data) > 0 {
				k := min(len(data), 64*1024)
				s.Write(syncMsg("DATA", uint32(k), data[:k]))
				data = data[k:]
			}
			s.Write(syncMsg("DONE", 0, nil))
		case "QUIT":
			return
		default:
			syncFail(s, "unknown sync request "+strconv.Quote(id))
			return
		}
	}
}

func unixMode(fi os.FileInfo) uint32 {
	m := uint32(fi.Mode().Perm())
	if fi.IsDir() {
		return m | syscall.S_IFDIR
	}
	return m | syscall.S_IFREG
}

func (d *Device) list(s *stream, dir string) {
	entries, _ := os.ReadDir(d.hostPath(dir))
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		var b [16]byte
		binary.LittleEndian.PutUint32(b[0:], unixMode(fi))
		binary.LittleEndian.PutUint32(b[4:], uint32(fi.Size()))
		binary.LittleEndian.PutUint32(b[8:], uint32(fi.ModTime().Unix()))
		binary.LittleEndian.PutUint32(b[12:], uint32(len(e.Name())))
		s.Write(append(append([]byte("DENT"), b[:]...), e.Name()...))
	}
	s.Write(append([]byte("DONE"), make([]byte, 16)...))
}

// receive reads a SEND's DATA chunks up to DONE and writes the file with the mode the client asked for. A foreign
// binary is kept aside and replaced by a script that runs it under qemu, since binfmt_misc is not there to do it.
func (d *Device) receive(s *stream, arg string) error {
	i := strings.LastIndexByte(arg, ',')
	if i < 0 {
		return fmt.Errorf("SEND without a mode: %q", arg)
	}
	mode, err := strconv.ParseUint(arg[i+1:], 10, 32)
	if err != nil {
		return fmt.Errorf("SEND mode %q: %v", arg[i+1:], err)
	}
	path := arg[:i]
	var data bytes.Buffer
	for {
		var h [8]byte
		if _, err := io.ReadFull(s, h[:]); err != nil {
			return err
		}
		id, n := string(h[:4]), binary.LittleEndian.Uint32(h[4:])
		if id == "DONE" {
			break
		}
		if id != "DATA" || n > 64*1024 {
			return fmt.Errorf("bad SEND chunk %q of %d bytes", id, n)
		}
		if _, err := io.CopyN(&data, s, int64(n)); err != nil {
			return err
		}
	}
	dst := d.hostPath(path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	content := data.Bytes()
	if d.opts.QEMU != nil && bytes.HasPrefix(content, []byte("\x7fELF")) {
		real := filepath.Join(d.bin, strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "_"))
		if err := os.WriteFile(real, content, 0o755); err != nil {
			return err
		}
		content = []byte("#!/bin/sh\nexec " + strings.Join(d.opts.QEMU, " ") + " " + real + " \"$@\"\n")
	}
	os.Remove(dst)
	if err := os.WriteFile(dst, content, 0o600); err != nil {
		return err
	}
	return os.Chmod(dst, os.FileMode(mode)&0o777)
}
