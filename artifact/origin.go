package artifact

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kinds of Difference, in the order a reader should hear of them.
const (
	DiffDevice  = "device"  // another machine, CPU, kernel, or emulated on one side only: raw times do not compare
	DiffEngine  = "engine"  // another engine, or another version of one
	DiffBuild   = "build"   // another program, compiler, flags or defines
	DiffSession = "session" // measured in different sessions (runs), not side by side
)

// Difference is one way in which the origins of two artifacts differ: What (plural, "CPUs") has value A in the
// first and B in the second.
type Difference struct {
	Kind string
	What string
	A, B string
}

// Differences lists how the origins of a and b differ: their device, engine, build and session. Only artifacts
// without any difference compare by raw time (measured side by side, by one build); the others compare by ratio to
// the reference loop, which takes out the machine and its state, and only those of the same device (SameDevice) by a
// test on their samples.
func Differences(a, b *Artifact) []Difference {
	var out []Difference
	add := func(kind, what, x, y string) {
		if x != y {
			out = append(out, Difference{kind, what, orNone(x), orNone(y)})
		}
	}
	da, db := a.Device, b.Device
	add(DiffDevice, "models", da.model(), db.model())
	add(DiffDevice, "CPUs", da.CPUModel, db.CPUModel)
	add(DiffDevice, "architectures", da.Arch, db.Arch)
	add(DiffDevice, "core counts", strconv.Itoa(da.Cores), strconv.Itoa(db.Cores))
	add(DiffDevice, "kernels", da.Kernel, db.Kernel)
	add(DiffDevice, "systems", da.OS, db.OS)
	add(DiffDevice, "emulation", da.emulation(), db.emulation())
	add(DiffEngine, "engines", a.engine(), b.engine())
	add(DiffBuild, whatPrograms, a.programName(), b.programName())
	add(DiffBuild, "compilers", da.Compiler, db.Compiler)
	if onlyA, onlyB := wordDiff(da.CFlags, db.CFlags); onlyA != "" || onlyB != "" {
		out = append(out, Difference{DiffBuild, whatCFlags, orNone(onlyA), orNone(onlyB)})
	}
	add(DiffBuild, "defines", strings.Join(a.Settings.Defines, " "), strings.Join(b.Settings.Defines, " "))
	add(DiffSession, "sessions", a.sessionName(), b.sessionName())
	return out
}

// What a Difference of programs and of their compile flags is called.
const (
	whatPrograms = "programs"
	whatCFlags   = "cflags"
)

// BeyondPrograms is ds without what comparing two programs is made of. When the programs differ (the floor and a
// bridge, two codecs, a bridge of the user's), so do the flags they are compiled with, and they ran in different
// sessions unless compare ran them together: that is the comparison, not a flaw of it. What is left (another
// device, QuickJS, compiler or --define) limits the comparison and is worth a warning.
func BeyondPrograms(ds []Difference) []Difference {
	if !slices.ContainsFunc(ds, func(d Difference) bool { return d.What == whatPrograms }) {
		return ds
	}
	return slices.DeleteFunc(slices.Clone(ds), func(d Difference) bool {
		return d.What == whatPrograms || d.What == whatCFlags || d.Kind == DiffSession
	})
}

// engine names the engine a's program ran on, "NAME VERSION" (an artifact of an older schema gets it on reading:
// fromV5).
func (a *Artifact) engine() string {
	return a.Engine.String()
}

// sessionName names a's session: its ID, or for an artifact without one (schema 1, one run) the run's start.
func (a *Artifact) sessionName() string {
	if a.Session.ID != "" {
		return a.Session.ID
	}
	return "run of " + a.StartedAt.UTC().Format("2006-01-02 15:04:05")
}

// SameDevice reports whether a and b were measured on the same device: the same model, CPU, architecture, cores,
// kernel and system, and both natively or both under an emulator. It is the one definition show and gate use.
func SameDevice(a, b *Artifact) bool {
	return !slices.ContainsFunc(Differences(a, b), func(d Difference) bool { return d.Kind == DiffDevice })
}

// Describe says what ds are, for a warning line: every difference of the first kind that ds has, the others by
// kind: "different CPUs (Intel Xeon, AMD EPYC 7B13), kernels (6.1, 6.12), and different builds". A reader learns
// first why the raw times do not compare, without a line of compiler flags that follow from it.
func Describe(ds []Difference) string {
	if len(ds) == 0 {
		return "the same origin"
	}
	var parts, others []string
	for _, d := range ds {
		switch {
		case d.Kind == ds[0].Kind:
			parts = append(parts, fmt.Sprintf("%s (%s, %s)", d.What, d.A, d.B))
		case !slices.Contains(others, d.Kind+"s"):
			others = append(others, d.Kind+"s")
		}
	}
	out := "different " + strings.Join(parts, ", ")
	if len(others) > 0 {
		out += ", and different " + strings.Join(others, " and ")
	}
	return out
}

// Emulation is "" for a device that ran the program natively, else "emulated" and the reason when there is one.
func (d *Device) Emulation() string {
	switch {
	case !d.Emulated:
		return ""
	case d.EmulatedReason != "":
		return "emulated: " + d.EmulatedReason
	}
	return "emulated"
}

func (d *Device) emulation() string {
	if !d.Emulated {
		return "native"
	}
	return d.Emulation()
}

func (d *Device) model() string {
	if d.Android == nil {
		return ""
	}
	return strings.TrimSpace(d.Android.Manufacturer + " " + d.Android.Model)
}

// programName is "floor" or the bridge with its codec: "json bridge".
func (a *Artifact) programName() string {
	if a.Kind == ProgramBridge && a.Codec != "" {
		return a.Codec + " bridge"
	}
	return a.Kind
}

// wordDiff returns the words of x missing from y and those of y missing from x: what two flag lines do not share.
func wordDiff(x, y string) (onlyX, onlyY string) {
	wx, wy := strings.Fields(x), strings.Fields(y)
	missing := func(from, in []string) string {
		var out []string
		for _, w := range from {
			if !slices.Contains(in, w) {
				out = append(out, w)
			}
		}
		return strings.Join(out, " ")
	}
	return missing(wx, wy), missing(wy, wx)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
