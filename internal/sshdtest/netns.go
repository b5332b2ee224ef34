package sshdtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// Namespace is a network namespace the test made: only the links the test adds reach it. It is deleted when the
// test ends.
type Namespace struct {
	Name string
}

// nsSeq numbers the namespaces and links of this process; with the pid it makes names no parallel run shares.
var nsSeq atomic.Int32

// NewNamespace makes a network namespace with its loopback up. It needs ip (iproute2) and the right to make
// namespaces (root): without them the test fails in CI and skips elsewhere.
func NewNamespace(t testing.TB) *Namespace {
	t.Helper()
	testenv.SkipInShort(t, "makes network namespaces")
	testenv.Require(t, "ip", "apt-get install iproute2")
	n := &Namespace{Name: fmt.Sprintf("bbtest-%d-%d", os.Getpid(), nsSeq.Add(1))}
	if out, err := runIP("netns", "add", n.Name); err != nil {
		testenv.Missing(t, fmt.Sprintf("cannot make a network namespace (ip netns add needs root): %v: %s", err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		runIP("netns", "delete", n.Name)
		unmountEmptyNetnsDir()
	})
	ip(t, n, "link", "set", "lo", "up")
	return n
}

// unmountEmptyNetnsDir undoes the mount of /run/netns on itself that the first `ip netns add` makes, once no
// namespace is left in it: left mounted, it keeps a fresh-machine root (../shared/tools/clean-root) from being
// removed after the tests.
func unmountEmptyNetnsDir() {
	if entries, err := os.ReadDir("/run/netns"); err == nil && len(entries) == 0 {
		runCommand([]string{"umount", "/run/netns"})
	}
}

// ip runs ip ARGS inside ns (in the test's own namespace when ns is nil) and fails the test if it fails.
func ip(t testing.TB, ns *Namespace, args ...string) {
	t.Helper()
	run := runIP
	if ns != nil {
		run = func(args ...string) ([]byte, error) {
			return runCommand(ns.Command(append([]string{"ip"}, args...)...))
		}
	}
	if out, err := run(args...); err != nil {
		t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// runIP runs ip with a deadline, as every child process has.
func runIP(args ...string) ([]byte, error) { return runCommand(append([]string{"ip"}, args...)) }

func runCommand(argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
}

// Command is the command line that runs argv inside the namespace. It enters the network namespace only, with
// nsenter: `ip netns exec` and `ip -n` also remount / and /sys, which fails (EINVAL) in a chroot whose / is not a
// mount point, as in a fresh-machine root made by debootstrap.
func (n *Namespace) Command(argv ...string) []string {
	return append([]string{"nsenter", "--net=/run/netns/" + n.Name, "--"}, argv...)
}

// Link joins a and b with a veth pair; nil stands for the test's own namespace (the host). Each end gets an address
// of a /30 in 198.18.0.0/15, the range set aside for network tests (RFC 2544), chosen by pid so that parallel runs do
// not share one. Nothing routes beyond the pair: a namespace reaches only the other end of each of its links.
func Link(t testing.TB, a, b *Namespace) (addrA, addrB string) {
	t.Helper()
	seq := nsSeq.Add(1)
	base := freeBlock(uint32(os.Getpid())*64 + uint32(seq))
	addrA, addrB = ipv4(base+1), ipv4(base+2)
	endA, endB := fmt.Sprintf("bb%dl%da", os.Getpid(), seq), fmt.Sprintf("bb%dl%db", os.Getpid(), seq)
	ip(t, nil, "link", "add", endA, "type", "veth", "peer", "name", endB)
	t.Cleanup(func() { runIP("link", "delete", endA); runIP("link", "delete", endB) }) // gone with a namespace already
	for _, end := range []struct {
		ns        *Namespace
		dev, addr string
	}{{a, endA, addrA}, {b, endB, addrB}} {
		if end.ns != nil {
			ip(t, nil, "link", "set", end.dev, "netns", end.ns.Name)
		}
		ip(t, end.ns, "addr", "add", end.addr+"/30", "dev", end.dev)
		ip(t, end.ns, "link", "set", end.dev, "up")
	}
	return addrA, addrB
}

// freeBlock picks a /30 of 198.18.0.0/15 that no address of the host falls in, starting from the one seed names.
func freeBlock(seed uint32) uint32 {
	used := map[uint32]bool{}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				v := n.IP.To4()
				used[(uint32(v[0])<<24|uint32(v[1])<<16|uint32(v[2])<<8|uint32(v[3]))&^3] = true
			}
		}
	}
	for i := uint32(0); ; i++ {
		base := uint32(198)<<24 | uint32(18)<<16 | ((seed+i)%(1<<15))*4 // 2^15 blocks of 4 addresses
		if !used[base] || i == 1<<15 {
			return base
		}
	}
}

func ipv4(v uint32) string { return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v)).String() }

// DialTimeout connects from inside the namespace.
func (n *Namespace) DialTimeout(network, addr string, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	err := n.do(func() (err error) { c, err = net.DialTimeout(network, addr, timeout); return err })
	return c, err
}

// Listen listens inside the namespace, for a server the test writes itself (one that never answers, say).
func (n *Namespace) Listen(network, addr string) (net.Listener, error) {
	var l net.Listener
	err := n.do(func() (err error) { l, err = net.Listen(network, addr); return err })
	return l, err
}

// Lab is a board that only a lab machine reaches, as in a device lab: the lab machine's namespace is linked to the
// host and to the board's namespace, the board's only to the lab machine's. The lab machine runs two sshds: Lab on
// the host's side (port 2222) and Inner on the board's side (port 2223), which the host cannot reach either.
type Lab struct {
	Lab, Inner, Board *Server
	HostAddr          string // the host's end of its link to the lab machine
	LabInner          string // the lab machine's end of its link to the board: where the board sees it connect from
	BoardNS           *Namespace
}

// StartLab makes the namespaces and links and starts the three sshds.
func StartLab(t testing.TB) *Lab {
	t.Helper()
	labNS, boardNS := NewNamespace(t), NewNamespace(t)
	hostAddr, labAddr := Link(t, nil, labNS)
	labInner, boardAddr := Link(t, labNS, boardNS)
	l := &Lab{
		Lab:      Start(t, Options{Namespace: labNS, ListenAddr: labAddr, Port: 2222}),
		Inner:    Start(t, Options{Namespace: labNS, ListenAddr: labInner, Port: 2223}),
		Board:    Start(t, Options{Namespace: boardNS, ListenAddr: boardAddr}),
		HostAddr: hostAddr, LabInner: labInner, BoardNS: boardNS,
	}
	// The board's namespace has no route to the host (asked from inside it, so nothing leaves the machine).
	if c, err := boardNS.DialTimeout("tcp", net.JoinHostPort(hostAddr, "22"), 2*time.Second); err == nil {
		c.Close()
		t.Fatal("the board reaches the host directly: the test's network is not what it claims")
	}
	return l
}

// SSHConfig is ~/.ssh/config text that names the lab machine "lab" and the board "board", behind ProxyJump lab,
// each with its own identity; extra is added before the closing Host * entry, which points ssh at knownHosts.
func (l *Lab) SSHConfig(knownHosts, extra string) string {
	labHost, _, _ := net.SplitHostPort(l.Lab.Addr)
	boardHost, _, _ := net.SplitHostPort(l.Board.Addr)
	return fmt.Sprintf(`Host lab
  HostName %s
  Port 2222
  IdentityFile %s
Host board
  HostName %s
  IdentityFile %s
  ProxyJump lab
%sHost *
  UserKnownHostsFile %s
  StrictHostKeyChecking yes
  BatchMode yes
`, labHost, l.Lab.Identity, boardHost, l.Board.Identity, extra, knownHosts)
}
