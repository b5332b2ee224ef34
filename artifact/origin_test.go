package artifact

import (
	"strings"
	"testing"
	"time"
)

// quickjs is the engine of the artifacts the tests below change.
var quickjs = Engine{Name: "quickjs", Version: "2025-04-26"}

func TestSameDeviceAndDifferences(t *testing.T) {
	native := Device{OS: "Linux (Debian 12)", Kernel: "6.1.0", Arch: "x86_64", CPUModel: "Intel(R) Xeon(R) Processor", Cores: 2,
		Compiler: "gcc 12.2.0", CFlags: "-O2 -DBB_CODEC_JSON", QuickJS: "2025-04-26"}
	tests := []struct {
		name   string
		change func(a *Artifact)
		same   bool
		want   string // Describe of the differences, "" for none
	}{
		{"identical", func(*Artifact) {}, true, ""},
		{"another CPU", func(a *Artifact) { a.Device.CPUModel = "AMD EPYC 7B13" }, false,
			"different CPUs (Intel(R) Xeon(R) Processor, AMD EPYC 7B13)"},
		{"another kernel", func(a *Artifact) { a.Device.Kernel = "6.12.0" }, false, "different kernels (6.1.0, 6.12.0)"},
		{"emulated", func(a *Artifact) { a.Device.Emulated, a.Device.EmulatedReason = true, "run prefix qemu-arm" }, false,
			"different emulation (native, emulated: run prefix qemu-arm)"},
		{"another phone", func(a *Artifact) { a.Device.Android = &Android{Manufacturer: "Google", Model: "Pixel 7"} }, false,
			"different models (none, Google Pixel 7)"},
		{"more cores", func(a *Artifact) { a.Device.Cores = 8 }, false, "different core counts (2, 8)"},
		{"another engine", func(a *Artifact) { a.Device.QuickJS, a.Engine.Version = "2024-01-13", "2024-01-13" }, true, "different engines (quickjs 2025-04-26, quickjs 2024-01-13)"},
		{"a program on another engine", func(a *Artifact) { a.Device.QuickJS, a.Engine = "", Engine{Name: "duktape", Version: "2.7.0"} }, true,
			"different engines (quickjs 2025-04-26, duktape 2.7.0)"},
		{"the floor", func(a *Artifact) { a.Kind, a.Codec, a.Device.CFlags = ProgramFloor, "", "-O2" }, true,
			"different programs (json bridge, floor), cflags (-DBB_CODEC_JSON, none)"},
		{"another compiler", func(a *Artifact) { a.Device.Compiler = "clang 16" }, true, "different compilers (gcc 12.2.0, clang 16)"},
		{"the same flags in another order", func(a *Artifact) { a.Device.CFlags = "-DBB_CODEC_JSON -O2" }, true, ""},
		{"a define", func(a *Artifact) { a.Settings.Defines = []string{"BB_EXTRA_WORK"} }, true, "different defines (none, BB_EXTRA_WORK)"},
		{"another target name, same machine", func(a *Artifact) { a.Target = "localhost" }, true, ""},
		{"another session", func(a *Artifact) { a.Session.ID = "s2" }, true, "different sessions (s1, s2)"},
		{"another run of a schema 1 artifact", func(a *Artifact) { a.Session.ID, a.StartedAt = "", a.StartedAt.Add(time.Hour) }, true,
			"different sessions (s1, run of 2026-11-30 13:00:00)"},
		// Measured on another device with another engine and build: the device's differences are named, the
		// others by kind.
		{"everything", func(a *Artifact) {
			a.Device.Arch, a.Device.Kernel, a.Device.Compiler, a.Engine.Version = "armv7l", "5.4", "arm-linux-gnueabi-gcc", "2024"
		}, false, "different architectures (x86_64, armv7l), kernels (6.1.0, 5.4), and different engines and builds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			a := &Artifact{Target: "linux", Kind: ProgramBridge, Codec: "json", Device: native, Engine: quickjs, StartedAt: start, Session: Session{ID: "s1"}}
			b := &Artifact{Target: "linux", Kind: ProgramBridge, Codec: "json", Device: native, Engine: quickjs, StartedAt: start, Session: Session{ID: "s1"}}
			tt.change(b)
			if got := SameDevice(a, b); got != tt.same {
				t.Errorf("SameDevice = %v, want %v", got, tt.same)
			}
			if got := SameDevice(b, a); got != tt.same {
				t.Errorf("SameDevice is not symmetric")
			}
			got := ""
			if ds := Differences(a, b); len(ds) > 0 {
				got = Describe(ds)
			}
			if got != tt.want {
				t.Errorf("Describe = %q, want %q", got, tt.want)
			}
		})
	}
}

// Comparing the floor with a bridge is what the tool is for: their programs, their compile flags and their sessions
// differ by design and leave nothing to warn about, while another device, compiler, QuickJS or define still does.
// Two runs of one program keep every difference.
func TestBeyondPrograms(t *testing.T) {
	native := Device{OS: "Linux", Kernel: "6.1.0", Arch: "x86_64", CPUModel: "Xeon", Cores: 2, Compiler: "gcc 12.2.0",
		CFlags: "-O2 -DBB_CODEC_JSON", QuickJS: "2025-04-26"}
	tests := []struct {
		name   string
		change func(a *Artifact)
		want   string // Describe of what is left, "" for nothing
	}{
		{"the floor, another session", func(a *Artifact) {
			a.Kind, a.Codec, a.Device.CFlags, a.Session.ID = ProgramFloor, "", "-O2", "s2"
		}, ""},
		{"another codec, another session", func(a *Artifact) {
			a.Codec, a.Device.CFlags, a.Session.ID = "fast", "-O2 -DBB_CODEC_FAST", "s2"
		}, ""},
		{"the floor with another compiler", func(a *Artifact) {
			a.Kind, a.Codec, a.Device.CFlags, a.Device.Compiler = ProgramFloor, "", "-O2", "clang 16"
		}, "different compilers (gcc 12.2.0, clang 16)"},
		{"the floor on another QuickJS", func(a *Artifact) {
			a.Kind, a.Codec, a.Device.QuickJS, a.Engine.Version = ProgramFloor, "", "2024-01-13", "2024-01-13"
		}, "different engines (quickjs 2025-04-26, quickjs 2024-01-13)"},
		{"the floor with a define", func(a *Artifact) {
			a.Kind, a.Codec, a.Settings.Defines = ProgramFloor, "", []string{"BB_EXTRA_WORK"}
		}, "different defines (none, BB_EXTRA_WORK)"},
		{"the floor on another CPU", func(a *Artifact) {
			a.Kind, a.Codec, a.Device.CPUModel = ProgramFloor, "", "Cortex-A53"
		}, "different CPUs (Xeon, Cortex-A53)"},
		{"the same program in another session", func(a *Artifact) { a.Session.ID = "s2" }, "different sessions (s1, s2)"},
		{"the same program with other flags", func(a *Artifact) { a.Device.CFlags = "-O3 -DBB_CODEC_JSON" },
			"different cflags (-O2, -O3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Artifact{Kind: ProgramBridge, Codec: "json", Device: native, Engine: quickjs, Session: Session{ID: "s1"}}
			b := &Artifact{Kind: ProgramBridge, Codec: "json", Device: native, Engine: quickjs, Session: Session{ID: "s1"}}
			tt.change(b)
			ds := Differences(a, b)
			if len(ds) == 0 {
				t.Fatal("no differences to begin with")
			}
			got := ""
			if left := BeyondPrograms(ds); len(left) > 0 {
				got = Describe(left)
			}
			if got != tt.want {
				t.Errorf("BeyondPrograms left %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLabelNamesAnotherEnginesFloor: QuickJS's floor keeps its label; another engine's floor says which engine.
func TestLabelNamesAnotherEnginesFloor(t *testing.T) {
	for _, tt := range []struct {
		engine Engine
		want   string
	}{{quickjs, "floor linux"}, {Engine{}, "floor linux"}, {Engine{Name: "jsc", Version: "2.50.6"}, "floor jsc linux"}} {
		a := &Artifact{Kind: ProgramFloor, Target: "linux", Engine: tt.engine}
		if got := a.Label(); got != tt.want {
			t.Errorf("the floor of %+v: label %q, want %q", tt.engine, got, tt.want)
		}
		if got, want := a.LabelNamingEngine(), strings.Replace(tt.want, "floor linux", "floor "+tt.engine.Name+" linux", 1); tt.engine.Name != "" && got != want {
			t.Errorf("the floor of %+v, naming its engine: label %q, want %q", tt.engine, got, want)
		}
	}
}
