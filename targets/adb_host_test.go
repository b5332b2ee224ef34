package targets

import (
	"reflect"
	"testing"
)

// TestParseDevices reads every kind of line adb devices -l prints, with and without product/model fields.
func TestParseDevices(t *testing.T) {
	out := "127.0.0.1:6001         device transport_id:2\n" +
		"emulator-5554          device product:sdk_gphone64_arm64 model:sdk_gphone64_arm64 device:emu64a transport_id:1\n" +
		"0123456789ABCDEF       unauthorized usb:1-1 transport_id:3\n" +
		"HT4A1JT00123           no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:4\n" +
		"R58M12345             recovery usb:1-3 product:beyond1 model:SM_G973F device:beyond1 transport_id:5\n" +
		"10.0.0.2:5555 offline\n" +
		"\n"
	want := []adbDevice{
		{Serial: "127.0.0.1:6001", State: "device"},
		{Serial: "emulator-5554", State: "device", Model: "sdk_gphone64_arm64"},
		{Serial: "0123456789ABCDEF", State: "unauthorized"},
		{Serial: "HT4A1JT00123", State: "no permissions"},
		{Serial: "R58M12345", State: "recovery", Model: "SM_G973F"},
		{Serial: "10.0.0.2:5555", State: "offline"},
	}
	if got := parseDevices(out); !reflect.DeepEqual(got, want) {
		t.Errorf("parseDevices:\n got %+v\nwant %+v", got, want)
	}
}
