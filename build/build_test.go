package build

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMissingCompilerSaysWhatToInstall(t *testing.T) {
	tc := Toolchains["webos"]
	tc.CC = "no-such-cc-for-bench-bridge"
	_, err := BuildQuickJS(context.Background(), tc, t.TempDir(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), `"no-such-cc-for-bench-bridge" not found`) || !strings.Contains(err.Error(), "apt-get install gcc-arm-linux-gnueabi") {
		t.Fatalf("err = %v, want the missing compiler and how to install it", err)
	}
}

func TestQuickJSSourceRejectsATreeThatIsNotQuickJS(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "quickjs.h"), nil, 0o644)
	_, err := QuickJSSource(context.Background(), dir, io.Discard)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "missing VERSION") {
		t.Fatalf("err = %v, want the directory and the missing file", err)
	}
	t.Setenv(EnvQuickJSSrc, filepath.Join(dir, "nope"))
	if _, err := QuickJSSource(context.Background(), "", io.Discard); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v, want $%s's directory named", err, EnvQuickJSSrc)
	}
}

func TestChecksumMismatchRefusesTheTarball(t *testing.T) {
	path := filepath.Join(t.TempDir(), quickJSSource.Tarball)
	os.WriteFile(path, []byte("not quickjs"), 0o644)
	err := checkSHA256(path, quickJSSource.SHA256)
	if err == nil || !strings.Contains(err.Error(), "refusing to build from it") {
		t.Fatalf("err = %v", err)
	}
}

func TestToolchainNamed(t *testing.T) {
	if tc, err := ToolchainNamed("webos"); err != nil || !strings.Contains(strings.Join(tc.CFlags, " "), "-mfloat-abi=softfp") {
		t.Fatalf("webos toolchain %+v, %v", tc, err)
	}
	if _, err := ToolchainNamed("vax"); err == nil || !strings.Contains(err.Error(), "have aarch64") {
		t.Fatalf("err = %v, want the known toolchains listed", err)
	}
}
