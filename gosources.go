package benchbridge

import "embed"

// GoSources holds what the floors of the engines embedded in Go (engines.Floor's GoPackage) are built from with go
// build: this module's go.mod and go.sum, which pin the engines, and the Go files of the packages the floors are made
// of, this one included (the C files it embeds are CSources). An installed bench-bridge writes them out as a module
// and builds a floor there, for any target, from any directory. Test files come with the packages' other files and
// are not written out.
//
//go:embed go.mod go.sum *.go cases/*.go harness/*.go harness/*.s floor/goja/*.go floor/quickjs-go/*.go
//go:embed floor/wasm/*.go floor/wazero/*.go
var GoSources embed.FS

// GoPackages are the folders of GoSources that hold the packages a Go floor is built from: this package's, the
// catalogue's, the Go harness's and the floors' (floor/wasm holds the WebAssembly guest of wazero's).
var GoPackages = []string{".", "cases", "harness", "floor/goja", "floor/quickjs-go", "floor/wasm", "floor/wazero"}
