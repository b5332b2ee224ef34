package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	c, err := Parse("/proj/bench-bridge.toml", `
[defaults]
samples = 20
min_time = "100ms"

[quickjs]
src = "third_party/quickjs"

[bridges.mine]
build = "make bench"
binary = "out/bench"
`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Defaults.Samples != 20 || c.Defaults.MinTime.Duration != 100*time.Millisecond || c.Bridges["mine"].Binary != "out/bench" {
		t.Fatalf("parsed %+v", c)
	}
	if got := c.Resolve(c.QuickJS.Src); got != "/proj/third_party/quickjs" {
		t.Fatalf("Resolve = %q", got)
	}
}

func TestParseErrorsNameFileLineAndKey(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"syntax", "[defaults]\nsamples = \n", "b.toml:2:"},
		{"unknown key", "[defaults]\nsampels = 3\n", "unknown key defaults.sampels"},
		{"bad duration", "[defaults]\nmin_time = \"fast\"\n", "not a duration"},
		{"wrong type", "[defaults]\nsamples = \"ten\"\n", "b.toml"},
		{"negative", "[defaults]\nsamples = -1\n", "defaults.samples is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("b.toml", tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "b.toml") {
				t.Fatalf("error %v, want one naming b.toml and containing %q", err, tt.want)
			}
		})
	}
}

func TestLoadMissingFiles(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	if c, err := Load(""); err != nil || c.Path != "" {
		t.Fatalf("no default file: %+v, %v; want an empty config", c, err)
	}
	if _, err := Load(filepath.Join(dir, "nope.toml")); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Fatalf("a named file that is missing must be an error naming it, got %v", err)
	}
}

// TestEveryProblemAtOnceInFileOrder: a file with several problems says all of them, each with its line, in the order
// they are written (not in map order), the bridges' problems included.
func TestEveryProblemAtOnceInFileOrder(t *testing.T) {
	text := `[defaults]
samples = -1

[bridges.zeta]
build = "make"

[targets.board]
kind = "telnet"

[bridges.alpha]
biuld = "make"
binary = "x"

[targets."bad name"]
kind = "ssh"
`
	for range 5 { // map order changes from run to run; the message must not
		_, err := Parse("b.toml", text)
		if err == nil {
			t.Fatal("no error")
		}
		want := []string{
			"b.toml:2: defaults.samples is -1",
			"b.toml:4: bridges.zeta needs binary",
			"b.toml:8: targets.board.kind is \"telnet\"",
			"b.toml:11: unknown key bridges.alpha.biuld",
			"b.toml:14: targets.bad name: a target's name may hold only",
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(want) {
			t.Fatalf("got %d problems, want %d:\n%v", len(lines), len(want), err)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("problem %d is %q, want it to start with %q", i, lines[i], w)
			}
		}
	}
}

// TestSysfsIsAPlainAbsolutePath: a target's sysfs goes into the device's shell scripts, so one with shell syntax in
// it (or a relative one) fails the file at its line, naming the key and the value; a plain absolute path is kept.
func TestSysfsIsAPlainAbsolutePath(t *testing.T) {
	for _, bad := range []string{"/x y", "/x'y", "/x$(touch INJECTED)", "/x;reboot", "sys"} {
		text := "[targets.phone]\nkind = \"adb\"\nsysfs = " + strconv.Quote(bad) + "\n"
		_, err := Parse("c.toml", text)
		if want := fmt.Sprintf("c.toml:3: targets.phone.sysfs %q: ", bad); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("sysfs %q: %v; want an error starting %s", bad, err, want)
		}
	}
	c, err := Parse("c.toml", "[targets.phone]\nkind = \"adb\"\nsysfs = \"/data/fake-sys_1\"\n")
	if err != nil || c.Specs()["phone"].Sysfs != "/data/fake-sys_1" {
		t.Fatalf("a plain sysfs: %v", err)
	}
}

// TestBrokenBridgeBlocksOnlyItself: a bridge with problems leaves the file usable; asking for that bridge gives all
// its problems, with lines; a good bridge beside it resolves its binary against the config's folder.
func TestBrokenBridgeBlocksOnlyItself(t *testing.T) {
	c, err := Parse("/proj/b.toml", `
[bridges.good]
binary = "notexec"

[bridges.bad]
binary = ""
colour = "red"

[bridges.json]
binary = "x"
`)
	if err != nil {
		t.Fatalf("a broken bridge failed the whole file: %v", err)
	}
	b, err := c.Bridge("good")
	if err != nil || b.Binary != "/proj/notexec" || b.Build != "" {
		t.Fatalf("good bridge: %+v, %v; want binary /proj/notexec (relative to the config) and no build", b, err)
	}
	_, err = c.Bridge("bad")
	if err == nil || !strings.Contains(err.Error(), "b.toml:6: bridges.bad needs binary") || !strings.Contains(err.Error(), "b.toml:7: unknown key bridges.bad.colour") {
		t.Fatalf("bad bridge: %v", err)
	}
	if _, err = c.Bridge("json"); err == nil || !strings.Contains(err.Error(), "codec of the reference bridge") {
		t.Fatalf("a bridge named like a reference codec: %v", err)
	}
	if _, err = c.Bridge("nope"); err == nil || !strings.Contains(err.Error(), "no bridges.nope") {
		t.Fatalf("undeclared bridge: %v", err)
	}
}

func TestBridgeNames(t *testing.T) {
	for name, ok := range map[string]bool{"mine": true, "cpp-quickjs": true, "v1.2_x": true, "a b": false, "a/b": false, "é": false} {
		c, err := Parse("b.toml", "[bridges.\""+name+"\"]\nbinary = \"x\"\n")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Bridge(name); (err == nil) != ok {
			t.Errorf("bridge %q: %v, want ok=%v", name, err, ok)
		}
	}
}
