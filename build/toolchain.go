package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bench-bridge/bench-bridge/hint"
)

// Toolchain is a C compiler and the flags a target needs.
type Toolchain struct {
	Name    string   // shown to users and recorded, e.g. "host"
	CC      string   // compiler command
	CFlags  []string // for every compile and link
	LDFlags []string // for the final link only
	// Packages are the Debian packages that give the compiler and the C library it links with; apt-get installs
	// them. A cross compiler without its -cross C library cannot compile even <stdio.h>.
	Packages []string
	// NativeOn is the GOARCH on which this toolchain is the system's own gcc (then gcc and libc6-dev give it).
	NativeOn string
	Hint     string // how to get the compiler where it is not a Debian package (macOS, the NDK, a $CC)
}

// nativePackages give the system's own gcc and its C library.
var nativePackages = []string{"gcc", "libc6-dev"}

// InstallHint is what installs the toolchain: apt-get with its packages, else Hint.
func (tc Toolchain) InstallHint() string {
	pkgs := tc.Packages
	if tc.NativeOn == runtime.GOARCH {
		pkgs = nativePackages
	}
	if len(pkgs) == 0 {
		return tc.Hint
	}
	return "apt-get install " + strings.Join(pkgs, " ")
}

// commonCFlags are QuickJS's own build flags (its Makefile's -O2, -fwrapv and -D_GNU_SOURCE); bench programs use them
// too. -fno-omit-frame-pointer keeps profiles readable at no measurable cost.
var commonCFlags = []string{"-O2", "-fwrapv", "-D_GNU_SOURCE", "-fno-omit-frame-pointer", "-g"}

// Host returns the local machine's toolchain: $CC if set, else clang on macOS and gcc elsewhere.
func Host() Toolchain {
	tc := Toolchain{Name: "host", CC: "gcc", CFlags: commonCFlags, LDFlags: []string{"-lm", "-lpthread", "-ldl"},
		Packages: nativePackages}
	if runtime.GOOS == "darwin" {
		tc.CC, tc.Packages = "clang", nil
		tc.LDFlags = []string{"-lm", "-lpthread"}
		tc.Hint = "install the Xcode command line tools (xcode-select --install) or set CC"
	}
	if cc := os.Getenv("CC"); cc != "" {
		tc.CC, tc.Packages = cc, nil
		tc.Hint = "CC is " + cc + ": install it, or unset CC to use the system's compiler (Debian: apt-get install gcc libc6-dev)"
	}
	return tc
}

// staticLD links statically: device programs must not depend on the device's libc (Android has bionic, an old
// webOS an old glibc).
var staticLD = []string{"-static", "-lm", "-lpthread"}

// Toolchains are the cross toolchains from Debian's packages, by the names targets and the config use.
var Toolchains = map[string]Toolchain{
	// HP TouchPad and other ARMv7 softfp devices (webOS): armel compiler, VFPv3-D16, softfp calling convention.
	"webos": {Name: "webos", CC: "arm-linux-gnueabi-gcc",
		CFlags:   append(slices.Clone(commonCFlags), "-march=armv7-a", "-mfpu=vfpv3-d16", "-mfloat-abi=softfp"),
		LDFlags:  append(slices.Clone(staticLD), "-latomic"),
		Packages: []string{"gcc-arm-linux-gnueabi", "libc6-dev-armel-cross"}},
	// Android armeabi-v7a and Debian's armhf boards: ARMv7 with VFPv3-D16, which both guarantee (gnueabihf's hard
	// float needs an FPU named).
	"armv7": {Name: "armv7", CC: "arm-linux-gnueabihf-gcc",
		CFlags:   append(slices.Clone(commonCFlags), "-march=armv7-a", "-mfpu=vfpv3-d16"),
		LDFlags:  append(slices.Clone(staticLD), "-latomic"),
		Packages: []string{"gcc-arm-linux-gnueabihf", "libc6-dev-armhf-cross"}},
	// Debian's armel boards and any 32-bit ARM from ARMv5TE on: the armel compiler's own baseline, soft float.
	"armel": {Name: "armel", CC: "arm-linux-gnueabi-gcc", CFlags: commonCFlags,
		LDFlags:  append(slices.Clone(staticLD), "-latomic"),
		Packages: []string{"gcc-arm-linux-gnueabi", "libc6-dev-armel-cross"}},
	// ARMv6 with VFPv2 (ARM1176JZF-S: the first Raspberry Pis and the Zero). Debian's armhf C library needs ARMv7, so
	// the armel compiler builds for it, with its ARMv5TE C library, which ARMv6 runs, and VFP for doubles.
	"armv6": {Name: "armv6", CC: "arm-linux-gnueabi-gcc",
		CFlags:   append(slices.Clone(commonCFlags), "-march=armv6", "-mfpu=vfp", "-mfloat-abi=softfp", "-marm"),
		LDFlags:  append(slices.Clone(staticLD), "-latomic"),
		Packages: []string{"gcc-arm-linux-gnueabi", "libc6-dev-armel-cross"}},
	"aarch64": {Name: "aarch64", CC: "aarch64-linux-gnu-gcc", CFlags: commonCFlags, LDFlags: staticLD,
		Packages: []string{"gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross"}, NativeOn: "arm64"},
	"x86_64": {Name: "x86_64", CC: "x86_64-linux-gnu-gcc", CFlags: commonCFlags, LDFlags: staticLD,
		Packages: []string{"gcc-x86-64-linux-gnu", "libc6-dev-amd64-cross"}, NativeOn: "amd64"},
	"x86": {Name: "x86", CC: "i686-linux-gnu-gcc", CFlags: commonCFlags, LDFlags: staticLD,
		Packages: []string{"gcc-i686-linux-gnu", "libc6-dev-i386-cross"}, NativeOn: "386"},
}

// ToolchainNamed returns "host" or one of Toolchains.
func ToolchainNamed(name string) (Toolchain, error) {
	if name == "host" {
		return Host(), nil
	}
	tc, ok := Toolchains[name]
	if !ok {
		names := []string{"host"}
		for n := range Toolchains {
			names = append(names, n)
		}
		slices.Sort(names)
		return Toolchain{}, fmt.Errorf("unknown toolchain %q (have %s)", name, strings.Join(names, ", "))
	}
	return tc, nil
}

// check finds the compiler and returns its version line, which is part of every cache key.
func (tc Toolchain) check(ctx context.Context) (string, error) {
	fields := strings.Fields(tc.CC)
	if len(fields) == 0 {
		return "", fmt.Errorf("toolchain %s: no compiler set", tc.Name)
	}
	if _, err := exec.LookPath(fields[0]); err != nil {
		return "", hint.With(fmt.Errorf("toolchain %s: C compiler %q not found", tc.Name, fields[0]), tc.InstallHint())
	}
	out, err := exec.CommandContext(ctx, fields[0], append(fields[1:], "--version")...).Output()
	if err != nil {
		return "", fmt.Errorf("toolchain %s: %s --version: %w", tc.Name, tc.CC, err)
	}
	return strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0], nil
}

// compile runs the compiler with the toolchain's flags plus args.
func (tc Toolchain) compile(ctx context.Context, dir string, args ...string) error {
	fields := strings.Fields(tc.CC)
	all := append(append(append([]string{}, fields[1:]...), tc.CFlags...), args...)
	return runIn(ctx, dir, fields[0], all...)
}

// Library is an engine (QuickJS unless named) compiled for one toolchain: object files to link, kept in the cache.
type Library struct {
	Src      string   // the engine's source tree
	Objects  []string // absolute paths of the object files
	Compiler string   // the compiler's version line
}

// BuildQuickJS compiles the QuickJS library for tc, or returns the cached build for the same source, compiler and
// flags.
func BuildQuickJS(ctx context.Context, tc Toolchain, src string, log io.Writer) (*Library, error) {
	define := fmt.Sprintf("-DCONFIG_VERSION=\"%s\"", quickJS.Pinned.Version)
	if b, err := os.ReadFile(filepath.Join(src, "VERSION")); err == nil {
		define = fmt.Sprintf("-DCONFIG_VERSION=\"%s\"", strings.TrimSpace(string(b)))
	}
	return buildLibrary(ctx, tc, libSpec{title: "QuickJS", src: src, files: quickJS.Pinned.Lib, flags: []string{define}}, log)
}

// libSpec is what one engine's library is compiled from: files of its source tree src, each with flags. name is
// part of the cache's directory name ("" for QuickJS's, whose directories carry none).
type libSpec struct {
	title, name, src string
	files, flags     []string
}

// buildLibrary compiles spec's files for tc, or returns the cached build for the same source, compiler and flags.
func buildLibrary(ctx context.Context, tc Toolchain, spec libSpec, log io.Writer) (*Library, error) {
	version, err := tc.check(ctx)
	if err != nil {
		return nil, err
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	key, prefix := hashOf(spec.src, version, tc.CC, strings.Join(tc.CFlags, " ")), tc.Name+"-"
	if spec.name != "" {
		key, prefix = hashOf(spec.name, spec.src, version, tc.CC, strings.Join(tc.CFlags, " "), strings.Join(spec.flags, " ")), prefix+spec.name+"-"
	}
	dir := filepath.Join(cache, "lib", prefix+key)
	lib := &Library{Src: spec.src, Compiler: version}
	for _, f := range spec.files {
		lib.Objects = append(lib.Objects, filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".c")+".o"))
	}
	stamp := filepath.Join(dir, "complete")
	if _, err := os.Stat(stamp); err == nil {
		return lib, nil
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(stamp); err == nil {
		return lib, nil
	}
	fmt.Fprintf(log, "building %s with %s (%s), once per toolchain and flags\n", spec.title, tc.CC, version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The files are independent: compile them in parallel, as make -j would.
	errs := make([]error, len(spec.files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, f := range spec.files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = tc.compile(ctx, dir, append(slices.Clone(spec.flags), "-c", filepath.Join(spec.src, f), "-o", lib.Objects[i])...)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, tc.diagnose(ctx, fmt.Errorf("building %s (%s): %w", spec.title, spec.src, err))
		}
	}
	if err := os.WriteFile(stamp, []byte(version+"\n"), 0o644); err != nil {
		return nil, err
	}
	return lib, nil
}

// hashOf returns a short stable key for a set of strings.
func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

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

// ForPlatform picks the toolchain for what a target reports (targets.Platform): the toolchain it names, else the
// one for its Android ABI (the NDK's clang when $ANDROID_NDK_HOME is set, Debian's cross compiler otherwise), else
// the host's.
func ForPlatform(toolchain, abi string) (Toolchain, error) {
	return forPlatform(toolchain, abi, os.Getenv("ANDROID_NDK_HOME"))
}

func forPlatform(toolchain, abi, ndk string) (Toolchain, error) {
	switch {
	case toolchain != "":
		return ToolchainNamed(toolchain)
	case abi == "":
		return Host(), nil
	}
	name, ok := abiToolchains[abi]
	if !ok {
		return Toolchain{}, fmt.Errorf("ro.product.cpu.abi is %q, which bench-bridge cannot build for "+
			"(arm64-v8a, armeabi-v7a, x86_64, x86); name a toolchain in the config", abi)
	}
	tc := Toolchains[name]
	if ndk == "" {
		return tc, nil
	}
	clang := filepath.Join(ndk, "toolchains", "llvm", "prebuilt", runtime.GOOS+"-x86_64", "bin", "clang")
	return Toolchain{
		Name:   "ndk-" + name,
		CC:     clang + " --target=" + ndkTriples[abi],
		CFlags: slices.Clone(tc.CFlags),
		// The NDK's libc.a has pthreads in it and needs no libatomic.
		LDFlags: []string{"-static", "-lm"},
		Hint:    "ANDROID_NDK_HOME is " + ndk + ", which has no " + clang + ": point it at an NDK (r23 or later)",
	}, nil
}
