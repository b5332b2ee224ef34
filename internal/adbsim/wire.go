package adbsim

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The adbd transport's packet commands (system/core/adb/protocol.txt).
const (
	aCNXN = 0x4e584e43
	aAUTH = 0x48545541
	aOPEN = 0x4e45504f
	aOKAY = 0x59414b4f
	aCLSE = 0x45534c43
	aWRTE = 0x45545257

	aVersion    = 0x01000001 // skips the data checksum, as every adb since 2016 does
	maxPayload  = 256 * 1024
	authToken   = 1
	authRSAKey  = 3
	headerBytes = 24
)

// packet is one adb transport message.
type packet struct {
	cmd, arg0, arg1 uint32
	data            []byte
}

func readPacket(r io.Reader) (packet, error) {
	var h [headerBytes]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return packet{}, err
	}
	le := binary.LittleEndian
	p := packet{cmd: le.Uint32(h[0:]), arg0: le.Uint32(h[4:]), arg1: le.Uint32(h[8:])}
	n := le.Uint32(h[12:])
	if le.Uint32(h[20:]) != p.cmd^0xffffffff {
		return p, fmt.Errorf("bad magic in packet %08x", p.cmd)
	}
	if n > 1<<20 {
		return p, fmt.Errorf("packet of %d bytes", n)
	}
	p.data = make([]byte, n)
	_, err := io.ReadFull(r, p.data)
	return p, err
}

func (p packet) encode() []byte {
	b := make([]byte, headerBytes+len(p.data))
	le := binary.LittleEndian
	le.PutUint32(b[0:], p.cmd)
	le.PutUint32(b[4:], p.arg0)
	le.PutUint32(b[8:], p.arg1)
	le.PutUint32(b[12:], uint32(len(p.data)))
	var sum uint32
	for _, c := range p.data {
		sum += uint32(c)
	}
	le.PutUint32(b[16:], sum)
	le.PutUint32(b[20:], p.cmd^0xffffffff)
	copy(b[headerBytes:], p.data)
	return b
}
