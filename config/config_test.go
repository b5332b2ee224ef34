package config

import (
	"os"
	"path/filepath"
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
		{"half a bridge", "[bridges.x]\nbuild = \"make\"\n", "bridges.x needs both build and binary"},
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
