package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/stats"
)

// TestMeasureLab measures the lab's wall time goal on this machine (docs/lab.md): two phones behind a lab host and
// the dropbear board in one command, against each device measured alone, in interleaved rounds. It runs only with
// BB_MEASURE_LAB=1 (scripts/measure-lab); BB_MEASURE_LAB_FLAGS replaces the measuring flags. It fails only when a
// command cannot run: the times are what it reports, not what it asserts.
func TestMeasureLab(t *testing.T) {
	if os.Getenv("BB_MEASURE_LAB") != "1" {
		t.Skip("a measurement of a few minutes: run scripts/measure-lab (BB_MEASURE_LAB=1)")
	}
	l, b, words := lab(t, 2)
	bin := cli(t)
	flags := strings.Fields(os.Getenv("BB_MEASURE_LAB_FLAGS"))
	if len(flags) == 0 {
		flags = []string{"--runs", "3", "--samples", "5", "--min-time", "10ms"}
	}
	server := []string{"-H", l.Addr, "-P", strconv.Itoa(l.Port)}
	board := []string{"--identity", b.Identity, "--known-hosts", b.KnownHosts}
	commands := []struct {
		name string
		args []string
	}{
		{"phone 1 alone", append([]string{"android", "--serial", l.Phones[0].Serial}, server...)},
		{"phone 2 alone", append([]string{"android", "--serial", l.Phones[1].Serial}, server...)},
		{"board alone", append([]string{"ssh", b.Host()}, board...)},
		{"all three in one command", slices.Clone(words)},
	}
	dir := t.TempDir()
	timed := func(i, round int) time.Duration {
		args := append(slices.Clone(commands[i].args), "--cases", "script_to_host_scalar", "--quiet",
			"--out", filepath.Join(dir, fmt.Sprintf("%d-%d-{target}.json", i, round)))
		ctx, cancel := context.WithTimeout(context.Background(), processBound)
		defer cancel()
		start := time.Now()
		out, err := exec.CommandContext(ctx, bin, append(args, flags...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", commands[i].name, err, out)
		}
		return time.Since(start)
	}
	for i := range commands {
		timed(i, -1) // builds and pushes once, so that no round pays for a build
	}
	const rounds = 5
	times := make([][]float64, len(commands))
	for r := range rounds {
		for i := range commands {
			times[i] = append(times[i], timed(i, r).Seconds())
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	var table strings.Builder
	fmt.Fprintf(&table, "Measured %s, load average at the end %s, flags %s, median of %d interleaved rounds.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(strings.Fields(string(load))[:3], " "), strings.Join(flags, " "), rounds)
	fmt.Fprintf(&table, "| command | wall time, s (each round) |\n|---|---|\n")
	slowest := 0.0
	for i, c := range commands {
		m := stats.Median(times[i])
		if i < len(commands)-1 {
			slowest = max(slowest, m)
		}
		fmt.Fprintf(&table, "| %s | %.2f (%s) |\n", c.name, m, joinSeconds(times[i]))
	}
	fmt.Fprintf(&table, "\nall three in one command / the slowest device alone: %.2fx (goal: at most 1.2x)\n",
		stats.Median(times[len(commands)-1])/slowest)
	t.Log("\n" + table.String())
}

func joinSeconds(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(parts, ", ")
}
