package build

import (
	"strings"
	"testing"
)

func TestForPlatform(t *testing.T) {
	for abi, want := range map[string]string{"arm64-v8a": "aarch64", "armeabi-v7a": "armv7", "x86_64": "x86_64", "x86": "x86"} {
		tc, err := forPlatform("", abi, "")
		if err != nil || tc.Name != want {
			t.Errorf("%s: %s, %v; want %s", abi, tc.Name, err, want)
		}
	}
	tc, err := forPlatform("", "arm64-v8a", "/opt/ndk")
	if err != nil || tc.CC != "/opt/ndk/toolchains/llvm/prebuilt/linux-x86_64/bin/clang --target=aarch64-linux-android21" || tc.Name != "ndk-aarch64" {
		t.Errorf("ndk: %+v, %v", tc, err)
	}
	if _, err := forPlatform("", "mips", ""); err == nil || !strings.Contains(err.Error(), `"mips"`) {
		t.Errorf("mips: %v", err)
	}
	if tc, err := forPlatform("webos", "mips", ""); err != nil || tc.Name != "webos" {
		t.Errorf("a named toolchain wins: %+v, %v", tc, err)
	}
	if tc, err := forPlatform("", "", "/opt/ndk"); err != nil || tc.Name != "host" {
		t.Errorf("no ABI, no toolchain: %+v, %v; want host", tc, err)
	}
	if _, err := forPlatform("vax", "", ""); err == nil || !strings.Contains(err.Error(), `unknown toolchain "vax"`) {
		t.Errorf("unknown toolchain: %v", err)
	}
}
