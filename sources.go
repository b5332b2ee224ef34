// Package benchbridge embeds the C sources of the bench programs, so that an installed bench-bridge builds them from
// any directory. The Go code lives in the packages below it; cmd/bench-bridge is the command.
package benchbridge

import "embed"

// CSources holds floor/floor.c and, under cases/c/, the shared harness (the protocol's main and the case scripts),
// the case list and the reference bridge. They are C files outside any Go package directory, because Go refuses C
// files in a package without cgo.
//
//go:embed floor/floor.c cases/c/case_table.h cases/c/cases.def
//go:embed cases/c/harness.h cases/c/harness_internal.h cases/c/harness.c cases/c/harness_measure.c
//go:embed cases/c/harness_timing.c cases/c/harness_memory.c cases/c/harness_host.c cases/c/harness_js.c
//go:embed cases/c/harness_scripts.c cases/c/itimer.c cases/c/itimer.h
//go:embed cases/c/bridge.h cases/c/bridge.c cases/c/bridge_state.c cases/c/dyn.c cases/c/host_fns.c
//go:embed cases/c/codec_json.c cases/c/codec_binary.c cases/c/codec_fast.c
var CSources embed.FS

// Paths of the embedded C sources.
const (
	Floor           = "floor/floor.c"
	CaseTable       = "cases/c/case_table.h"
	CaseList        = "cases/c/cases.def"
	HarnessHeader   = "cases/c/harness.h"          // what bridges include
	HarnessInternal = "cases/c/harness_internal.h" // what the harness's files share
	Harness         = "cases/c/harness.c"          // main(): the commands, their flags and the records
	HarnessMeasure  = "cases/c/harness_measure.c"
	HarnessTiming   = "cases/c/harness_timing.c"
	HarnessMemory   = "cases/c/harness_memory.c"
	HarnessHost     = "cases/c/harness_host.c"
	HarnessJS       = "cases/c/harness_js.c"
	HarnessScripts  = "cases/c/harness_scripts.c" // the JavaScript of every case
	Itimer          = "cases/c/itimer.c"          // the in-process profiler of `loop --itimer`
	ItimerHeader    = "cases/c/itimer.h"
	BridgeHeader    = "cases/c/bridge.h"
	Bridge          = "cases/c/bridge.c"
	BridgeState     = "cases/c/bridge_state.c"
	Dyn             = "cases/c/dyn.c"
	HostFns         = "cases/c/host_fns.c"
	CodecJSON       = "cases/c/codec_json.c"
	CodecBinary     = "cases/c/codec_binary.c"
	CodecFast       = "cases/c/codec_fast.c"
)

// HarnessSources are the harness's C files, each compiled on its own: every bench program built with the harness
// compiles and links all of them.
var HarnessSources = []string{Harness, HarnessMeasure, HarnessTiming, HarnessMemory, HarnessHost, HarnessJS, HarnessScripts, Itimer}

// CommonSources are the files every reference program is built with: the harness's C files and headers, the case
// list and the shared case table. A user's bridge gets them too, in one folder.
var CommonSources = append(append([]string{}, HarnessSources...), HarnessHeader, HarnessInternal, ItimerHeader, CaseTable, CaseList)

// BridgeSources are the reference bridge's C files besides the harness: the bench program (bridge.c), the Dyn type,
// the state, the typed host functions and every codec (a bridge binary holds them all). The conformance suite links
// them too, with a main of its own.
var BridgeSources = []string{BridgeHeader, Bridge, BridgeState, Dyn, HostFns, CodecJSON, CodecBinary, CodecFast}
