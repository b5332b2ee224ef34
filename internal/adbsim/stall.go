package adbsim

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"testing"
)

// StallingServer is an adb server of our own, for the one fault the real server cannot be made to produce: it lists
// one device (serial), answers its features and OKAY to host:transport, and then never answers the service request.
// It sets ANDROID_ADB_SERVER_ADDRESS and ANDROID_ADB_SERVER_PORT to itself for the test and returns its port.
func StallingServer(t *testing.T, serial string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	answers := map[string]string{
		"host:devices-l":                      serial + "\tdevice product:p model:m device:d transport_id:1\n",
		"host-serial:" + serial + ":features": "shell_v2,cmd",
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go stall(c, serial, answers, stop)
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "127.0.0.1")
	t.Setenv("ANDROID_ADB_SERVER_PORT", strconv.Itoa(port))
	return port
}

// stall answers one connection's requests as StallingServer says.
func stall(c net.Conn, serial string, answers map[string]string, stop <-chan struct{}) {
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
			io.WriteString(c, "OKAY") // then read the service request, which is never answered
		default:
			<-stop
			return
		}
	}
}
