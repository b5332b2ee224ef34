package targets

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// CPUs is what a target can tell and do about the device's CPUs around the processes of a run: list its cores, pin
// the programs to some of them, hold their clocks at one frequency and give the settings back, and read the
// device's state. The one target over every transport, device, implements it; a device without cpufreq lists its
// cores with no frequencies, and locking its clocks fails.
type CPUs interface {
	// Cores lists the device's cores, with what cpufreq and the scheduler say about each.
	Cores(ctx context.Context) ([]Core, error)
	// Pin makes every later Run run on cores only (taskset with a mask, which toybox, busybox and util-linux take).
	Pin(cores []int) error
	// LockClocks holds every core of the clusters of cores at one frequency, after saving the settings it changes
	// on the device, and returns what it set. The settings stay saved there until RestoreClocks, or the next
	// connection after a run that could not restore them, gives them back.
	LockClocks(ctx context.Context, cores []int) ([]artifact.LockedCluster, error)
	// RestoreClocks gives back the settings LockClocks changed; nothing when it changed none.
	RestoreClocks(ctx context.Context) error
	// State reads the device's state: every core's frequency, the thermal zones, the battery and the load.
	State(ctx context.Context) (State, error)
}

// Core is one of the device's CPUs.
type Core struct {
	ID int
	// MaxKHz is the most it can run at (cpufreq's cpuinfo_max_freq); 0 without cpufreq.
	MaxKHz int64
	// Capacity is the scheduler's measure of its speed at its top frequency (cpu_capacity, 1024 for the fastest);
	// 0 where the kernel does not say.
	Capacity int64
	// Related are the cores that share its cpufreq policy (related_cpus), itself included: its cluster.
	Related []int
	// Freqs are the frequencies it can be set to (scaling_available_frequencies), and Governors the governors it
	// can run (scaling_available_governors).
	Freqs     []int64
	Governors []string
}

// ChooseCores resolves --cpu against the device's cores: a core's number, big (the fastest cores) or little (the
// slowest). Cores are told apart by their capacity where every core has one (two clusters may share a top frequency
// and differ in design), else by their top frequency.
func ChooseCores(cores []Core, cpu string) ([]int, error) {
	if len(cores) == 0 {
		return nil, fmt.Errorf("--cpu %s: the device lists no cores", cpu)
	}
	switch cpu {
	case "big", "little":
		speed := func(c Core) int64 { return c.MaxKHz }
		if !slices.ContainsFunc(cores, func(c Core) bool { return c.Capacity <= 0 }) {
			speed = func(c Core) int64 { return c.Capacity }
		}
		best := speed(cores[0])
		for _, c := range cores {
			if (cpu == "big" && speed(c) > best) || (cpu == "little" && speed(c) < best) {
				best = speed(c)
			}
		}
		var out []int
		for _, c := range cores {
			if speed(c) == best {
				out = append(out, c.ID)
			}
		}
		return out, nil
	}
	n, err := strconv.Atoi(cpu)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("--cpu %q: want a core's number, big or little", cpu)
	}
	if !slices.ContainsFunc(cores, func(c Core) bool { return c.ID == n }) {
		return nil, fmt.Errorf("--cpu %d: the device has no core %d (its cores: %s)", n, n, CoreList(coreIDs(cores)))
	}
	return []int{n}, nil
}

// clusters are the cores of the cpufreq policies that cores belong to, in order, each core once.
func clusters(all []Core, cores []int) []int {
	var out []int
	for _, c := range all {
		if !slices.Contains(cores, c.ID) {
			continue
		}
		related := c.Related
		if len(related) == 0 {
			related = []int{c.ID}
		}
		for _, r := range related {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.Sort(out)
	return out
}

func coreIDs(cores []Core) []int {
	ids := make([]int, len(cores))
	for i, c := range cores {
		ids[i] = c.ID
	}
	return ids
}

// CoreList writes cores as people read them: "0-3,6".
func CoreList(cores []int) string {
	var parts []string
	for i := 0; i < len(cores); {
		j := i
		for j+1 < len(cores) && cores[j+1] == cores[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cores[i], cores[j]))
		} else {
			parts = append(parts, strconv.Itoa(cores[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// cpuMask is the hex affinity mask of cores, as taskset takes it everywhere (toybox's taskset has no -c).
func cpuMask(cores []int) string {
	var m big.Int
	for _, c := range cores {
		m.SetBit(&m, c, 1)
	}
	return m.Text(16)
}

// pinWords are the run prefix words that pin a program to cores.
func pinWords(cores []int) ([]string, error) {
	if len(cores) == 0 {
		return nil, fmt.Errorf("pinning to no core")
	}
	for _, c := range cores {
		if c < 0 {
			return nil, fmt.Errorf("pinning to core %d", c)
		}
	}
	return []string{"taskset", cpuMask(cores)}, nil
}

// coresScript lists the cores under the sysfs root s, one line each: "core N|max|capacity|related|freqs|governors".
func coresScript(s string) string {
	return "s=" + shellPath(s) + "/devices/system/cpu; for c in \"$s\"/cpu[0-9]*; do [ -d \"$c\" ] || continue; " +
		"f=$c/cpufreq; echo \"core ${c##*/cpu}|$(cat \"$f/cpuinfo_max_freq\" 2>/dev/null)|$(cat \"$c/cpu_capacity\" 2>/dev/null)|" +
		"$(cat \"$f/related_cpus\" 2>/dev/null)|$(cat \"$f/scaling_available_frequencies\" 2>/dev/null)|" +
		"$(cat \"$f/scaling_available_governors\" 2>/dev/null)\"; done; true"
}

// parseCores reads coresScript's lines, in the order of the cores' numbers.
func parseCores(out []byte) []Core {
	var cores []Core
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "core ")
		f := strings.Split(rest, "|")
		if !ok || len(f) != 6 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err != nil || id < 0 {
			continue
		}
		c := Core{ID: id, MaxKHz: atoi64(strings.TrimSpace(f[1])), Capacity: atoi64(strings.TrimSpace(f[2])),
			Governors: strings.Fields(f[5])}
		for _, w := range strings.Fields(f[3]) {
			if n, err := strconv.Atoi(w); err == nil && n >= 0 {
				c.Related = append(c.Related, n)
			}
		}
		for _, w := range strings.Fields(f[4]) {
			if n := atoi64(w); n > 0 {
				c.Freqs = append(c.Freqs, n)
			}
		}
		cores = append(cores, c)
	}
	slices.SortFunc(cores, func(a, b Core) int { return a.ID - b.ID })
	return cores
}
