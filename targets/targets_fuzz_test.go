package targets

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// probeSeeds are device outputs: a real-looking one, a login shell's banner before it, and broken readings
// (thermal=nan, cores=-1).
var probeSeeds = []string{
	"os=Linux\nkernel=6.1.0\narch=aarch64\ncpu_model= Cortex-A53\ncores=4\ngovernor=schedutil\nloadavg=0.1 0.2 0.3\n" +
		"libc=glibc 2.36\ncpufreq=0 schedutil 1200000 300000 1800000\nthermal=45000 cpu-thermal\n",
	"Welcome to webOS!\nLast login: Tue Dec  1 10:00:00 2026\n\x1b[1mmotd=yes\x1b[0m\nos=Linux\ncores=1\n",
	"thermal=nan cpu\nthermal=inf\nthermal=-inf gpu\nthermal=1e400 x\ncores=-1\ncores=99999999999999999999\n",
	"cpufreq=-1 - -5 -6 -7\ncpufreq=0 - 9223372036854775808 0 0\nbattery_temp=NaN\nthermal_status=-3\nthermal_status=99\n",
	"prop_model=Pixel\r\nprop_release=14\r\nprop_sdk=34\nprop_qemu=1\nthermal_status=2\nbattery_temp=312\n",
	"os=Linux\x00\nkernel=\xff\xfe\n=\n==\nos\n",
}

// FuzzDeviceProbe: whatever a device's probe, ssh facts or Android facts print, the device they give has only
// numbers an artifact can hold (JSON encodes it) and no negative core count, CPU or frequency.
func FuzzDeviceProbe(f *testing.F) {
	for _, s := range probeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		d := ParseProbe([]byte(out))
		parseSSHProbe([]byte(out), &d)
		a := parseAndroidFacts(out)
		for _, dev := range []any{d, a} {
			if _, err := json.Marshal(dev); err != nil {
				t.Fatalf("a device the artifact cannot hold: %v\nprobe output: %q", err, out)
			}
		}
		if d.Cores < 0 || a.Cores < 0 {
			t.Fatalf("cores %d, %d", d.Cores, a.Cores)
		}
		for _, c := range append(d.CPUFreqs, a.CPUFreqs...) {
			if c.CPU < 0 || c.CurKHz < 0 || c.MinKHz < 0 || c.MaxKHz < 0 {
				t.Fatalf("cpufreq %+v", c)
			}
		}
		androidWarnings(a)
	})
}

// shellPacket is one shell_v2 packet.
func shellPacket(id byte, data []byte) []byte {
	p := []byte{id, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(p[1:], uint32(len(data)))
	return append(p, data...)
}

// FuzzShellV2: any stream of shell_v2 frames gives an exit status of one byte or an error, never more output than
// the stream held; exit packets of the wrong length, a length of 0xFFFFFFFF, unknown ids and a truncated header are
// errors or skipped.
func FuzzShellV2(f *testing.F) {
	join := func(ps ...[]byte) []byte { return bytes.Join(ps, nil) }
	f.Add(join(shellPacket(1, []byte("out\n")), shellPacket(2, []byte("err\n")), shellPacket(3, []byte{7})))
	f.Add(shellPacket(3, []byte{0, 0}))
	f.Add(shellPacket(3, nil))
	f.Add(join(shellPacket(1, []byte("x")), []byte{1, 0xff, 0xff, 0xff, 0xff}, []byte("short")))
	f.Add(join(shellPacket(9, []byte("unknown id")), shellPacket(0, nil), shellPacket(3, []byte{1})))
	f.Add([]byte{3, 1, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, stream []byte) {
		var stdout, stderr bytes.Buffer
		status, err := readShellV2(context.Background(), bytes.NewReader(stream), &stdout, &stderr)
		if err == nil && (status < 0 || status > 255) {
			t.Fatalf("status %d", status)
		}
		if stdout.Len()+stderr.Len() > len(stream) {
			t.Fatalf("%d bytes of output from a stream of %d", stdout.Len()+stderr.Len(), len(stream))
		}
	})
}

// FuzzLegacyShellMarker: the plain shell's output passes through line by line up to the marker, whose status is
// 0 to 255 or an error; a program that prints a marker of its own (another suffix, or none) does not end the run.
func FuzzLegacyShellMarker(f *testing.F) {
	const marker = "bench-bridge-exit-abc123"
	f.Add("out\n\n" + marker + " 0\n")
	f.Add("last line without newline\n" + marker + " 3\r\n")
	f.Add("bench-bridge-exit-zzz 0\nbench-bridge-exit- 0\n" + marker + "\n" + marker + " 1\n")
	f.Add(marker + " -1\n" + marker + " 256\n")
	f.Add(marker + " abc\n")
	f.Add("banner\r\nno marker at all")
	f.Fuzz(func(t *testing.T, out string) {
		var stdout bytes.Buffer
		status, err := readLegacy(strings.NewReader(out), marker, &stdout)
		if err == nil && (status < 0 || status > 255) {
			t.Fatalf("status %d", status)
		}
		if err != nil && !errors.Is(err, errDeviceLost) && !strings.Contains(err.Error(), "exit marker") && !strings.Contains(err.Error(), "line cap") {
			t.Fatalf("error %v names no cause", err)
		}
		if err == nil && !strings.Contains(out, marker+" ") {
			t.Fatalf("a status without the marker")
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if strings.HasPrefix(line, marker+" ") {
				t.Fatalf("the marker line %q passed through as output", line)
			}
		}
	})
}

// FuzzADBHostReply: whatever an adb server answers a host request with (OKAY, FAIL with a length of zzzz, a short
// reply), request and readHex return a value or an error and never read past what was sent.
func FuzzADBHostReply(f *testing.F) {
	for _, s := range []string{"OKAY0005hello", "OKAY", "FAILzzzz", "FAIL0003bad", "FAIL", "OKAYffff", "NOPE", "OK", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		client, server := net.Pipe()
		defer client.Close()
		go func() {
			defer server.Close()
			var n [4]byte
			if _, err := io.ReadFull(server, n[:]); err != nil {
				return
			}
			io.CopyN(io.Discard, server, int64(len("host:devices-l")))
			server.Write(reply)
		}()
		client.SetDeadline(time.Now().Add(5 * time.Second))
		err := request(client, "host:devices-l")
		if err == nil {
			s, err := readHex(client)
			if err == nil && len(s) > len(reply) {
				t.Fatalf("read %d bytes from a reply of %d", len(s), len(reply))
			}
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("a reply that ended still timed out: %v", err)
		}
	})
}

// fuzzHostKey is one fixed host key for FuzzKnownHosts.
var fuzzHostKey = func() ssh.PublicKey {
	pub, _, _ := ed25519.GenerateKey(bytes.NewReader(make([]byte, 64)))
	k, _ := ssh.NewPublicKey(pub)
	return k
}()

// FuzzKnownHosts: any known_hosts file is read or refused with an error that names it (and the line, for a line
// over 64 KiB); a file that is read answers for a host key without a panic and never accepts a key it does not list.
func FuzzKnownHosts(f *testing.F) {
	line := "board.example " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(fuzzHostKey)))
	f.Add(line + "\n")
	f.Add("@cert-authority *.example " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(fuzzHostKey))) + "\n")
	f.Add("@revoked * " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(fuzzHostKey))) + "\n")
	f.Add("|1|c2FsdA==|aGFzaA== ssh-ed25519 AAAA\n# comment\n\n@\n@ x\n[board]:2222,10.0.0.1 ssh-rsa AAAA\n")
	f.Add("# " + strings.Repeat("x", 70<<10) + "\n")
	f.Add(strings.Repeat("y", 70<<10))
	f.Add("!board.example,board* " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(fuzzHostKey))) + "\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		file := filepath.Join(dir, "known_hosts")
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		h, err := newHostKeys(file, "", io.Discard)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22}
		h.known("board.example:22")
		if err := h.callback("board.example:22", addr, fuzzHostKey); err == nil && !strings.Contains(text, "AAAAC3NzaC1lZDI1NTE5") {
			t.Fatalf("a key accepted from a file that does not hold it")
		}
	})
}

// TestLegacyShellLongLine: a 2 MiB line without a newline from the plain shell is an error naming the line cap, not
// a device that went away.
func TestLegacyShellLongLine(t *testing.T) {
	_, err := readLegacy(strings.NewReader(strings.Repeat("z", 2<<20)), "bench-bridge-exit-x", io.Discard)
	if err == nil || !strings.Contains(err.Error(), "longer than 1 MiB (the plain shell's line cap)") {
		t.Fatalf("err = %v", err)
	}
}

// TestRunDirAfterABanner: a login shell that prints a banner before mkdir's output still gives the directory.
func TestRunDirAfterABanner(t *testing.T) {
	for out, want := range map[string]string{
		"/tmp/bench-bridge-run.x1\n":                                        "/tmp/bench-bridge-run.x1",
		"Welcome to webOS\r\nLast login: today\n/tmp/bench-bridge-run.x2\n": "/tmp/bench-bridge-run.x2",
		"": "",
	} {
		if got := lastLine([]byte(out)); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", out, got, want)
		}
	}
}

// TestADBHostRepliesThatBreak: an adb server that answers OKAY and then stalls ends at the caller's bound; one that
// answers FAIL with the length zzzz gets an error naming the bad length.
func TestADBHostRepliesThatBreak(t *testing.T) {
	for reply, want := range map[string]string{"OKAY": "i/o timeout", "FAILzzzz": `bad length "zzzz"`} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			io.ReadFull(c, make([]byte, 4+len("host:devices-l")))
			io.WriteString(c, reply)
			time.Sleep(5 * time.Second) // then stall
		}()
		// The server stalls for longer than the bound: only the bound can end the query with a timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err = adbHost{addr: ln.Addr().String()}.query(ctx, "host:devices-l")
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reply %q: err %v, want %q", reply, err, want)
		}
	}
}
