// Package benchbridge embeds the C sources of the bench programs, so that an installed bench-bridge builds them from
// any directory. The Go code lives in the packages below it; cmd/bench-bridge is the command.
package benchbridge

import "embed"

// CSources holds floor/floor.c and, under cases/c/, the shared harness (the protocol's main) and the reference
// bridge. They are C files outside any Go package directory, because Go refuses C files in a package without cgo.
//
//go:embed floor/floor.c cases/c/harness.c cases/c/harness.h cases/c/case_table.h cases/c/bridge.c cases/c/bridge.h cases/c/codec_binary.c cases/c/codec_fast.c
var CSources embed.FS

// Paths of the embedded C sources.
const (
	Floor         = "floor/floor.c"
	Harness       = "cases/c/harness.c"
	HarnessHeader = "cases/c/harness.h"
	CaseTable     = "cases/c/case_table.h"
	Bridge        = "cases/c/bridge.c"
	BridgeHeader  = "cases/c/bridge.h"
	CodecBinary   = "cases/c/codec_binary.c"
	CodecFast     = "cases/c/codec_fast.c"
)

// CommonSources are the files every reference program is built with: the harness and the shared case table.
var CommonSources = []string{Harness, HarnessHeader, CaseTable}

// BridgeSources are the reference bridge's C files besides the harness: every bridge binary holds every codec.
var BridgeSources = []string{Bridge, BridgeHeader, CodecBinary, CodecFast}
