// Package benchbridge embeds the C sources of the bench programs, so that an installed bench-bridge builds them from
// any directory. The Go code lives in the packages below it; cmd/bench-bridge is the command.
package benchbridge

import (
	"embed"
	"slices"
)

// CSources holds floor/floor.c and, under cases/c/, the shared harness (the protocol's main and the case scripts),
// the case list and the reference bridge. They are C files outside any Go package directory, because Go refuses C
// files in a package without cgo.
//
//go:embed floor/floor.c floor/floor_jsc.c floor/floor_spidermonkey.cpp floor/floor_v8.cc floor/floor_v8_wasm.cc floor/floor_duktape.c floor/floor_mujs.c floor/floor_wasmtime.c floor/engine_cases.h floor/node_addon.h cases/c/case_table.h cases/c/case_loops.h cases/c/cases.def cases/c/host_functions.h
//go:embed cases/c/harness.h cases/c/harness_core.h cases/c/harness_internal.h cases/c/engine.h cases/c/harness.c
//go:embed cases/c/harness_main.c cases/c/harness_measure.c cases/c/harness_timing.c cases/c/harness_memory.c
//go:embed cases/c/harness_host.c cases/c/harness_scripts.c cases/c/itimer.c cases/c/itimer.h
//go:embed cases/c/engine_quickjs.c cases/c/engine_jsc.c cases/c/harness_jsc.h
//go:embed cases/c/bridge.h cases/c/bridge.c cases/c/bridge_state.c cases/c/dyn.c cases/c/host_fns.c
//go:embed cases/c/codec_json.c cases/c/codec_binary.c cases/c/codec_fast.c
//go:embed floor/wasm/guest.wat
var CSources embed.FS

// Paths of the embedded C sources.
const (
	Floor             = "floor/floor.c"
	FloorJSC          = "floor/floor_jsc.c"            // JavaScriptCore's floor
	FloorSpiderMonkey = "floor/floor_spidermonkey.cpp" // SpiderMonkey's floor, in C++: its API is
	FloorV8           = "floor/floor_v8.cc"            // V8's floor: a Node addon
	FloorV8Wasm       = "floor/floor_v8_wasm.cc"       // V8's WebAssembly's floor: a Node addon hosting the guest in JavaScript
	FloorDuktape      = "floor/floor_duktape.c"        // Duktape's floor
	FloorMuJS         = "floor/floor_mujs.c"           // MuJS's floor
	FloorWasmtime     = "floor/floor_wasmtime.c"       // Wasmtime's floor: the guest catalogue over its C API
	EngineCases       = "floor/engine_cases.h"         // the case table of the floors besides QuickJS's
	NodeAddon         = "floor/node_addon.h"           // what the floors that are node addons share
	CaseTable         = "cases/c/case_table.h"
	CaseLoops         = "cases/c/case_loops.h" // every case's set-up and timed loop, and the table, engine-free
	CaseList          = "cases/c/cases.def"
	HostFunctions     = "cases/c/host_functions.h"   // the host functions' list, which every program's table expands
	HarnessHeader     = "cases/c/harness.h"          // what QuickJS bridges include: the core and QuickJS's helpers
	HarnessCore       = "cases/c/harness_core.h"     // the protocol's side of a bridge, whatever its engine
	HarnessInternal   = "cases/c/harness_internal.h" // what the harness's files share
	EngineHeader      = "cases/c/engine.h"           // what the core asks of an engine's adapter
	Harness           = "cases/c/harness.c"          // the one file a program compiles: it includes the parts below
	HarnessMain       = "cases/c/harness_main.c"     // main(): the commands, their flags and the records
	HarnessMeasure    = "cases/c/harness_measure.c"
	HarnessTiming     = "cases/c/harness_timing.c"
	HarnessMemory     = "cases/c/harness_memory.c"
	HarnessHost       = "cases/c/harness_host.c"
	HarnessScripts    = "cases/c/harness_scripts.c" // the JavaScript of every case
	EngineQuickJS     = "cases/c/engine_quickjs.c"  // the QuickJS adapter and helpers
	EngineJSC         = "cases/c/engine_jsc.c"      // the JavaScriptCore adapter and helpers
	HarnessJSC        = "cases/c/harness_jsc.h"     // what a program over JavaScriptCore includes
	Itimer            = "cases/c/itimer.c"          // the in-process profiler of `loop --itimer`
	ItimerHeader      = "cases/c/itimer.h"
	BridgeHeader      = "cases/c/bridge.h"
	Bridge            = "cases/c/bridge.c"
	BridgeState       = "cases/c/bridge_state.c"
	Dyn               = "cases/c/dyn.c"
	HostFns           = "cases/c/host_fns.c"
	CodecJSON         = "cases/c/codec_json.c"
	CodecBinary       = "cases/c/codec_binary.c"
	CodecFast         = "cases/c/codec_fast.c"
	// WasmGuest is the catalogue as a WebAssembly guest, in WebAssembly text: the WebAssembly floors' guest, its
	// header their contract (build.WasmGuest compiles it).
	WasmGuest = "floor/wasm/guest.wat"
)

// HarnessSources are the harness's C files a program compiles: harness.c alone, which includes the parts.
var HarnessSources = []string{Harness}

// HarnessParts are the C files harness.c includes, each empty when compiled on its own (so that a user's build
// that compiles every C file of the harness's folder links too): the engine-free core, then the engine adapters.
var HarnessParts = []string{HarnessMain, HarnessMeasure, HarnessTiming, HarnessMemory, HarnessHost, HarnessScripts, Itimer, EngineQuickJS, EngineJSC}

// CommonSources are the files every reference program is built with: the harness's C files and headers, the case
// list, the shared case table and the host functions' list. A user's bridge gets them too, in one folder.
var CommonSources = slices.Concat(HarnessSources, HarnessParts, []string{HarnessHeader, HarnessCore, HarnessJSC, HarnessInternal, EngineHeader, ItimerHeader, CaseTable, CaseLoops, CaseList, HostFunctions})

// BridgeSources are the reference bridge's C files besides the harness: the bench program (bridge.c), the Dyn type,
// the state, the typed host functions and every codec (a bridge binary holds them all). The conformance suite links
// them too, with a main of its own.
var BridgeSources = []string{BridgeHeader, Bridge, BridgeState, Dyn, HostFns, CodecJSON, CodecBinary, CodecFast}
