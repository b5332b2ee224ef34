package build

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Needs are the shared libraries a dynamically linked ELF program names (its DT_NEEDED entries, sonames such as
// libjavascriptcoregtk-4.1.so.0): what a device must have to run it. Nil for a static program and for one that is not
// ELF (a Mach-O program of macOS), whose loader the runner does not second-guess.
func Needs(path string) []string {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil
	}
	return libs
}

// libraryDirs are where this machine's shared libraries are looked for, after the ones pkg-config names: the
// multiarch directories of Debian and the plain ones.
var libraryDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// hostLibrary is the path of a shared library of this machine by its file name (a soname, or libNAME.so), "" when
// none of dirs and libraryDirs holds it.
func hostLibrary(name string, dirs ...string) string {
	for _, d := range append(dirs, libraryDirs...) {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// LibraryPackage is the Debian package of this machine that gives the shared library soname (libjavascriptcoregtk-
// 4.1-0 for libjavascriptcoregtk-4.1.so.0): the one to install on a board of the same Debian that lacks it. "" when
// this machine has no such library or dpkg does not know it.
func LibraryPackage(ctx context.Context, soname string) string {
	p := hostLibrary(soname)
	if p == "" {
		return ""
	}
	// With /usr merged, /lib/... is /usr/lib/..., which dpkg knows; the real file, after the soname's link, too.
	out, err := exec.CommandContext(ctx, "dpkg", "-S", p).Output()
	if err != nil {
		real, rerr := filepath.EvalSymlinks(p)
		if rerr != nil {
			return ""
		}
		if out, err = exec.CommandContext(ctx, "dpkg", "-S", real).Output(); err != nil {
			return ""
		}
	}
	// "libjavascriptcoregtk-4.1-0:amd64: /usr/lib/...": the package, without its architecture.
	pkg, _, ok := strings.Cut(strings.SplitN(string(out), "\n", 2)[0], ": ")
	if !ok {
		return ""
	}
	pkg, _, _ = strings.Cut(pkg, ":")
	return pkg
}

// LibraryPackages are the Debian packages of this machine that give the shared libraries sonames (LibraryPackage),
// each once, in order; those dpkg does not know are left out.
func LibraryPackages(ctx context.Context, sonames []string) []string {
	var pkgs []string
	for _, lib := range sonames {
		if p := LibraryPackage(ctx, lib); p != "" && !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// EngineLibraries are the sonames a floor over engine's library of this machine (one linked through pkg-config:
// jsc, spidermonkey) needs beside the C library, read from pkg-config's -l flags without building anything; nil for
// an engine built from its pinned source (linked into the program) and when this machine lacks the library.
func EngineLibraries(ctx context.Context, engine string) []string {
	e, err := engineFloor(engine)
	if err != nil || e.Pinned != nil || e.Floor.NodeAddon {
		return nil
	}
	for _, module := range e.PkgConfig {
		out, err := exec.CommandContext(ctx, "pkg-config", "--libs", module).Output()
		if err != nil {
			continue
		}
		var dirs, names []string
		for _, f := range strings.Fields(string(out)) {
			switch {
			case strings.HasPrefix(f, "-L"):
				dirs = append(dirs, strings.TrimPrefix(f, "-L"))
			case strings.HasPrefix(f, "-l"):
				names = append(names, strings.TrimPrefix(f, "-l"))
			}
		}
		var sonames []string
		for _, n := range names {
			if s := soname(hostLibrary("lib"+n+".so", dirs...)); s != "" {
				sonames = append(sonames, s)
			}
		}
		return sonames
	}
	return nil
}

// soname is the DT_SONAME of the shared library at path ("" when it has none or is not ELF).
func soname(path string) string {
	if path == "" {
		return ""
	}
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	names, err := f.DynString(elf.DT_SONAME)
	if err != nil || len(names) == 0 {
		return filepath.Base(path)
	}
	return names[0]
}
