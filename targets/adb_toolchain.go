package targets

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/bench-bridge/bench-bridge/build"
)

// abiToolchains maps an Android ABI (ro.product.cpu.abi) to the Debian cross toolchain that builds static
// programs for it.
var abiToolchains = map[string]string{
	"arm64-v8a":   "aarch64",
	"armeabi-v7a": "armv7",
	"x86_64":      "x86_64",
	"x86":         "x86",
}

// ndkTriples are the NDK clang targets for each ABI. API level 21 (Android 5) is the oldest the current NDKs build
// for, and a static program built for it runs on every later release.
var ndkTriples = map[string]string{
	"arm64-v8a":   "aarch64-linux-android21",
	"armeabi-v7a": "armv7a-linux-androideabi21",
	"x86_64":      "x86_64-linux-android21",
	"x86":         "i686-linux-android21",
}

// androidToolchain picks the compiler for a device's ABI: the configured toolchain when there is one, the NDK's
// clang when ndk (ANDROID_NDK_HOME) is set, else Debian's cross compiler.
func androidToolchain(abi, configured, ndk string) (build.Toolchain, error) {
	if configured != "" {
		return build.ToolchainNamed(configured)
	}
	name, ok := abiToolchains[abi]
	if !ok {
		return build.Toolchain{}, fmt.Errorf("ro.product.cpu.abi is %q, which bench-bridge cannot build for "+
			"(arm64-v8a, armeabi-v7a, x86_64, x86); name a toolchain in the config", abi)
	}
	tc := build.Toolchains[name]
	if ndk == "" {
		return tc, nil
	}
	clang := filepath.Join(ndk, "toolchains", "llvm", "prebuilt", runtime.GOOS+"-x86_64", "bin", "clang")
	return build.Toolchain{
		Name:   "ndk-" + name,
		CC:     clang + " --target=" + ndkTriples[abi],
		CFlags: slices.Clone(tc.CFlags),
		// The NDK's libc.a has pthreads in it and needs no libatomic.
		LDFlags: []string{"-static", "-lm"},
		Hint:    "ANDROID_NDK_HOME is " + ndk + ", which has no " + clang + ": point it at an NDK (r23 or later)",
	}, nil
}
