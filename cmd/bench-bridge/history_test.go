package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// TestHistoryOnFakeTargets measures three fake devices for 20 nights, the first 10% slower (--slowdown) from night
// 7 and all three from night 14, adds every night to a history, and reads it back: two changes, the first one
// device's and the second the code's, at exactly those nights and commits; --fail-new fails on the code's change
// only while it is new; the page and the noise are written.
func TestHistoryOnFakeTargets(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "history.db")
	names := []string{"fake-a", "fake-b", "fake-c"}
	const nights = 20
	run := func(fs *fakes, args ...string) {
		t.Helper()
		if code := fs.run(args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, fs.stdout.String(), fs.stderr.String())
		}
	}
	for n := range nights {
		for d, name := range names {
			slowdown := 0.0
			if d == 0 && n >= 7 {
				slowdown = 0.1
			}
			if n >= 14 {
				slowdown = (1+slowdown)*1.1 - 1
			}
			out := filepath.Join(dir, fmt.Sprintf("%s-%02d.json", name, n))
			args := append([]string{name}, fakeArgs(cfg, "--out", out)...)
			if slowdown > 0 {
				args = append(args, "--slowdown", fmt.Sprintf("%.4f", slowdown))
			}
			run(newFakes(false, false, &fakeTarget{name: name}), args...)
			night := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format("2006-01-02")
			run(newFakes(false, false), "history", "add", "--store", store, "--commit", fmt.Sprintf("c%02d", n), "--night", night, out)
		}
		if n == 13 || n == 19 {
			fs := newFakes(false, false)
			code := fs.run("history", "changes", "--store", store, "--fail-new")
			if want := map[int]int{13: 0, 19: 3}[n]; code != want {
				t.Errorf("night %d: history changes --fail-new: exit %d, want %d\n%s%s", n, code, want, fs.stdout.String(), fs.stderr.String())
			}
		}
	}
	fs := newFakes(false, false)
	run(fs, "history", "changes", "--store", store, "--format", "json")
	var got struct {
		Nights  int `json:"nights"`
		Changes []struct {
			Case       string   `json:"case"`
			FirstNight string   `json:"first_night"`
			From       string   `json:"from_commit"`
			To         string   `json:"to_commit"`
			Cause      string   `json:"cause"`
			Devices    []string `json:"devices"`
			Shift      float64  `json:"shift"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(fs.stdout.String()), &got); err != nil {
		t.Fatalf("%v\n%s", err, fs.stdout.String())
	}
	if got.Nights != 3*nights || len(got.Changes) != 2 {
		t.Fatalf("%d nights, changes %+v", got.Nights, got.Changes)
	}
	code, dev := got.Changes[0], got.Changes[1]
	if code.FirstNight != "2026-11-15" || code.From != "c13" || code.To != "c14" || code.Cause != "code" || len(code.Devices) != 3 {
		t.Errorf("the code's change: %+v", code)
	}
	if dev.FirstNight != "2026-11-08" || dev.To != "c07" || dev.Cause != "device" || len(dev.Devices) != 1 || !strings.HasPrefix(dev.Devices[0], "fake-a-") {
		t.Errorf("the device's change: %+v", dev)
	}
	// Acknowledged, the code's change no longer fails --fail-new, and every view shows it as known, with the note.
	fs = newFakes(false, false)
	if exit := fs.run("history", "ack", "--store", store, "--case", code.Case, "--commit", "c15", "--note", "x"); exit != 1 ||
		!strings.Contains(fs.stderr.String(), "no change of "+code.Case+" at commit c15; its changes: ") {
		t.Errorf("ack of no change: exit %d, %s", exit, fs.stderr.String())
	}
	run(newFakes(false, false), "history", "ack", "--store", store, "--case", code.Case, "--commit", "c14", "--note", "the fake slowed on purpose")
	fs = newFakes(false, false)
	if exit := fs.run("history", "changes", "--store", store, "--fail-new"); exit != 0 || !strings.Contains(fs.stdout.String(), "new, open, known: the fake slowed on purpose") {
		t.Errorf("an acknowledged change: exit %d, want 0 and it known\n%s%s", exit, fs.stdout.String(), fs.stderr.String())
	}
	fs = newFakes(false, false)
	run(fs, "history", "html", "--store", store, filepath.Join(dir, "site"))
	page, err := os.ReadFile(filepath.Join(dir, "site", "index.html"))
	if err != nil || !strings.Contains(string(page), "c13..c14") || strings.Count(string(page), "<svg") < 1 ||
		!strings.Contains(string(page), "known: the fake slowed on purpose") {
		t.Errorf("the page: %v", err)
	}
	fs = newFakes(false, false)
	run(fs, "history", "noise", "--store", store, "--format", "markdown")
	if !strings.Contains(fs.stdout.String(), "| fake-c-") {
		t.Errorf("noise:\n%s", fs.stdout.String())
	}
}

// TestHistoryAddRefuses: a night twice, an artifact of a newer schema and a foreign store fail with the file named,
// and add nothing.
func TestHistoryAddRefuses(t *testing.T) {
	cfg := fakeBridge(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "history.db")
	var files []string
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprintf("a%d.json", i))
		if code := newFakes(false, false, &fakeTarget{name: "fake-a"}).run(append([]string{"fake-a"}, fakeArgs(cfg, "--out", out)...)...); code != 0 {
			t.Fatal(code)
		}
		files = append(files, out)
	}
	data, _ := os.ReadFile(files[0])
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(strings.Replace(string(data), fmt.Sprintf(`"schema": %d`, artifact.Schema), `"schema": 99`, 1)), 0o644)
	foreign := filepath.Join(dir, "notes.txt")
	os.WriteFile(foreign, []byte(strings.Repeat("a text file, not a history\n", 200)), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--store", store, "--commit", "c1", files[0], files[1]}, "night already kept"},
		{[]string{"--store", store, "--commit", "c1", newer}, newer + ": schema 99 is not supported"},
		{[]string{"--store", foreign, "--commit", "c1", files[0]}, "not a SQLite database"},
		{[]string{"--store", store, files[0]}, "pass --commit"},
	} {
		fs := newFakes(false, false)
		t.Setenv("GITHUB_SHA", "")
		if code := fs.run(append([]string{"history", "add"}, tc.args...)...); code != 1 || !strings.Contains(fs.stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, want 1 and %q\n%s", tc.args, code, tc.want, fs.stderr.String())
		}
	}
	fs := newFakes(false, false)
	if code := fs.run("history", "changes", "--store", store); code != 0 || !strings.Contains(fs.stdout.String(), "over 0 nights") {
		t.Errorf("after refused adds: exit %d\n%s%s", code, fs.stdout.String(), fs.stderr.String())
	}
}
