package targets

import (
	"context"
	"fmt"
)

// ADBDevice is a device the adb server lists: its serial, its state ("device" when it can run programs) and its
// model when the server knows it (USB devices; adbd over TCP reports none).
type ADBDevice struct {
	Serial, State, Model string
}

// ADBDevices lists the devices of the adb server that o names (-H and -P), else the one the environment names, as
// `adb devices -l` does: a lab's command measures each of them.
func ADBDevices(ctx context.Context, o Overrides) ([]ADBDevice, error) {
	addr, err := adbServer(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, shortOp)
	defer cancel()
	h := adbHost{addr: addr}
	list, err := h.devices(ctx)
	if err != nil {
		return nil, fmt.Errorf("adb server at %s: %w", addr, err)
	}
	out := make([]ADBDevice, len(list))
	for i, d := range list {
		out[i] = ADBDevice(d)
	}
	return out, nil
}
