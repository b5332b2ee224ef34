package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stallingADBServer is an adb server that answers the host requests for one device, and OKAY to host:transport,
// and then never answers the service request: a fault the real server cannot be made to produce. It returns the
// server's port.
func stallingADBServer(t *testing.T, serial string) int {
	t.Helper()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	answers := map[string]string{
		"host:devices-l":                      serial + "\tdevice product:p model:m device:d transport_id:1\n",
		"host-serial:" + serial + ":features": "shell_v2,cmd",
	}
	addr := serveLoopback(t, func(c net.Conn) {
		defer c.Close()
		for {
			var n [4]byte
			if _, err := io.ReadFull(c, n[:]); err != nil {
				return
			}
			size, _ := strconv.ParseUint(string(n[:]), 16, 16)
			req := make([]byte, size)
			if _, err := io.ReadFull(c, req); err != nil {
				return
			}
			switch a, ok := answers[string(req)]; {
			case ok:
				fmt.Fprintf(c, "OKAY%04x%s", len(a), a)
				return
			case string(req) == "host:transport:"+serial:
				io.WriteString(c, "OKAY") // and read the service request, which is never answered
			default:
				<-stop
				return
			}
		}
	})
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	return n
}

// shortBound sets a bound to d for one test.
func shortBound(t *testing.T, bound *time.Duration, d time.Duration) {
	old := *bound
	*bound = d
	t.Cleanup(func() { *bound = old })
}

// TestADBServiceOpenHasABound opens a service on a server that never answers the request: the open ends at its
// bound with an error that names the service and the bound, or at once when the caller cancels.
func TestADBServiceOpenHasABound(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	port := stallingADBServer(t, "stall-1")
	h := adbHost{addr: "127.0.0.1:" + strconv.Itoa(port)}
	_, err := h.service(context.Background(), "stall-1", "shell,v2,raw:echo hi")
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "opening adb service shell,v2,raw on stall-1: no answer within 300ms") {
		t.Fatalf("service on a stalled server: %v", err)
	}
	shortBound(t, &openOp, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := h.service(ctx, "stall-1", "shell:echo hi"); !errors.Is(err, context.Canceled) {
		t.Fatalf("service cancelled while the server stalls: %v", err)
	}
}

// TestADBOpenOnAStalledServer is what `bench-bridge targets` met: the device is listed, and the first command's
// service request is never answered. Opening the target fails, naming the step, instead of hanging.
func TestADBOpenOnAStalledServer(t *testing.T) {
	shortBound(t, &openOp, 300*time.Millisecond)
	port := stallingADBServer(t, "stall-2")
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "127.0.0.1")
	t.Setenv("ANDROID_ADB_SERVER_PORT", strconv.Itoa(port))
	t.Setenv("ANDROID_SERIAL", "")
	_, err := NewADB(context.Background(), "android", BuiltIn["android"], Overrides{})
	if err == nil || !strings.Contains(err.Error(), "target android: device stall-2: getprop: opening adb service shell,v2,raw on stall-2: no answer within 300ms") {
		t.Fatalf("opening the target: %v", err)
	}
}

// serveLoopback listens on a loopback port and hands each connection to serve, until the test ends; it returns the
// address.
func serveLoopback(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}
