package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/session"
)

// TestSSHBoardWords: `ssh [USER@]HOST` stands where a target's name does, and names the board by its host; the
// boards join a copy of the config, which stays as it was loaded.
func TestSSHBoardWords(t *testing.T) {
	cfg := &config.Config{Targets: map[string]config.Target{"pi4": {Kind: "ssh", Host: "pi4"}}}
	names, run, err := session.ResolveTargets([]string{"linux", "ssh", "root@pi:2222", "ssh", "board"}, cfg, "")
	if err != nil || strings.Join(names, ",") != "linux,pi:2222,board" {
		t.Fatalf("names %q, %v", names, err)
	}
	if got := run.Targets["pi:2222"]; got.Kind != "ssh" || got.Host != "root@pi:2222" || got.Toolchain != "" || run.Targets["pi4"].Host != "pi4" {
		t.Errorf("the board's target: %+v, of %+v", got, run.Targets)
	}
	if len(cfg.Targets) != 1 {
		t.Errorf("the loaded config changed: %+v", cfg.Targets)
	}
	if _, same, _ := session.ResolveTargets([]string{"linux"}, cfg, ""); same != cfg {
		t.Errorf("no board named, yet the config was copied")
	}
	for words, want := range map[string]string{
		"linux ssh":  "ssh needs the board: ssh [USER@]HOST",
		"ssh root@":  `ssh "root@": no host after the user`,
		"ssh pi --h": "ssh pi and --host root@x: name the board once",
	} {
		host := ""
		w := strings.Fields(words)
		if w[len(w)-1] == "--h" {
			w, host = w[:len(w)-1], "root@x"
		}
		if _, _, err := session.ResolveTargets(w, &config.Config{}, host); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", words, err, want)
		}
	}
}

// TestSSHBoardCommandLines: the ssh command, floor and profile take the board's host after ssh, and other targets
// after it.
func TestSSHBoardCommandLines(t *testing.T) {
	f := newFakes(false, false).factory
	var got *measureOptions
	capture := func(o *measureOptions) error { got = o; return nil }
	ssh := newCmdSSH(f, capture)
	ssh.SetArgs([]string{"root@pi", "linux"})
	if err := ssh.Execute(); err != nil || strings.Join(got.Targets, ",") != "ssh,root@pi,linux" {
		t.Errorf("ssh's targets %q, %v", got.Targets, err)
	}
	floor := newCmdFloor(f, capture)
	floor.SetArgs([]string{"ssh", "pi", "webos"})
	if err := floor.Execute(); err != nil || strings.Join(got.Targets, ",") != "ssh,pi,webos" {
		t.Errorf("floor's targets %q, %v", got.Targets, err)
	}
	ssh = newCmdSSH(f, capture)
	ssh.SetArgs([]string{})
	if err := ssh.Execute(); err == nil {
		t.Errorf("ssh without a host ran")
	}
	var prof *profileOptions
	cmd := newCmdProfile(f, func(o *profileOptions) error { prof = o; return nil })
	cmd.SetArgs([]string{"ssh", "root@pi", "callback", "2"})
	if err := cmd.Execute(); err != nil || strings.Join(prof.Target, ",") != "ssh,root@pi" || prof.Case != "callback" || prof.Seconds != 2 {
		t.Errorf("profile's options: %+v, %v", prof, err)
	}
	cmd.SetArgs([]string{"linux", "callback", "2"})
	if err := cmd.Execute(); err != nil || strings.Join(prof.Target, ",") != "linux" || prof.Case != "callback" {
		t.Errorf("profile's options: %+v, %v", prof, err)
	}
}

// TestSSHBoardHelp: the ssh command's help says that the board comes first, and hides --host.
func TestSSHBoardHelp(t *testing.T) {
	stdout, _, code := run(t, "ssh", "--help")
	if code != 0 || !strings.Contains(stdout, "bench-bridge ssh [USER@]HOST [TARGET...]") || strings.Contains(stdout, "--host") ||
		!strings.Contains(stdout, "--identity") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// TestConfigReadOncePerCommandLine: a measuring command line that names a board reads its config once, for the
// commands of the config's targets and for the run alike, and the board does not join the loaded config.
func TestConfigReadOncePerCommandLine(t *testing.T) {
	ft := &fakeTarget{name: "fake-a"}
	fs := newFakes(false, false, ft)
	var reads []string
	var loaded *config.Config
	fs.factory.ReadConfig = func(path string) (*config.Config, error) {
		reads = append(reads, path)
		c, err := config.Load(path)
		loaded = c
		return c, err
	}
	cfgFile := fakeBridge(t)
	out := filepath.Join(t.TempDir(), "{target}.json")
	code := fs.run(append([]string{"fake-a", "ssh", "root@board"}, fakeArgs(cfgFile, "--out", out)...)...)
	if code == 0 {
		t.Errorf("a run on a board the fakes do not have passed")
	}
	if len(reads) != 1 || reads[0] != cfgFile {
		t.Errorf("config read %d times (%q), want once", len(reads), reads)
	}
	if _, ok := loaded.Targets["board"]; ok {
		t.Errorf("the board joined the loaded config: %+v", loaded.Targets)
	}
	if !strings.Contains(fs.stderr.String(), `unknown target "board"`) {
		t.Errorf("stderr does not say the board was opened:\n%s", fs.stderr.String())
	}
}
